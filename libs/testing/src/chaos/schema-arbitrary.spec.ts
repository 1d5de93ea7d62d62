import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbitraryFor, type JsonSchema } from './schema-arbitrary';
import { acceptsString, acceptsType, mutateBody } from './schema-mutations';

const doc = {
  components: { schemas: { Slug: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,15}$' } } },
};
const body: JsonSchema = {
  type: 'object',
  properties: {
    content: { type: 'string', minLength: 1, maxLength: 40 },
    importance: { type: 'number', minimum: 0, maximum: 1 },
    id: { type: 'integer', minimum: 0, exclusiveMinimum: true },
    tags: {
      anyOf: [
        { type: 'string', maxLength: 20 },
        { type: 'array', items: { type: 'string' }, maxItems: 3 },
      ],
    },
    slug: { $ref: '#/components/schemas/Slug' },
    when: { type: 'string', format: 'date-time' },
    visibility: { type: 'string', enum: ['team', 'private'] },
    project: { type: 'string', nullable: true },
  },
  required: ['content', 'slug'],
};

describe('values generated from a JSON schema', () => {
  it('are accepted by the schema they came from', () => {
    fc.assert(
      fc.property(arbitraryFor(body, doc), (value) => {
        const v = value as Record<string, unknown>;
        expect(acceptsType(body, v, doc)).toBe(true);
        expect(typeof v.content === 'string' && v.content.length >= 1 && v.content.length <= 40).toBe(true);
        expect(acceptsString(doc.components.schemas.Slug, v.slug as string, doc)).toBe(true);
        if (v.importance !== undefined) expect(v.importance).toSatisfy((n: number) => n >= 0 && n <= 1);
        if (v.id !== undefined) expect(v.id).toSatisfy((n: number) => Number.isInteger(n) && n > 0);
        if (v.when !== undefined) expect(Number.isNaN(Date.parse(v.when as string))).toBe(false);
      }),
    );
  });
});

describe('hostile variants of a valid body', () => {
  const valid = { content: 'hello', slug: 'a', importance: 0.5 };
  const mutations = mutateBody(valid, body, doc, {
    random: () => 0.3,
    foreignIdentity: { user_id: 'someone-else' },
    ignoredIdentity: { created_by: 'someone-else' },
  });
  const kinds = (mustRefuse: boolean) =>
    new Set(mutations.filter((m) => m.mustRefuse === mustRefuse).map((m) => m.kind));

  it('cover every kind the input fuzz sends', () => {
    expect([...kinds(true)]).toEqual(
      expect.arrayContaining([
        'wrong type',
        'deep nesting',
        'huge string (1-5 MB)',
        'identity field',
        'NaN as a string',
        '__proto__ key',
        'NUL byte',
        'lone surrogate (escaped)',
        'lone surrogate (raw bytes)',
        'malformed JSON',
        'wrong content type',
      ]),
    );
    expect([...kinds(false)]).toEqual(
      expect.arrayContaining(['-0', 'ignored identity-like field', 'prototype key']),
    );
  });

  it('marks as refused only what breaks the schema or the documented input rules', () => {
    for (const m of mutations.filter((x) => x.kind === 'wrong type')) {
      const parsed = JSON.parse(m.body as string) as Record<string, unknown>;
      expect(acceptsType(body.properties![m.field!], parsed[m.field!], doc)).toBe(false);
    }
    const huge = mutations.find((m) => m.kind === 'huge string (1-5 MB)')!;
    expect((huge.body as string).length).toBeGreaterThan(1024 * 1024);
    const nested = mutations.find((m) => m.kind === 'deep nesting')!;
    expect(() => JSON.parse(nested.body as string)).not.toThrow();
    expect(mutations.find((m) => m.kind === 'huge number' && m.field === 'importance')?.mustRefuse).toBe(
      true,
    );
  });
});
