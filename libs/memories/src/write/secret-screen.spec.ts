import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretDetector } from '@app/secrets';
import type { NewMemory } from '../domain/memory';
import { categorySchema } from '../contracts/memory.schemas';
import { FORCED_PLACEHOLDER, REDACTED_CATEGORY, SecretScreen } from './secret-screen';

const screen = new SecretScreen(new SecretDetector());
const memory = (overrides: Partial<NewMemory>): NewMemory => ({
  content: 'plain',
  category: 'facts',
  tags: [],
  expandedKeywords: '',
  importance: 0.5,
  project: null,
  ...overrides,
});
const password = () => randomBytes(12).toString('base64url');

describe('SecretScreen', () => {
  it('keeps text without secrets exactly as written (no normalisation of the stored text)', () => {
    const content = 'Ｆｕｌｌ-width note\u200b with a zero-width space';
    const screened = screen.screenNew(memory({ content, tags: ['a', 'b'] }));
    expect(screened).toEqual({ value: memory({ content, tags: ['a', 'b'] }), secret: null, kinds: [] });
  });

  it('redacts a secret in the content and keeps the original for the secret store', () => {
    const content = `the prod db is postgres://admin:${password()}@db:5432/app`;
    const screened = screen.screenNew(memory({ content }));
    expect(screened.secret).toBe(content);
    expect(screened.value.content).toMatch(/^the prod db is .*\[REDACTED:[a-z0-9-]+\]/);
    expect(screened.kinds.length).toBeGreaterThan(0);
    // Idempotent: the redacted text holds nothing more to find.
    expect(screen.screenNew(screened.value)).toMatchObject({ secret: null, kinds: [] });
  });

  it('redacts secrets in tags, keywords, category and project without keeping them', () => {
    const token = `ghp_${randomBytes(27)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, 'x')
      .slice(0, 36)}`;
    const screened = screen.screenNew(
      memory({ tags: ['ok', token], expandedKeywords: `k ${token}`, project: token, category: 'facts' }),
    );
    expect(screened.secret).toBeNull();
    expect(screened.value.content).toBe('plain');
    expect(JSON.stringify(screened.value)).not.toContain(token);
    expect(screened.value.tags[0]).toBe('ok');
  });

  it('force_sensitive keeps all of the content as the secret', () => {
    const screened = screen.screenNew(memory({ content: 'the alarm code is 4471', forceSensitive: true }));
    expect(screened.value.content).toBe(FORCED_PLACEHOLDER);
    expect(screened.secret).toBe('the alarm code is 4471');
  });

  it('screens only the fields a patch carries', () => {
    const content = `new token: postgres://u:${password()}@h/db`;
    const screened = screen.screenPatch({ content, importance: 0.9 });
    expect(screened.value.importance).toBe(0.9);
    expect(screened.value.tags).toBeUndefined();
    expect(screened.secret).toBe(content);
  });

  it('keeps a category that held a secret a valid category', () => {
    const token = `ghp_${randomBytes(27)
      .toString('base64url')
      .replace(/[^A-Za-z0-9]/g, 'x')
      .slice(0, 36)}`;
    const screened = screen.screenNew(memory({ category: token.toLowerCase() }));
    expect(screened.value.category).toBe(REDACTED_CATEGORY);
    expect(categorySchema.safeParse(screened.value.category).success).toBe(true);
    expect(screened.kinds.length).toBeGreaterThan(0);
    expect(JSON.stringify(screened.value)).not.toContain(token.toLowerCase());
  });
});
