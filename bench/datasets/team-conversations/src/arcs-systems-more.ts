import type { ArcTemplate, Line } from './types';

/** The rest of the service arcs (see arcs-systems.ts); two files only to keep each one short. */
const L = (who: string, say: Line['say']): Line => ({ who, say });

export const SYSTEM_ARCS_MORE: readonly ArcTemplate[] = [
  ({ p, s }) => ({
    parts: [
      [
        L(p[0], `We will switch off v1 of the ${s[0]} API at the end of the quarter.`),
        L(p[1], 'Mobile still calls v1 for login.'),
        L(p[0], 'Then mobile gets until June.'),
      ],
    ],
    questions: [
      {
        type: 'single-hop',
        text: `Which client still depends on the old ${s[0]} endpoints?`,
        evidence: [
          [0, 1, 2],
          [0, 0, 1],
        ],
      },
      {
        type: 'correction',
        text: `What is the deadline for the phone app to stop using the first version of ${s[0]}'s interface?`,
        evidence: [
          [0, 2, 2],
          [0, 1, 1],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, s, int }) => {
    const n = int(1, 5);
    return {
      parts: [
        [L(p[0], (d) => `I rotated the ${s[0]} database credentials ${d.ago(n)}, the old ones are revoked.`)],
      ],
      questions: [
        { type: 'temporal', text: `When were ${s[0]}'s DB passwords last changed?`, evidence: [[0, 0, 2]] },
      ],
    };
  },
  ({ p, s }) => ({
    parts: [
      [L(p[0], `I set the ${s[0]} latency alert at 500 ms p99.`)],
      [L(p[1], `That alert was too noisy, I raised the ${s[0]} threshold to 800 ms.`)],
    ],
    questions: [
      {
        type: 'correction',
        text: `How slow must ${s[0]} get before someone is paged now?`,
        evidence: [
          [1, 0, 2],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, s }) => ({
    parts: [
      [L(p[0], `For the ${s[0]} job queue we picked BullMQ over Kafka, the volume does not justify Kafka.`)],
    ],
    questions: [
      {
        type: 'single-hop',
        text: `Which streaming platform was rejected for ${s[0]}, and on what grounds?`,
        evidence: [[0, 0, 2]],
      },
    ],
  }),
  ({ p, s, take }) => {
    const [bug, described] = take('bug').split('|');
    return {
      parts: [
        [L(p[0], `${p[2]} is the one who knows the ${s[0]} business rules inside out.`)],
        [L(p[1], `Found it: ${bug} lives in ${s[0]}.`)],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `Which colleague is best placed to help with ${described}?`,
          evidence: [
            [0, 0, 2],
            [1, 0, 2],
          ],
        },
      ],
    };
  },
  ({ p, s }) => ({
    parts: [[L(p[0], `Load test on ${s[0]}: 1,200 requests per second before p99 went over 300 ms.`)]],
    questions: [
      {
        type: 'single-hop',
        text: `How much traffic can ${s[0]} absorb before it gets sluggish?`,
        evidence: [[0, 0, 2]],
      },
    ],
  }),
  ({ p, s }) => ({
    parts: [
      [
        L(p[0], `The ${s[0]} data migration has to be done by the end of next week, legal asked for it.`),
        L(p[1], 'Tight, but doable if we skip the backfill.'),
      ],
    ],
    questions: [
      {
        type: 'temporal',
        text: `By what date must the move of ${s[0]}'s records be finished?`,
        evidence: [[0, 0, 2]],
      },
      {
        type: 'single-hop',
        text: `What shortcut would make the ${s[0]} cutover feasible in time?`,
        evidence: [
          [0, 1, 2],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, s }) => ({
    parts: [
      [
        L(p[0], `Left comments on ${p[2]}'s design doc for ${s[0]} caching.`),
        L(p[1], 'Main concern?'),
        L(p[0], 'Invalidation on writes. It only expires entries by TTL.'),
      ],
    ],
    questions: [
      {
        type: 'single-hop',
        text: `What was ${p[0]}'s objection to the proposal for storing ${s[0]} results in memory?`,
        evidence: [
          [0, 2, 2],
          [0, 0, 1],
        ],
      },
      {
        type: 'person',
        text: `Who wrote the technical proposal about a cache for ${s[0]}?`,
        evidence: [[0, 0, 2]],
      },
    ],
  }),
  ({ p, s, pick }) => {
    const version = pick(['3.0', '2.4', '4.1', '5.0', '1.8']);
    return {
      parts: [
        [L(p[0], `We are targeting the ${version} release of ${s[0]} for the 15th.`)],
        [L(p[1], `${version} slips a week, the payment provider sandbox is down.`)],
      ],
      questions: [
        {
          type: 'correction',
          text: `When is the next big version of ${s[0]} expected to ship now?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 2],
          ],
        },
        {
          type: 'single-hop',
          text: `What is delaying the upcoming ${s[0]} launch?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  ({ p, s, int }) => {
    const n = int(1, 4);
    return {
      parts: [
        [L(p[0], `${s[1]} depends on ${s[0]} for every token check.`)],
        [L(p[1], (d) => `${s[0]} was down for twenty minutes ${d.ago(n)}.`)],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `Which other service suffered during the ${s[0]} interruption?`,
          evidence: [
            [0, 0, 2],
            [1, 0, 2],
          ],
        },
        { type: 'temporal', text: `When did ${s[0]} become unavailable?`, evidence: [[1, 0, 2]] },
      ],
    };
  },
  ({ p, s }) => ({
    parts: [
      [
        L(
          p[0],
          `We agreed to drop the GraphQL layer in ${s[0]}. The N+1 queries were too hard to keep under control.`,
        ),
      ],
    ],
    questions: [
      {
        type: 'single-hop',
        text: `Why is ${s[0]} abandoning its query-language gateway?`,
        evidence: [[0, 0, 2]],
      },
    ],
  }),
  ({ p, s }) => ({
    parts: [
      [
        L(p[0], `Is anyone looking at the memory leak in ${s[0]}?`),
        L(p[1], 'Me. It is the image resize buffer, the fix should land tomorrow.'),
      ],
    ],
    questions: [
      {
        type: 'single-hop',
        text: `What is making ${s[0]} use more and more RAM?`,
        evidence: [
          [0, 1, 2],
          [0, 0, 1],
        ],
      },
      {
        type: 'temporal',
        text: `On what day was the repair for ${s[0]}'s growing RAM usage expected?`,
        evidence: [
          [0, 1, 2],
          [0, 0, 1],
        ],
      },
      {
        type: 'person',
        text: `Who is hunting down the RAM growth in ${s[0]}?`,
        evidence: [
          [0, 1, 2],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, s }) => ({
    parts: [
      [L(p[0], `Legal says ${s[0]} logs can only be kept for 30 days.`)],
      [L(p[0], `Correction from legal: 90 days for the ${s[0]} audit logs, 30 for everything else.`)],
    ],
    questions: [
      {
        type: 'correction',
        text: `How long may ${s[0]}'s compliance records be retained?`,
        evidence: [
          [1, 0, 2],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, s, take }) => {
    const [first, second] = [take('vendor'), take('vendor')];
    return {
      parts: [
        [L(p[0], `We are sending ${s[0]}'s transactional email through ${first}.`)],
        [L(p[1], `Heads-up: ${s[0]} moved from ${first} to ${second}, deliverability was bad.`)],
      ],
      questions: [
        {
          type: 'correction',
          text: `Which provider delivers the messages ${s[0]} sends to users at the moment?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  ({ p, s, int }) => {
    const n = int(1, 4);
    return {
      parts: [
        [L(p[0], `We cannot upgrade ${s[1]} until ${s[0]} is on Postgres 16.`)],
        [L(p[1], (d) => `${s[0]} finished its Postgres 16 upgrade ${d.ago(n)}.`)],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `Is anything still blocking the database version bump for ${s[1]}?`,
          evidence: [
            [0, 0, 2],
            [1, 0, 2],
          ],
        },
        {
          type: 'temporal',
          text: `When did ${s[0]} complete its move to the newer database release?`,
          evidence: [[1, 0, 2]],
        },
      ],
    };
  },
];
