import { describe, expect, it } from 'vitest';
import type { DetectionLayer } from './finding';
import { RecalledTextScreen } from './recalled-text-screen';
import { SecretDetector } from './secret-detector';

/** A provider's key format that today's rules do not know: the rule "added later". */
const ACME_KEY = /\bacme_live_[a-z0-9]{16}\b/g;
const acmeRule: DetectionLayer = (text) =>
  [...text.matchAll(ACME_KEY)].map((m) => ({ kind: 'acme', start: m.index, end: m.index + m[0].length }));

const stored = 'Staging deploys use acme_live_k3j9x0q2m8v7w1z5 (rotate it in March)';

describe('RecalledTextScreen', () => {
  it('redacts, on read, a secret of a rule added after the memory was stored', () => {
    // Written under the rules of its day: nothing found, so the row holds the key.
    expect(new SecretDetector().detect(stored)).toEqual([]);
    const screen = new RecalledTextScreen(new SecretDetector([acmeRule]));
    expect(screen.text(stored)).toBe('Staging deploys use [REDACTED:acme] (rotate it in March)');
  });

  it('screens with the shipped rules as well', () => {
    const screen = new RecalledTextScreen(new SecretDetector());
    expect(screen.text('db: postgres://app:Xk9-vR2q-Lm7z@db.internal/app')).toBe(
      'db: [REDACTED:database-connection-string]',
    );
  });

  it('returns text without findings unchanged, not normalised', () => {
    const screen = new RecalledTextScreen(new SecretDetector([acmeRule]));
    const text = 'Ｆｕｌｌ-width note with a zero\u200bwidth space';
    expect(screen.text(text)).toBe(text);
    expect(screen.text('')).toBe('');
  });

  it('screens an item’s content and the other fields it is told of, and nothing else', () => {
    const screen = new RecalledTextScreen(new SecretDetector([acmeRule]));
    const item = {
      id: 1,
      content: stored,
      expanded_keywords: stored,
      category: 'acme_live_k3j9x0q2m8v7w1z5',
    };
    expect(screen.item(item, ['expanded_keywords'])).toEqual({
      id: 1,
      content: 'Staging deploys use [REDACTED:acme] (rotate it in March)',
      expanded_keywords: 'Staging deploys use [REDACTED:acme] (rotate it in March)',
      category: 'acme_live_k3j9x0q2m8v7w1z5',
    });
    expect(item.content).toBe(stored);
  });
});
