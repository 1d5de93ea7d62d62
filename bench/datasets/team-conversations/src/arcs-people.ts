import type { ArcTemplate, Line } from './types';

/** Arcs about people: who owns what, who prefers what, who is away, who replaced whom. */
const L = (who: string, say: Line['say']): Line => ({ who, say });

export const PEOPLE_ARCS: readonly ArcTemplate[] = [
  ({ p }) => ({
    parts: [
      [
        L(
          p[0],
          'Reminder for reviewers: I would rather get small PRs. Anything over 400 lines I will ask you to split.',
        ),
      ],
    ],
    questions: [
      {
        type: 'person',
        text: `How big can a change set get before ${p[0]} asks for it to be broken up?`,
        evidence: [[0, 0, 2]],
      },
    ],
  }),
  ({ p, s, int }) => {
    const n = int(1, 5);
    return {
      parts: [
        [
          L(p[0], `Did anyone pair on the ${s[0]} rate limiter?`),
          L(p[1], (d) => `Yes, with ${p[2]}, ${d.ago(n)}.`),
        ],
      ],
      questions: [
        {
          type: 'temporal',
          text: `When did ${p[1]} and ${p[2]} work together on request throttling?`,
          evidence: [
            [0, 1, 2],
            [0, 0, 1],
          ],
        },
        {
          type: 'person',
          text: `Who collaborated with ${p[1]} on throttling for ${s[0]}?`,
          evidence: [
            [0, 1, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  ({ p }) => ({
    parts: [
      [L(p[0], `${p[2]} will run the retro on Friday.`)],
      [L(p[0], `Change of plan: ${p[3]} is running Friday's retro, ${p[2]} is out sick.`)],
    ],
    questions: [
      {
        type: 'correction',
        text: `Who ends up facilitating the end-of-sprint review meeting that ${p[2]} was supposed to lead?`,
        evidence: [
          [1, 0, 2],
          [0, 0, 1],
        ],
      },
      {
        type: 'single-hop',
        text: `Why can't ${p[2]} host the team's look-back session?`,
        evidence: [[1, 0, 2]],
      },
    ],
  }),
  ({ p }) => ({
    parts: [[L(p[0], `I am off all of next week, ${p[2]} covers my reviews.`)]],
    questions: [
      {
        type: 'person',
        text: `Who checks pull requests in place of ${p[0]} during the holiday?`,
        evidence: [[0, 0, 2]],
      },
      { type: 'temporal', text: `Which days is ${p[0]} on leave?`, evidence: [[0, 0, 2]] },
    ],
  }),
  ({ p, take }) => {
    const hire = take('hire');
    return {
      parts: [
        [
          L(p[0], `${hire} joins on Monday as a backend engineer. I am their onboarding buddy.`),
          L(p[1], `Nice, I will set up ${hire}'s laptop and accounts.`),
        ],
      ],
      questions: [
        {
          type: 'person',
          text: `Who is mentoring the new server-side developer, ${hire}?`,
          evidence: [[0, 0, 2]],
        },
        { type: 'person', text: `Who is preparing equipment and logins for ${hire}?`, evidence: [[0, 1, 2]] },
        { type: 'temporal', text: `What is ${hire}'s first day?`, evidence: [[0, 0, 2]] },
      ],
    };
  },
  ({ p }) => ({
    parts: [
      [
        L(p[0], 'Can someone swap on-call with me next weekend?'),
        L(p[1], 'I can, if you take mine the weekend after.'),
        L(p[0], 'Deal, thanks.'),
      ],
    ],
    questions: [
      {
        type: 'person',
        text: `Who agreed to trade pager rotations with ${p[0]}?`,
        evidence: [
          [0, 1, 2],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, take }) => {
    const city = take('city');
    return {
      parts: [
        [L(p[0], `Standup moves to 9:45 starting tomorrow so ${p[2]} can join from ${city}.`)],
        [L(p[1], `Standup goes back to 9:15, ${p[2]} is home from ${city}.`)],
      ],
      questions: [
        {
          type: 'correction',
          text: `At what time does the daily check-in begin now that ${p[2]} has returned?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 1],
          ],
        },
        {
          type: 'single-hop',
          text: `Where was ${p[2]} working from when the morning meeting got pushed later?`,
          evidence: [[0, 0, 2]],
        },
      ],
    };
  },
  ({ p, s, take }) => {
    const hire = take('hire');
    return {
      parts: [
        [
          L(p[0], `Welcome ${hire}! They are our new product manager for ${s[0]}.`),
          L(hire, 'Thanks all, happy to be here. First task: read every open ticket.'),
        ],
      ],
      questions: [
        { type: 'person', text: `Who makes the product calls for ${s[0]}?`, evidence: [[0, 0, 2]] },
        {
          type: 'single-hop',
          text: `What did ${hire} plan to do first after arriving?`,
          evidence: [
            [0, 1, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  ({ p, s }) => ({
    parts: [
      [
        L(p[0], `Who can give me production read access for ${s[0]}?`),
        L(p[1], `${p[2]} approves those. Ask in the access channel.`),
      ],
    ],
    questions: [
      {
        type: 'person',
        text: `Who signs off on live-environment permissions for ${s[0]}?`,
        evidence: [
          [0, 1, 2],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, s }) => ({
    parts: [[L(p[0], `Please use pnpm in ${s[0]}, not npm. The lockfile drifts otherwise.`)]],
    questions: [
      {
        type: 'single-hop',
        text: `Which dependency installer is expected in ${s[0]}, and why?`,
        evidence: [[0, 0, 2]],
      },
    ],
  }),
  ({ p, s, take, int }) => {
    const customer = take('customer');
    const n = int(1, 5);
    return {
      parts: [[L(p[0], (d) => `Demoed ${s[0]} to ${customer} ${d.ago(n)}. They want SSO before they sign.`)]],
      questions: [
        {
          type: 'temporal',
          text: `When did ${customer} get a walkthrough of the product?`,
          evidence: [[0, 0, 2]],
        },
        {
          type: 'single-hop',
          text: `What does ${customer} require before committing to a contract?`,
          evidence: [[0, 0, 2]],
        },
      ],
    };
  },
  ({ p, s }) => ({
    parts: [
      [L(p[0], `${p[2]} now reviews every schema change in ${s[0]}.`)],
      [L(p[2], 'For migrations I want a rollback script in the PR description, no exceptions.')],
    ],
    questions: [
      {
        type: 'multi-hop',
        text: `What must a table-structure change to ${s[0]} include to get approved?`,
        evidence: [
          [0, 0, 2],
          [1, 0, 2],
        ],
      },
      { type: 'person', text: `Who approves database layout changes in ${s[0]}?`, evidence: [[0, 0, 2]] },
    ],
  }),
  ({ p, s }) => ({
    parts: [[L(p[0], `Sprint goal: get ${s[0]}'s cold start under two seconds.`)]],
    questions: [
      {
        type: 'single-hop',
        text: `What boot-time target has the team set for ${s[0]} in this iteration?`,
        evidence: [[0, 0, 2]],
      },
    ],
  }),
  ({ p, take }) => {
    const city = take('city');
    return {
      parts: [
        [
          L(p[0], `News: I am moving to ${city} in May, so I will be a few hours off from you all.`),
          L(p[1], 'Exciting! Keep the Thursday syncs?'),
          L(p[0], 'Yes, I will shift them to my morning.'),
        ],
      ],
      questions: [
        { type: 'person', text: `Which city is ${p[0]} relocating to?`, evidence: [[0, 0, 2]] },
        {
          type: 'single-hop',
          text: `Will ${p[0]} keep the weekly meeting after moving abroad?`,
          evidence: [
            [0, 2, 2],
            [0, 1, 1],
          ],
        },
      ],
    };
  },
  ({ p, s, take }) => {
    const customer = take('customer');
    return {
      parts: [
        [L(p[0], `${p[2]} is the account contact for ${customer} from now on.`)],
        [L(p[1], `${customer} wants a custom retention setting in ${s[0]}.`)],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `Which teammate looks after the client who asked ${s[0]} to keep data for a non-standard period?`,
          evidence: [
            [0, 0, 2],
            [1, 0, 2],
          ],
        },
      ],
    };
  },
  ({ p, s }) => ({
    parts: [
      [L(p[0], `${p[2]} is the tech lead for ${s[0]} now.`)],
      [L(p[2], 'I prefer feature flags over long-lived branches, always.')],
    ],
    questions: [
      {
        type: 'multi-hop',
        text: `How does ${s[0]}'s technical lead want unfinished work kept out of releases?`,
        evidence: [
          [0, 0, 2],
          [1, 0, 2],
        ],
      },
    ],
  }),
  ({ p, int }) => {
    const n = int(1, 4);
    return {
      parts: [
        [
          L(p[0], 'Did the interview with the frontend candidate happen?'),
          L(p[1], (d) => `It did, ${d.ago(n)}. Strong on accessibility, weaker on testing. I would hire.`),
        ],
      ],
      questions: [
        {
          type: 'temporal',
          text: `When did ${p[1]} meet the UI applicant?`,
          evidence: [
            [0, 1, 2],
            [0, 0, 1],
          ],
        },
        {
          type: 'single-hop',
          text: `What was ${p[1]}'s verdict on the person applying for the web UI role?`,
          evidence: [
            [0, 1, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  ({ p, s }) => ({
    parts: [
      [L(p[0], `I will take the ${s[0]} TLS certificate renewal.`)],
      [L(p[3], `${p[0]} is swamped, I took the ${s[0]} certificate renewal off their plate.`)],
    ],
    questions: [
      {
        type: 'correction',
        text: `Who is finally handling the expiring HTTPS cert for ${s[0]}?`,
        evidence: [
          [1, 0, 2],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, s, int }) => {
    const n = int(2, 5);
    return {
      parts: [
        [
          L(p[0], `Which of you talked to security about ${s[0]}?`),
          L(p[1], (d) => `I did, ${d.ago(n)}. They are fine with it if we turn on audit logging first.`),
        ],
      ],
      questions: [
        {
          type: 'single-hop',
          text: `What condition did the security team set for ${s[0]}?`,
          evidence: [
            [0, 1, 2],
            [0, 0, 1],
          ],
        },
        {
          type: 'temporal',
          text: `When did ${p[1]} consult the security people?`,
          evidence: [
            [0, 1, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
];
