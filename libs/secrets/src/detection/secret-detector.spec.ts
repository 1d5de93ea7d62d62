import fc from 'fast-check';
import { lintSource } from '@secretlint/core';
import { creator as recommendPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { generateApiKey } from '@app/tenancy';
import { describe, expect, it } from 'vitest';
import { generateBenignSamples } from '../../eval/benign-samples';
import { generateSecretSamples, randomFrom } from '../../eval/secret-samples';
import { entropyFallbackLayer } from './entropy-fallback.layer';
import { shannonEntropy } from './entropy';
import { isLikelyDigest, isPlaceholder } from './false-positive-filters';
import { normalizeText } from './normalize-text';
import { patternRulesLayer } from './pattern-rules.layer';
import { SecretDetector } from './secret-detector';
import { secretlintLayer } from './secretlint.layer';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const detector = new SecretDetector();
const kinds = (text: string): string[] => detector.detect(text).map((f) => f.kind);

describe('normalizeText', () => {
  it('folds NFKC look-alikes and strips zero-width and bidi characters', () => {
    expect(normalizeText('ｇｈｐ＿abc')).toBe('ghp_abc');
    expect(normalizeText('AK\u200BIA\u202EX\u2066Y\uFEFF')).toBe('AKIAXY');
  });

  it('lets a key split by zero-width characters still be found', () => {
    const key = `ghp_${randomFrom(ALNUM, 36)}`;
    const hidden = `${key.slice(0, 10)}\u200B\u200D${key.slice(10)}`;
    expect(detector.redact(`token ${hidden}`).text).toBe('token [REDACTED:github]');
  });
});

describe('secretlint layer', () => {
  it('reports AWS access key ids (enabled) and the same ranges as @secretlint/core', async () => {
    const text = `id AKIA${randomFrom('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)} and ghp_${randomFrom(ALNUM, 36)} and xoxb-${randomFrom('0123456789', 12)}-${randomFrom('0123456789', 13)}-${randomFrom(ALNUM, 24)}`;
    const ours = secretlintLayer(text).map((f) => [f.start, f.end]);
    const core = await lintSource({
      source: { content: text, filePath: '/memory.txt', contentType: 'text' },
      options: {
        config: {
          rules: [
            {
              id: '@secretlint/secretlint-rule-preset-recommend',
              rule: recommendPreset,
              rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
            },
          ],
        },
      },
    });
    const expected = core.messages.map((m) => [m.range[0], m.range[1]]);
    expect(ours.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0))).toEqual(
      expected.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0)),
    );
    expect(
      secretlintLayer(text)
        .map((f) => f.kind)
        .sort(),
    ).toEqual(['aws', 'github', 'slack']);
  });
});

describe('pattern rules layer', () => {
  it('finds JWTs, Bearer tokens and well-formed msk_ keys', () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${randomFrom(ALNUM, 43)}`;
    expect(patternRulesLayer(`cookie ${jwt}`).map((f) => f.kind)).toContain('jwt');
    expect(patternRulesLayer(`Authorization: Bearer ${randomFrom(ALNUM, 32)}`).map((f) => f.kind)).toEqual([
      'bearer-token',
    ]);
    const key = generateApiKey();
    expect(patternRulesLayer(`key ${key}`)).toEqual([
      { kind: 'memory-service-key', start: 4, end: 4 + key.length },
    ]);
    const broken = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`; // bad checksum
    expect(patternRulesLayer(`key ${broken}`)).toEqual([]);
  });

  it('flags key=value only above the entropy bar and never for references or placeholders', () => {
    expect(patternRulesLayer(`api_key = "${randomFrom(ALNUM, 32)}"`).map((f) => f.kind)).toEqual([
      'generic-secret',
    ]);
    expect(patternRulesLayer('api_key = "aaaaaaaaaaaa"')).toEqual([]);
    expect(patternRulesLayer('api_key = "your-api-key"')).toEqual([]);
    expect(patternRulesLayer('token: ${GITHUB_TOKEN}')).toEqual([]);
    expect(patternRulesLayer('secret = process.env.SECRET_VALUE')).toEqual([]);
    expect(patternRulesLayer('password=S3cr3t-pa55').map((f) => f.kind)).toEqual(['password']);
  });

  it('finds prose passwords but not prose about passwords', () => {
    expect(detector.redact('my password is hunter42!').text).toBe('my password is [REDACTED:password]!');
    expect(kinds('the password is stored in Vault')).toEqual([]);
    expect(kinds('the token is expired')).toEqual([]);
  });

  it('redacts the password of a database URL (secretlint takes the whole URL when it matches first)', () => {
    expect(patternRulesLayer('postgres://admin:S3cr3t-pa55@db:5432/app')).toEqual([
      { kind: 'database-password', start: 17, end: 28 },
    ]);
    const redacted = detector.redact('the prod db is postgres://admin:S3cr3t-pa55@db:5432/app').text;
    expect(redacted).not.toContain('S3cr3t-pa55');
    expect(redacted).toMatch(/^the prod db is .*\[REDACTED:database-[a-z-]+\]/);
    expect(kinds('DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app')).toEqual([]);
  });
});

describe('entropy fallback layer', () => {
  it('flags long random base64 and non-digest hex, not UUIDs, digests or words', () => {
    // Fixed samples: a random draw can, now and then, fall below the entropy thresholds.
    const base64 = Buffer.from('q8Vd2LmX7rT0bKz4Wn9PjS1cYh6GfUe3Ra5Ix0Mo').toString('base64');
    expect(entropyFallbackLayer(`value ${base64} end`).map((f) => f.kind)).toEqual(['high-entropy-string']);
    expect(
      entropyFallbackLayer('value 9f3a7c1e5b2d8046af19e3c7d5b0264e8a1f3c9d7b5e2a04').map((f) => f.kind),
    ).toEqual(['high-entropy-hex']);
    expect(entropyFallbackLayer('id 0b6d2f1e-8c3a-4f7b-9e2d-5a1c3b4d6e7f')).toEqual([]);
    expect(entropyFallbackLayer(`commit ${randomFrom('0123456789abcdef', 40)}`)).toEqual([]);
    expect(entropyFallbackLayer('internationalization-and-localization')).toEqual([]);
  });

  it('leaves file paths alone, also with one random segment, but not a secret split at slashes', () => {
    expect(entropyFallbackLayer('edited /tmp/memory-hooks-gnRnq1/repo/CHANGELOG.md')).toEqual([]);
    expect(entropyFallbackLayer('see /home/ci/build-Xy9Kq2/src/README.md')).toEqual([]);
    expect(entropyFallbackLayer('key aB3dE5/gH7jK9mN1pQ3/rS5tU7vW9xY1zA3bC5').map((f) => f.kind)).toEqual([
      'high-entropy-string',
    ]);
  });

  it('uses Shannon entropy in bits per character', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
    expect(isLikelyDigest('a'.repeat(40))).toBe(true);
    expect(isPlaceholder('AKIAIOSFODNN7EXAMPLE')).toBe(true);
  });
});

describe('SecretDetector', () => {
  it('detects every generated secret kind and leaves benign samples alone', () => {
    for (const sample of generateSecretSamples(3))
      expect(detector.redact(sample.text).text, sample.kind).not.toContain(sample.secret);
    for (const sample of generateBenignSamples(5))
      expect(detector.detect(sample.text), sample.text).toEqual([]);
  });

  it('returns sorted, non-overlapping findings on the normalised text', () => {
    const text = `a ghp_${randomFrom(ALNUM, 36)} b api_key=${randomFrom(ALNUM, 30)}`;
    const findings = detector.detect(text);
    for (let i = 1; i < findings.length; i++)
      expect(findings[i]?.start).toBeGreaterThanOrEqual(findings[i - 1]?.end ?? 0);
    for (const f of findings) expect(normalizeText(text).slice(f.start, f.end)).not.toMatch(/^\s|\s$/);
  });

  it('redaction is idempotent and placeholders are never detected again', () => {
    const secrets = generateSecretSamples(2).map((s) => s.text);
    const benign = generateBenignSamples(2).map((s) => s.text);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...secrets, ...benign, ' ', '\n', '[REDACTED:jwt]', 'password is '), {
          maxLength: 8,
        }),
        (parts) => {
          const once = detector.redact(parts.join(' '));
          const twice = detector.redact(once.text);
          expect(twice.text).toBe(once.text);
          expect(twice.findings).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('takes well under a millisecond for a typical memory', () => {
    const text = `Deploy notes: run the migration, then restart workers. Token ghp_${randomFrom(ALNUM, 36)} lives in CI. ${'Context about the service and its queues. '.repeat(5)}`;
    for (let i = 0; i < 50; i++) detector.redact(text);
    const started = performance.now();
    for (let i = 0; i < 500; i++) detector.redact(text);
    expect((performance.now() - started) / 500).toBeLessThan(1);
  });
});
