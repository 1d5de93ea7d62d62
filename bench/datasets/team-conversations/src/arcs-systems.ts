import type { ArcTemplate, Line } from './types';

/**
 * Arcs about services: incidents, decisions, changes of plan. Turns say it the way engineers do;
 * questions ask it the way someone later would, with other words for the content (names stay).
 */
const L = (who: string, say: Line['say']): Line => ({ who, say });

export const SYSTEM_ARCS: readonly ArcTemplate[] = [
  ({ p, s }) => ({
    parts: [
      [
        L(
          p[0],
          `Proposal: let's shift the ${s[0]} nightly cron to 02:00 UTC so it stops colliding with the backups.`,
        ),
        L(p[1], 'Fine by me, just tell the data folks.'),
      ],
      [
        L(
          p[0],
          `Scratch what I said about the ${s[0]} cron. The backup window moved, so it goes to 04:30 UTC instead.`,
        ),
      ],
    ],
    questions: [
      {
        type: 'correction',
        text: `At what hour will the ${s[0]} overnight batch job run after the latest change?`,
        evidence: [
          [1, 0, 2],
          [0, 0, 1],
        ],
      },
      {
        type: 'single-hop',
        text: `Why did ${p[0]} first want to reschedule the job ${s[0]} runs every night?`,
        evidence: [[0, 0, 2]],
      },
    ],
  }),
  ({ p, s, int }) => {
    const n = int(1, 5);
    return {
      parts: [
        [
          L(
            p[0],
            (d) =>
              `Heads-up: ${s[0]} threw 502s for about forty minutes ${d.ago(n)}. The connection pool ran dry.`,
          ),
          L(p[1], 'Did we lose any data?'),
          L(p[0], 'No, the clients retried. I will write the postmortem.'),
        ],
      ],
      questions: [
        { type: 'temporal', text: `On which date did ${s[0]} have its outage?`, evidence: [[0, 0, 2]] },
        {
          type: 'temporal',
          text: (ds) => `What went wrong with ${s[0]} on ${ds[0].dayName(-n)}?`,
          evidence: [[0, 0, 2]],
        },
        {
          type: 'person',
          text: `Who took on the incident write-up for the ${s[0]} failure?`,
          evidence: [
            [0, 2, 2],
            [0, 0, 1],
          ],
        },
      ],
    };
  },
  ({ p, s }) => ({
    parts: [
      [
        L(p[0], `${p[2]} is taking over ${s[0]} from me starting next sprint.`),
        L(p[1], 'Does that include the pager?'),
        L(p[0], 'Yes, on-call for it as well.'),
      ],
    ],
    questions: [
      { type: 'person', text: `Who will be responsible for ${s[0]} from now on?`, evidence: [[0, 0, 2]] },
      {
        type: 'single-hop',
        text: `Does ${p[2]} also carry the out-of-hours support duty for ${s[0]}?`,
        evidence: [
          [0, 2, 2],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, s, int }) => {
    const n = int(1, 4);
    return {
      parts: [
        [L(p[0], `${p[2]} owns the ${s[0]} deploy pipeline now, ${p[3]} handed it over.`)],
        [
          L(
            p[1],
            (d) => `The ${s[0]} release ${d.ago(n)} broke the checkout page, rollback took ten minutes.`,
          ),
        ],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `The bad ${s[0]} rollout that took the payment screen offline went through whose delivery process?`,
          evidence: [
            [0, 0, 2],
            [1, 0, 2],
          ],
        },
        { type: 'temporal', text: `When was the faulty ${s[0]} version shipped?`, evidence: [[1, 0, 2]] },
      ],
    };
  },
  ({ p, s }) => ({
    parts: [
      [
        L(
          p[0],
          `Decision from the architecture sync: ${s[0]} stays on Postgres, we are not moving it to DynamoDB.`,
        ),
        L(p[1], 'Good. The migration estimate was six weeks anyway.'),
      ],
    ],
    questions: [
      { type: 'single-hop', text: `Which datastore will ${s[0]} keep using?`, evidence: [[0, 0, 2]] },
      {
        type: 'single-hop',
        text: `How long was switching ${s[0]} to a different database expected to take?`,
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
        L(
          p[0],
          `Plan for the coming days: I will split ${s[0]} into a read path and a write path, then load test it.`,
        ),
      ],
      [L(p[0], 'The split is done. The load test showed three times the headroom we had before.')],
    ],
    questions: [
      { type: 'single-hop', text: `How is ${p[0]} planning to restructure ${s[0]}?`, evidence: [[0, 0, 2]] },
      {
        type: 'multi-hop',
        text: `What did the stress run reveal after ${s[0]} was divided in two?`,
        evidence: [
          [1, 0, 2],
          [0, 0, 2],
        ],
      },
    ],
  }),
  ({ p, s }) => ({
    parts: [
      [L(p[0], `We are pinned to Node 18 on ${s[0]} because of the crypto module issue.`)],
      [L(p[1], `Update: ${s[0]} is on Node 20 now, the crypto bug was fixed upstream.`)],
    ],
    questions: [
      {
        type: 'correction',
        text: `Which JavaScript runtime release does ${s[0]} use at present?`,
        evidence: [
          [1, 0, 2],
          [0, 0, 1],
        ],
      },
      {
        type: 'single-hop',
        text: `What originally held ${s[0]} back on an older runtime?`,
        evidence: [[0, 0, 2]],
      },
    ],
  }),
  ({ p, s }) => ({
    parts: [
      [
        L(p[0], `The ${s[0]} integration suite is flaky again, the timezone test fails after midnight.`),
        L(p[1], 'I will quarantine it today.'),
      ],
    ],
    questions: [
      {
        type: 'single-hop',
        text: `Which check in ${s[0]}'s test run breaks around the date rollover?`,
        evidence: [[0, 0, 2]],
      },
      {
        type: 'person',
        text: `Who offered to isolate the unreliable ${s[0]} check?`,
        evidence: [
          [0, 1, 2],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, s, take, int }) => {
    const customer = take('customer');
    const n = int(1, 5);
    return {
      parts: [
        [
          L(p[0], (d) => `${customer} escalated ${d.ago(n)}: their exports from ${s[0]} were missing rows.`),
          L(p[1], 'That is the pagination bug. I will hotfix it.'),
        ],
      ],
      questions: [
        {
          type: 'temporal',
          text: `When did ${customer} complain about incomplete data?`,
          evidence: [[0, 0, 2]],
        },
        {
          type: 'single-hop',
          text: `What defect caused the gaps in ${customer}'s downloaded files?`,
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
        L(p[0], `The ${s[0]} bill jumped 30% last month, mostly NAT gateway traffic.`),
        L(p[1], 'Let us add a VPC endpoint for S3 then.'),
      ],
    ],
    questions: [
      { type: 'single-hop', text: `What drove up cloud spending for ${s[0]}?`, evidence: [[0, 0, 2]] },
      {
        type: 'single-hop',
        text: `What was suggested to bring ${s[0]}'s network charges down?`,
        evidence: [
          [0, 1, 2],
          [0, 0, 1],
        ],
      },
    ],
  }),
  ({ p, take, int }) => {
    const [feature, described] = take('feature').split('|');
    const n = int(1, 3);
    return {
      parts: [
        [L(p[0], `${feature} is behind a feature flag, on for 10% of users for now.`)],
        [
          L(
            p[1],
            (d) => `Rolled that flag out to everyone ${d.ago(n)}: ${feature.toLowerCase()} is live for all.`,
          ),
        ],
      ],
      questions: [
        {
          type: 'correction',
          text: `What share of customers can see ${described} now?`,
          evidence: [
            [1, 0, 2],
            [0, 0, 1],
          ],
        },
        {
          type: 'temporal',
          text: `On what day did ${described} reach every customer?`,
          evidence: [[1, 0, 2]],
        },
      ],
    };
  },
];
