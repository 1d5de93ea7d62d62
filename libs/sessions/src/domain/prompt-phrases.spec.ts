import { describe, expect, it } from 'vitest';
import { matchSentence, phrasesIn, proseLines } from './prompt-phrases';

const one = (text: string) => {
  const found = phrasesIn(text);
  expect(found, text).toHaveLength(1);
  return found[0];
};

describe('phrasesIn: explicit notes', () => {
  it.each([
    ['Remember that the staging database is read-only.', 'The staging database is read-only.'],
    ['remember that the staging database is read-only', 'The staging database is read-only.'],
    ['please remember: integration tests need Docker running', 'Integration tests need Docker running.'],
    [
      'Remember this: the CI cache key includes the lockfile hash',
      'The CI cache key includes the lockfile hash.',
    ],
    ['Remember, the billing service times out after 30s', 'The billing service times out after 30s.'],
    ['ok, remember the CI runner has no GPU', 'The CI runner has no GPU.'],
    ['Do remember that feature flags live in LaunchDarkly', 'Feature flags live in LaunchDarkly.'],
    ['remember to run `npm run lint` before pushing', 'Remember to run `npm run lint` before pushing.'],
    ['Note to self: the deploy script needs AWS_PROFILE=prod', 'The deploy script needs AWS_PROFILE=prod.'],
    ['note to self - rotate the webhook secret every quarter', 'Rotate the webhook secret every quarter.'],
    [
      'For future reference, the API gateway strips trailing slashes',
      'The API gateway strips trailing slashes.',
    ],
  ])('%j → %j', (text, content) => {
    expect(one(text)).toEqual({ kind: 'remember', content, private: false });
  });

  it('finds the note among other sentences and lines, and several notes in one prompt', () => {
    const text = [
      'Thanks! Remember that the API base path is /api. Now fix the failing test.',
      '- we decided to keep the monorepo',
      '',
      'Can you also check the logs?',
    ].join('\n');
    expect(phrasesIn(text)).toEqual([
      { kind: 'remember', content: 'The API base path is /api.', private: false },
      { kind: 'decision', content: 'We decided to keep the monorepo.', private: false },
    ]);
  });

  it('marks a note private when it says so, without the marker', () => {
    expect(one('privately remember that my local Postgres listens on 5433')).toEqual({
      kind: 'remember',
      content: 'My local Postgres listens on 5433.',
      private: true,
    });
    expect(one('remember (private): my scratch branch is alice/tmp-work')).toMatchObject({
      content: 'My scratch branch is alice/tmp-work.',
      private: true,
    });
    expect(one('remember that my editor config lives in ~/.config/nvim, just for me')).toMatchObject({
      content: 'My editor config lives in ~/.config/nvim.',
      private: true,
    });
  });
});

describe('phrasesIn: corrections', () => {
  it.each([
    ['No, use pnpm instead', 'Use pnpm.'],
    ['no, use vitest instead of jest', 'Use vitest instead of jest.'],
    ['Nope — use `/v2/orders` instead.', 'Use `/v2/orders`.'],
    [
      'no, use the v2 endpoint instead of the legacy v1 API',
      'Use the v2 endpoint instead of the legacy v1 API.',
    ],
    ['Actually, we use Postgres not MySQL', 'We use Postgres, not MySQL.'],
    ['actually we use tabs, not spaces', 'We use tabs, not spaces.'],
    ['no, prefer date-fns, not moment', 'Prefer date-fns, not moment.'],
    ["Don't use moment.js, use date-fns", 'Use date-fns, not moment.js.'],
    ['do not use npm; use pnpm instead', 'Use pnpm, not npm.'],
    ['No, never use any — use unknown', 'Use unknown, not any.'],
    ['stop using npm. Use pnpm instead.', 'Use pnpm, not npm.'],
    ["Don't use npm. Use pnpm.", 'Use pnpm, not npm.'],
    ['Wrong, use `make build` instead of `npm run build`', 'Use `make build` instead of `npm run build`.'],
  ])('%j → %j', (text, content) => {
    expect(one(text)).toEqual({ kind: 'correction', content, private: false });
  });
});

describe('phrasesIn: decisions', () => {
  it.each([
    ['We decided to store sessions in Redis.', 'We decided to store sessions in Redis.'],
    ['so we decided on a monorepo', 'We decided on a monorepo.'],
    ["We've decided against GraphQL for the public API", "We've decided against GraphQL for the public API."],
    ['The team decided that all timestamps are UTC', 'The team decided that all timestamps are UTC.'],
    ['Decision: all timestamps are UTC', 'Decision: all timestamps are UTC.'],
    ['decision - use UTC', 'Decision: use UTC.'],
    ["ok let's go with Fastify for the HTTP layer", "Let's go with Fastify for the HTTP layer."],
    ["We'll use BullMQ for background jobs", "We'll use BullMQ for background jobs."],
    ['going with pgvector over a separate vector DB', 'Going with pgvector over a separate vector DB.'],
    ["we're going with trunk-based development!", "We're going with trunk-based development."],
    ['We settled on Zod for validation', 'We settled on Zod for validation.'],
    [
      'we decided to use Redis for the queue because BullMQ needs it',
      'We decided to use Redis for the queue because BullMQ needs it.',
    ],
  ])('%j → %j', (text, content) => {
    expect(one(text)).toEqual({ kind: 'decision', content, private: false });
  });
});

describe('phrasesIn: what is not a memory', () => {
  it.each([
    // Questions and recollections.
    'do you remember how we fixed the flaky test?',
    'Remember when we broke prod?',
    'Can you remember that for later?',
    'remember that the tests are flaky?',
    'I remember that we used jest before',
    'Remember how the retry logic worked',
    'remember the good old days',
    'remember that',
    'remember that for later',
    'remember to fix it',
    'did we decide on the database?',
    // Decisions that only the conversation can resolve, or that are not the team's.
    'I decided to take a break',
    "we haven't decided yet",
    "let's go with that",
    "let's go with option 2",
    "Let's go with your approach",
    "we'll use this for now",
    "We'll use Redis for now",
    'going with the flow',
    'we chose the first one',
    "let's go with the plan",
    'we decided to go with that',
    'We decided to keep it',
    // Not corrections.
    "no, that's fine",
    'No.',
    'no, I meant the other file',
    'actually, never mind',
    "don't use that, use this",
    'No, use the other one instead',
    'use a map instead of a list here',
    'No, use the existing helper instead',
    'nope, use a for loop instead',
    'Remember, I asked you to fix the tests first',
    "remember that we're on the feature branch",
    'remember that you said the build was green',
    // Too little to keep.
    'remember: [REDACTED:github-token]',
    'note to self: ok',
    'Decision: that',
  ])('%j', (text) => {
    expect(phrasesIn(text)).toEqual([]);
  });

  it('ignores fenced and indented code, quotes, shell lines and code-looking lines', () => {
    const text = [
      'Here is the file:',
      '```ts',
      '// remember that this runs twice',
      'const decision = "we decided to use X";',
      '```',
      '~~~',
      'Remember that the cache is cold',
      '~~~',
      '    remember that indented code is code',
      '> Remember that the quoted mail said so',
      '$ echo "remember that shell lines are commands"',
      'const remember = true;',
      'import { remember } from "./memory";',
      '<div>We decided to use divs</div>',
    ].join('\n');
    expect(phrasesIn(text)).toEqual([]);
    expect(proseLines(text)).toEqual(['Here is the file:']);
  });

  it('skips a blob too long to be a note', () => {
    expect(phrasesIn(`remember that ${'the service does a thing '.repeat(30)}`)).toEqual([]);
  });

  it('strips list markers and headings before matching', () => {
    expect(matchSentence('We decided to ship on Fridays')).not.toBeNull();
    expect(phrasesIn('## Decision: ship on Fridays')).toEqual([
      { kind: 'decision', content: 'Decision: ship on Fridays.', private: false },
    ]);
    expect(phrasesIn('1. remember that deploys freeze on Fridays')).toHaveLength(1);
  });
});
