import type { ArcTemplate, Line } from './types';

/**
 * Arcs whose answer needs two turns from different sessions: one says who or what is connected,
 * the other what happened to it. Neither turn alone answers the question.
 */
const L = (who: string, say: Line['say']): Line => ({ who, say });

export const LINKED_ARCS: readonly ArcTemplate[] = [
  ({ p, s }) => ({
    parts: [
      [L(p[0], `${s[0]} runs on the shared Redis cluster that ${p[2]} manages.`)],
      [
        L(
          p[2],
          'The shared Redis cluster gets a version upgrade on Saturday, expect a few minutes of downtime.',
        ),
      ],
    ],
    questions: [
      {
        type: 'multi-hop',
        text: `Could weekend maintenance briefly interrupt ${s[0]}, and why?`,
        evidence: [
          [0, 0, 2],
          [1, 0, 2],
        ],
      },
    ],
  }),
  ({ p, s, take }) => {
    const hire = take('hire');
    return {
      parts: [
        [L(p[0], `${hire} starts next month and will join ${p[2]}'s squad.`)],
        [L(p[2], `Reminder that my squad owns ${s[0]} and ${s[1]}, so route those tickets to us.`)],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `Which systems will the newcomer ${hire} be working on?`,
          evidence: [
            [0, 0, 2],
            [1, 0, 2],
          ],
        },
        { type: 'person', text: `Whose group is ${hire} going to be part of?`, evidence: [[0, 0, 2]] },
      ],
    };
  },
  ({ p, s, take }) => {
    const customer = take('customer');
    return {
      parts: [
        [L(p[0], `${customer} is our biggest account on ${s[0]}, by far.`)],
        [L(p[1], `${s[0]} gets a 12% price increase from April, sales will announce it.`)],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `How much more will ${customer} pay from spring onwards?`,
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
      [L(p[0], `${p[2]} wrote most of ${s[0]}, nobody else really knows the internals.`)],
      [L(p[1], `${p[2]} is leaving at the end of the month, we need a handover plan.`)],
    ],
    questions: [
      {
        type: 'multi-hop',
        text: `Knowledge of which system is at risk when ${p[2]} departs?`,
        evidence: [
          [0, 0, 2],
          [1, 0, 2],
        ],
      },
      {
        type: 'single-hop',
        text: `Why does the team need to organise a knowledge transfer from ${p[2]}?`,
        evidence: [[1, 0, 2]],
      },
    ],
  }),
  ({ p, s, int }) => {
    const n = int(1, 4);
    return {
      parts: [
        [L(p[0], `Every ${s[0]} incident goes to ${p[2]} first, they are the escalation point.`)],
        [L(p[1], (d) => `${s[0]} dropped half its requests ${d.ago(n)} after the certificate expired.`)],
      ],
      questions: [
        {
          type: 'multi-hop',
          text: `Who should have been contacted first when ${s[0]} lost traffic because of an expired cert?`,
          evidence: [
            [0, 0, 2],
            [1, 0, 2],
          ],
        },
        { type: 'temporal', text: `When did the expired certificate hit ${s[0]}?`, evidence: [[1, 0, 2]] },
      ],
    };
  },
];
