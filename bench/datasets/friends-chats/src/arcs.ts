/**
 * The stories of the friends-chats set: what two friends tell each other over months, and the
 * questions a memory service should answer about it. Written apart from team-conversations: other
 * people, private life instead of work, long gaps between sessions, answers spread over turns.
 */

export type QuestionType = 'single-hop' | 'multi-hop' | 'temporal' | 'update';

/** `0` is the friend the story is about, `1` the other. */
export type Speaker = 0 | 1;

export interface Turn {
  readonly who: Speaker;
  readonly say: string;
}

export interface StoryQuestion {
  readonly type: QuestionType;
  readonly text: string;
  /** [part, turn, score]: 2 carries the answer, 1 is a turn the answer needs or replaces. */
  readonly evidence: readonly (readonly [number, number, 1 | 2])[];
}

/** One story: each part is a run of consecutive turns in one session, parts in later sessions. */
export interface Story {
  readonly parts: readonly (readonly Turn[])[];
  readonly questions: readonly StoryQuestion[];
}

export type Pool =
  | 'pet'
  | 'city'
  | 'restaurant'
  | 'book'
  | 'band'
  | 'child'
  | 'flatmate'
  | 'partner'
  | 'neighbourhood'
  | 'colleague';

/** What a story template draws on. */
export interface StoryContext {
  /** The two friends' first names: `a` is the one the story is about. */
  readonly a: string;
  readonly b: string;
  /** A name handed out once in the whole set, so that no question fits two conversations. */
  take(pool: Pool): string;
  pick<T>(items: readonly T[]): T;
  int(min: number, max: number): number;
}

export type StoryTemplate = (c: StoryContext) => Story;

/** Names handed out at most once (`take`). */
export const POOLS: Record<Pool, readonly string[]> = {
  pet: [
    'Pepper',
    'Biscuit',
    'Mochi',
    'Juniper',
    'Waffles',
    'Pickle',
    'Nacho',
    'Olive',
    'Ziggy',
    'Maple',
    'Rocket',
    'Tofu',
    'Pebble',
    'Bagel',
    'Clementine',
    'Noodle',
    'Sprout',
    'Fennel',
  ],
  city: [
    'Lisbon',
    'Kyoto',
    'Reykjavik',
    'Marrakech',
    'Vienna',
    'Oaxaca',
    'Tbilisi',
    'Hanoi',
    'Edinburgh',
    'Valparaiso',
    'Krakow',
    'Porto',
    'Seville',
    'Bergen',
    'Ljubljana',
    'Cusco',
    'Tallinn',
    'Hobart',
    'Montreal',
    'Bologna',
    'Cape Town',
    'Busan',
    'Galway',
    'Quebec City',
    'Zanzibar',
    'Salzburg',
    'Cartagena',
    'Chiang Mai',
    'Dubrovnik',
    'Helsinki',
    'Nara',
    'Granada',
    'Antwerp',
    'Wellington',
    'Istanbul',
    'Matera',
  ],
  restaurant: [
    'Little Ember',
    'The Copper Pot',
    'Saffron Door',
    'Blue Tamarind',
    'Nonna Rosa',
    'Smoke & Salt',
    'The Green Lantern',
    'Casa Lupe',
    'Yuzu Bar',
    'The Olive Press',
    'Mama Tsion',
    'Pho Real',
    'Harbour Kitchen',
    'El Fogón',
    'Jasmine Court',
    'The Crooked Spoon',
    'Tbilisi Table',
    'Koji House',
  ],
  book: [
    'The Salt Orchard',
    'Nine Lanterns',
    'A Winter in Tallinn',
    'The Glass Cartographer',
    'Quiet Harbours',
    'The Beekeeper of Lyon',
    'Small Gods of August',
    'The Last Ferry Home',
    'Paper Moons',
    'The Orchid Thief of Kew',
    'Under the Linden',
    'The Clockmaker\u2019s Daughter',
    'Rivers of Ash',
    'A House Made of Rain',
    'The Lighthouse Accounts',
    'Seven Silent Bells',
    'The Cartwright Letters',
    'Fields of Lavender',
  ],
  band: [
    'The Velvet Tides',
    'Paper Comets',
    'Lanterns in June',
    'Static Orchard',
    'The Midnight Foxes',
    'Neon Harbour',
    'Coral Engine',
    'Wild Geese Union',
    'The Hollow Pines',
    'Glass Animals Club',
    'Sunday Thieves',
    'Polar Radio',
    'The Marigold Band',
    'Echo Valley',
    'Brass Lanterns',
    'Cloudberry',
    'The Amber Kites',
    'Moth & Moon',
  ],
  child: [
    'Milo',
    'Ezra',
    'Isla',
    'Rosie',
    'Felix',
    'Nico',
    'Ada',
    'Jude',
    'Ivy',
    'Otis',
    'Luna',
    'Rafi',
    'Elsie',
    'Caspian',
    'Wren',
    'Alfie',
    'Matilda',
    'Soren',
  ],
  flatmate: [
    'Gregor',
    'Tamsin',
    'Dev',
    'Ottilie',
    'Rory',
    'Bea',
    'Casimir',
    'Phoebe',
    'Lars',
    'Imogen',
    'Kofi',
    'Saskia',
    'Dmitri',
    'Hattie',
    'Anders',
    'Zainab',
    'Ruben',
    'Delphine',
  ],
  partner: [
    'Julian',
    'Amara',
    'Stefan',
    'Leila',
    'Mateo',
    'Rowan',
    'Anouk',
    'Tobias',
    'Farah',
    'Emil',
    'Cora',
    'Idris',
    'Greta',
    'Luca',
    'Niamh',
    'Bastian',
    'Selin',
    'Callum',
  ],
  neighbourhood: [
    'Old Harbour',
    'Millbrook',
    'Northgate',
    'Elm Park',
    'Castle Hill',
    'Southbank',
    'Fennimore Square',
    'Larkfield',
    'Copper Row',
    'St Agnes',
    'Whitmore Heights',
    'Brackenside',
    'Kingsmead',
    'Ashby Green',
    'Marlow Quay',
    'Thornbury',
    'Willowdene',
    'Hatherley',
  ],
  colleague: [
    'Gwen',
    'Marcus',
    'Ingrid',
    'Rashid',
    'Paloma',
    'Viktor',
    'Esther',
    'Kenji',
    'Bronwyn',
    'Alonso',
    'Mirela',
    'Declan',
    'Yusra',
    'Henrik',
    'Odette',
    'Tariq',
    'Liesel',
    'Barnaby',
  ],
};

const BREEDS = [
  'border collie',
  'beagle',
  'greyhound',
  'dachshund',
  'labrador',
  'corgi',
  'whippet',
  'spaniel',
  'husky',
  'shiba inu',
];
const MONTHS = ['March', 'April', 'May', 'June', 'July', 'September', 'October', 'November'];
const RACES = [
  'half marathon',
  'triathlon',
  'ten-kilometre charity run',
  'hundred-mile cycling sportive',
  'open-water swim',
];
const JOBS = [
  'nurse',
  'architect',
  'data analyst',
  'primary school teacher',
  'electrician',
  'pharmacist',
  'chef',
  'librarian',
  'paramedic',
  'accountant',
];
const HOBBIES = [
  'pottery',
  'rock climbing',
  'salsa',
  'woodworking',
  'watercolour',
  'Japanese',
  'beekeeping',
  'archery',
  'fencing',
  'improv',
];
const INSTRUMENTS = [
  'cello',
  'drum kit',
  'saxophone',
  'violin',
  'trumpet',
  'ukulele',
  'harmonica',
  'keyboard',
  'banjo',
  'flute',
];
const CUISINES = [
  'Ethiopian',
  'Georgian',
  'Peruvian',
  'Korean',
  'Lebanese',
  'Sri Lankan',
  'Oaxacan',
  'Sichuan',
  'Basque',
  'Vietnamese',
];
const RELATIVES = ['sister', 'brother', 'cousin', 'aunt', 'grandmother', 'uncle'];
const GIFTS = [
  'a bread-making course',
  'a star map of the night they met',
  'noise-cancelling headphones',
  'a vintage record player',
  'a hot-air balloon ride',
  'a set of climbing shoes',
  'a personalised cookbook',
  'a hammock',
];
const INJURIES = [
  'sprained my ankle',
  'broke my wrist',
  'tore a ligament in my knee',
  'cracked a rib',
  'dislocated my shoulder',
  'pulled a hamstring',
];
const SPORTS = [
  'five-a-side football',
  'netball',
  'bouldering',
  'roller derby',
  'ultimate frisbee',
  'squash',
];
const OLD_CARS = [
  'Volvo estate',
  'Fiat Panda',
  'Ford Fiesta',
  'Honda Civic',
  'Peugeot 206',
  'Toyota Corolla',
];
const NEW_CARS = [
  'Nissan Leaf',
  'Renault Zoe',
  'Kia Niro',
  'Hyundai Kona',
  'Tesla Model 3',
  'Vauxhall Corsa-e',
];
const ALLERGENS = ['sesame', 'shellfish', 'hazelnuts', 'kiwi', 'mustard', 'celery'];
const VOLUNTEERING = [
  'the food bank',
  'the animal shelter',
  'the community garden',
  'a hospice',
  'the refugee drop-in centre',
  'the youth football club',
];
const EXAMS = [
  'driving test',
  'sommelier exam',
  'first-aid certificate',
  'diving licence',
  'Spanish B2 exam',
  'bar exam',
];

export const STORIES: readonly StoryTemplate[] = [
  // A dog from the shelter: what and when.
  ({ a, take, pick }) => {
    const pet = take('pet');
    const breed = pick(BREEDS);
    return {
      parts: [
        [
          { who: 0, say: `Guess what, we adopted a ${breed} from the rescue centre last weekend!` },
          { who: 1, say: 'No way! What did you call her?' },
          { who: 0, say: `${pet}. She has already claimed the sofa.` },
        ],
      ],
      questions: [
        { type: 'single-hop', text: `What breed is ${a}'s new dog?`, evidence: [[0, 0, 2]] },
        {
          type: 'temporal',
          text: `When did ${a} bring ${pet} home?`,
          evidence: [
            [0, 0, 2],
            [0, 2, 1],
          ],
        },
      ],
    };
  },
  // A solo trip, planned and told about later.
  ({ a, take, pick }) => {
    const city = take('city');
    const month = pick(MONTHS);
    return {
      parts: [
        [
          { who: 0, say: `I just booked flights to ${city} for ${month}!` },
          { who: 1, say: 'Jealous. Who are you going with?' },
          { who: 0, say: 'Nobody, it is my first holiday on my own.' },
        ],
        [
          { who: 1, say: 'So, how was the big trip?' },
          {
            who: 0,
            say: 'Honestly the best week I have had in years, I walked everywhere and ate far too many pastries.',
          },
        ],
      ],
      questions: [
        {
          type: 'single-hop',
          text: `Which city did ${a} visit when travelling alone?`,
          evidence: [
            [0, 0, 2],
            [0, 2, 1],
          ],
        },
        { type: 'temporal', text: `In which month was ${a}'s solo getaway?`, evidence: [[0, 0, 2]] },
      ],
    };
  },
  // A race, then a different one.
  ({ a, pick }) => {
    const [first, second] = pickTwo(pick, RACES);
    return {
      parts: [
        [{ who: 0, say: `I signed up for a ${first} in the spring, training starts on Monday.` }],
        [
          { who: 0, say: `Change of plan: my knee is not happy, so I switched to the ${second} instead.` },
          { who: 1, say: 'Sensible. No point wrecking yourself.' },
        ],
      ],
      questions: [
        {
          type: 'update',
          text: `Which event is ${a} preparing for at this point?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  // A relative moves away; later a visit.
  ({ a, take, pick }) => {
    const city = take('city');
    const relative = pick(RELATIVES);
    return {
      parts: [
        [
          { who: 0, say: `My ${relative} just moved to ${city} for a new job.` },
          { who: 1, say: 'That is so far away. Do you miss them?' },
          { who: 0, say: 'Every single day.' },
        ],
        [{ who: 0, say: `I am finally flying out to see my ${relative} in two weeks, tickets are booked.` }],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `Which city is ${a} travelling to for the family visit?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 2],
          ],
        },
      ],
    };
  },
  // A career change.
  ({ a, pick }) => {
    const [before, after] = pickTwo(pick, JOBS);
    return {
      parts: [
        [
          { who: 1, say: 'How is work these days?' },
          { who: 0, say: `Eight years as a ${before} and I am getting restless.` },
        ],
        [
          { who: 0, say: `I handed in my notice! I am retraining as a ${after}.` },
          { who: 1, say: 'That is brave, I am proud of you.' },
        ],
      ],
      questions: [
        {
          type: 'update',
          text: `What profession is ${a} moving into?`,
          evidence: [
            [1, 0, 2],
            [0, 1, 1],
          ],
        },
        {
          type: 'single-hop',
          text: `What did ${a} do for a living before changing careers?`,
          evidence: [[0, 1, 2]],
        },
      ],
    };
  },
  // An evening class.
  ({ a, pick }) => {
    const hobby = pick(HOBBIES);
    const day = pick(['Tuesday', 'Wednesday', 'Thursday']);
    return {
      parts: [
        [
          { who: 0, say: `I started a ${hobby} class on ${day} evenings.` },
          { who: 1, say: 'Is it hard?' },
          { who: 0, say: 'Harder than it looks, my first attempt was a disaster.' },
        ],
      ],
      questions: [
        {
          type: 'single-hop',
          text: `What course does ${a} go to after work each week?`,
          evidence: [[0, 0, 2]],
        },
        { type: 'temporal', text: `On which day of the week is ${a}'s lesson?`, evidence: [[0, 0, 2]] },
      ],
    };
  },
  // An injury.
  ({ a, pick }) => {
    const injury = pick(INJURIES);
    const sport = pick(SPORTS);
    return {
      parts: [
        [
          { who: 0, say: `I ${injury} at ${sport} on Sunday, so no exercise for six weeks.` },
          { who: 1, say: 'Ouch! Did you have to go to hospital?' },
          { who: 0, say: 'Four hours in the emergency department, on a Sunday night.' },
        ],
      ],
      questions: [
        { type: 'single-hop', text: `How did ${a} get hurt?`, evidence: [[0, 0, 2]] },
        {
          type: 'temporal',
          text: `How long does ${a} have to stay off sport after the accident?`,
          evidence: [[0, 0, 2]],
        },
      ],
    };
  },
  // An instrument given up for another.
  ({ a, pick }) => {
    const [first, second] = pickTwo(pick, INSTRUMENTS);
    return {
      parts: [
        [{ who: 0, say: `I bought a second-hand ${first} and I am teaching myself from videos.` }],
        [
          { who: 0, say: `I gave up on the ${first}, the neighbours complained. Trying the ${second} now.` },
          { who: 1, say: 'Ha, maybe practise with the windows shut this time.' },
        ],
      ],
      questions: [
        {
          type: 'update',
          text: `Which instrument is ${a} learning to play now?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  // A new flat.
  ({ a, take }) => {
    const area = take('neighbourhood');
    return {
      parts: [
        [
          { who: 0, say: 'We got the keys to the new flat yesterday!' },
          { who: 1, say: 'Congratulations! Which part of town?' },
          { who: 0, say: `${area}, right by the river.` },
        ],
      ],
      questions: [
        { type: 'temporal', text: `When did ${a} collect the keys to the apartment?`, evidence: [[0, 0, 2]] },
        {
          type: 'single-hop',
          text: `Which neighbourhood did ${a} move to?`,
          evidence: [
            [0, 2, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  // A restaurant recommended by the other friend.
  ({ a, b, take, pick }) => {
    const place = take('restaurant');
    const cuisine = pick(CUISINES);
    return {
      parts: [
        [
          {
            who: 1,
            say: `You have to try ${cuisine} food, there is a tiny place called ${place} near my office.`,
          },
        ],
        [
          { who: 0, say: `We finally went to ${place}, you were right, best meal of the year.` },
          { who: 1, say: 'Told you! Did you have the stew?' },
        ],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `What kind of cooking did ${a} try on ${b}'s tip?`,
          evidence: [
            [0, 0, 2],
            [1, 0, 2],
          ],
        },
      ],
    };
  },
  // A gift idea for the other friend's family.
  ({ b, pick }) => {
    const relative = pick(RELATIVES);
    const gift = pick(GIFTS);
    return {
      parts: [
        [
          { who: 1, say: `It is my ${relative}'s birthday soon and I have no idea what to get.` },
          { who: 0, say: `What about ${gift}?` },
          { who: 1, say: 'Perfect, I will order it tonight.' },
        ],
      ],
      questions: [
        {
          type: 'single-hop',
          text: `What present did ${b} decide on for the ${relative}?`,
          evidence: [
            [0, 1, 2],
            [0, 2, 1],
          ],
        },
      ],
    };
  },
  // A book club.
  ({ a, take }) => {
    const book = take('book');
    return {
      parts: [
        [
          { who: 0, say: `Our book club is reading ${book} this month.` },
          { who: 1, say: 'Any good?' },
          { who: 0, say: 'Slow start, but the ending made me cry on the bus.' },
        ],
      ],
      questions: [
        { type: 'single-hop', text: `Which novel did ${a}'s reading group pick?`, evidence: [[0, 0, 2]] },
      ],
    };
  },
  // A car that died and its electric replacement.
  ({ b, pick }) => {
    const old = pick(OLD_CARS);
    const replacement = pick(NEW_CARS);
    return {
      parts: [
        [
          { who: 1, say: `My old ${old} finally died on the motorway.` },
          { who: 0, say: 'Oh no, were you alright?' },
        ],
        [{ who: 1, say: `I went electric in the end and picked up a used ${replacement}.` }],
      ],
      questions: [
        {
          type: 'update',
          text: `What vehicle does ${b} get around in these days?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  // An engagement, then the wedding date.
  ({ a, take, int }) => {
    const partner = take('partner');
    const city = take('city');
    const day = int(3, 28);
    const month = ['May', 'June', 'August', 'September'][int(0, 3)];
    return {
      parts: [
        [
          { who: 0, say: `I am engaged!! ${partner} proposed at sunset in ${city}.` },
          { who: 1, say: 'I am screaming! Show me the ring!' },
        ],
        [{ who: 0, say: `We set a date: the ${day}th of ${month}, in my grandparents' garden.` }],
      ],
      questions: [
        { type: 'single-hop', text: `Where did ${partner} pop the question to ${a}?`, evidence: [[0, 0, 2]] },
        { type: 'temporal', text: `On what date is ${a} getting married?`, evidence: [[1, 0, 2]] },
      ],
    };
  },
  // A balcony garden.
  ({ a, int }) => {
    const count = int(12, 60);
    return {
      parts: [
        [
          { who: 0, say: `The tomatoes on my balcony finally ripened, I counted ${count} of them.` },
          { who: 1, say: 'Save me some for a salad.' },
        ],
      ],
      questions: [
        {
          type: 'single-hop',
          text: `How big was ${a}'s harvest from the pots outside the flat?`,
          evidence: [[0, 0, 2]],
        },
      ],
    };
  },
  // Volunteering.
  ({ a, pick }) => {
    const where = pick(VOLUNTEERING);
    return {
      parts: [
        [
          { who: 1, say: 'What are you up to at weekends these days?' },
          { who: 0, say: `I have started helping out at ${where} every Saturday morning.` },
        ],
      ],
      questions: [{ type: 'single-hop', text: `Where does ${a} give time for free?`, evidence: [[0, 1, 2]] }],
    };
  },
  // A concert: tickets, then the night.
  ({ a, take }) => {
    const band = take('band');
    return {
      parts: [
        [{ who: 0, say: `I got tickets to see ${band}, front row!` }],
        [
          { who: 0, say: 'The concert last night was incredible, I lost my voice singing along.' },
          { who: 1, say: 'Videos or it did not happen.' },
        ],
      ],
      questions: [
        {
          type: 'temporal',
          text: `When did ${a} see ${band} play live?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  // The other friend's son starts school.
  ({ b, take }) => {
    const child = take('child');
    return {
      parts: [
        [
          { who: 1, say: `My youngest, ${child}, starts school in September and is so nervous.` },
          { who: 0, say: 'Give it a fortnight, they always love it by then.' },
        ],
      ],
      questions: [
        { type: 'single-hop', text: `What is ${b}'s youngest child called?`, evidence: [[0, 0, 2]] },
      ],
    };
  },
  // An allergy, and the other friend's dinner.
  ({ a, b, pick }) => {
    const allergen = pick(ALLERGENS);
    return {
      parts: [
        [{ who: 0, say: `Turns out I am allergic to ${allergen}, that explains the rashes.` }],
        [{ who: 1, say: 'I am hosting dinner on Friday, I will make sure nothing has it in, promise.' }],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `Which ingredient will ${b} keep out of the Friday dinner party?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 2],
          ],
        },
        { type: 'single-hop', text: `What food makes ${a} ill?`, evidence: [[0, 0, 2]] },
      ],
    };
  },
  // An exam passed.
  ({ a, pick }) => {
    const exam = pick(EXAMS);
    return {
      parts: [
        [
          { who: 0, say: `I passed my ${exam} this morning, third time lucky!` },
          { who: 1, say: 'Finally! Drinks on me.' },
        ],
      ],
      questions: [
        { type: 'temporal', text: `When did ${a} finally get through the ${exam}?`, evidence: [[0, 0, 2]] },
      ],
    };
  },
  // A flatmate who leaves.
  ({ a, take }) => {
    const flatmate = take('flatmate');
    return {
      parts: [
        [
          { who: 0, say: `My flatmate ${flatmate} keeps eating my leftovers.` },
          { who: 1, say: 'Label everything. Or hide it behind the broccoli.' },
        ],
        [{ who: 0, say: `${flatmate} is moving out at the end of the month, thank goodness.` }],
      ],
      questions: [
        {
          type: 'update',
          text: `Who is leaving ${a}'s shared house?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  // A colleague who helped, thanked later.
  ({ a, b, take }) => {
    const colleague = take('colleague');
    return {
      parts: [
        [
          { who: 0, say: 'My laptop died the night before the big presentation.' },
          { who: 1, say: 'Nightmare! What did you do?' },
          { who: 0, say: `${colleague} from the desk next to mine lent me theirs and stayed late to help.` },
        ],
        [{ who: 0, say: `I baked ${colleague} a lemon cake to say thanks, they nearly cried.` }],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `Why did ${a} bake a cake for a co-worker, as told to ${b}?`,
          evidence: [
            [1, 0, 2],
            [0, 2, 2],
          ],
        },
      ],
    };
  },
];

/** Two different items. */
function pickTwo<T>(pick: (items: readonly T[]) => T, items: readonly T[]): [T, T] {
  const first = pick(items);
  return [first, pick(items.filter((i) => i !== first))];
}
