import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import fc from 'fast-check';
import { type TenantScope } from '@app/persistence';
import { TextIndexFeedRepository } from '@app/recall/testing';
import { createTestTenant, openTestDatabase, type TestDatabase } from '@app/testing';
import { LexemeCache, queryChunks } from '../src/domain/query-lexemes';

/**
 * A query is tokenised in the process by chunks (the pieces between spaces): the lexemes the
 * process's cache gives, learnt chunk by chunk from `recall_index_refresh`'s `words`, are exactly
 * `to_tsvector('english', …)`'s of the whole text, in the byte order the refresh returns them in.
 * Texts are drawn from words, punctuation, digits, versions, hyphens, paths, e-mail, URLs, other
 * scripts and markup, glued or spaced at random.
 */
const PIECES = [
  'deploy',
  'Deploying',
  'ROLLBACKS',
  'the',
  'and',
  'a',
  'I',
  'cats',
  "don't",
  ' ',
  ' ',
  ' ',
  ' ',
  '  ',
  '\t',
  '\n',
  '.',
  ',',
  '!',
  '?',
  ';',
  ':',
  '(',
  ')',
  '"',
  "'",
  '...',
  '..',
  '.',
  '~',
  '~/x',
  './x',
  '../x',
  '.hidden',
  '&',
  '1e5',
  '-.5',
  '-',
  '--',
  '1',
  '42',
  '2.0',
  'v1.2.3',
  '-7',
  '3.14',
  'é',
  'café',
  'Ünïcode',
  '日本語',
  '😀',
  '/',
  '_',
  '@',
  'x.y',
  'U.S.',
  'blue-green',
  'payments-api',
  'me@example.com',
  'https://ex.com/a?b=1',
  '/etc/hosts',
  'C:\\tmp',
  'foo.ts',
  '&amp;',
  '<',
  '>',
  '<b>',
  '</b>',
  '<a href="x y">',
  '#',
  '+',
  '=',
];

describe('query chunks against Postgres', () => {
  let db: TestDatabase;
  let scope: TenantScope;
  const feed = new TextIndexFeedRepository();

  beforeAll(async () => {
    db = await openTestDatabase(inject('databaseUrl'), 2);
    scope = await (await createTestTenant(db, 'lexemes')).addUser('alice');
  });
  afterAll(async () => db?.close());

  it("gives to_tsvector's lexemes of the whole text, in byte order, from its chunks' own", async () => {
    let chunked = 0;
    let whole = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...PIECES), { maxLength: 16 }).map((p) => p.join('')),
        async (text) => {
          const chunks = queryChunks(text);
          const refresh = await db.tx.inTenant(scope, (tx) => feed.refresh(tx, 0, text, chunks ?? []));
          if (chunks === null) {
            whole += 1;
            return;
          }
          chunked += 1;
          const cache = new LexemeCache();
          expect(cache.lookup(text)).toEqual(
            chunks.length === 0 ? { lexemes: [] } : { ask: [...new Set(chunks)] },
          );
          cache.learn(chunks, refresh.words);
          expect(cache.lookup(text)).toEqual({ lexemes: refresh.lexemes });
        },
      ),
      { numRuns: 500 },
    );
    expect(chunked).toBeGreaterThan(200);
    expect(whole).toBeGreaterThan(20);
  });

  it('keeps the space before a chunk, where a path cannot begin with a dot or a tilde', async () => {
    const text = '.. ../x ~/y';
    const chunks = queryChunks(text) ?? [];
    const refresh = await db.tx.inTenant(scope, (tx) => feed.refresh(tx, 0, text, chunks));
    const cache = new LexemeCache();
    cache.learn(chunks, refresh.words);
    expect(refresh.lexemes).toEqual(['..', '/x', '/y']);
    expect(cache.lookup(text)).toEqual({ lexemes: refresh.lexemes });
  });

  it('leaves markup, a token that spans spaces, to Postgres', () => {
    expect(queryChunks('<a href="x y">deploy</a>')).toBeNull();
    expect(queryChunks(' How do we deploy\tpayments-api?\n')).toEqual([
      'How',
      'do',
      'we',
      'deploy',
      'payments-api?',
    ]);
    expect(queryChunks('../x and  ~/y .. ..')).toEqual(['../x', 'and', ' ~/y', ' ..', ' ..']);
    expect(queryChunks(' ../x')).toEqual([' ../x']);
  });
});
