import { shannonEntropy } from './entropy';
import { isBenignValue, isLikelyDigest } from './false-positive-filters';
import type { DetectionLayer, SecretFinding } from './finding';

export const BASE64_MIN_ENTROPY = 4.5;
export const HEX_MIN_ENTROPY = 3.0;
export const MIN_TOKEN_LENGTH = 20;

/** Standalone runs of base64/base64url/hex characters, not glued to other word characters. */
const TOKEN = /(?<![A-Za-z0-9+/=_.-])[A-Za-z0-9+/_=.-]{20,}(?![A-Za-z0-9+/=_.-])/g;
const HEX = /^[0-9a-fA-F]+$/;

/**
 * Last resort for secrets nobody wrote a rule for. Thresholds follow truffleHog: base64-ish tokens
 * need ≥ 4.5 bits/char (so in practice ≥ ~28 chars), hex ≥ 3.0. Digest-length hex, UUIDs, env
 * references, placeholders and paths/dotted names are not reported.
 */
export const entropyFallbackLayer: DetectionLayer = (text) => {
  const found: SecretFinding[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const token = m[0].replace(/[.=-]+$/, '').replace(/^[.-]+/, '');
    if (token.length < MIN_TOKEN_LENGTH || isBenignValue(token) || looksLikePathOrName(token)) continue;
    const offset = m.index + m[0].indexOf(token);
    if (HEX.test(token)) {
      if (!isLikelyDigest(token.toLowerCase()) && shannonEntropy(token) >= HEX_MIN_ENTROPY) {
        found.push({ kind: 'high-entropy-hex', start: offset, end: offset + token.length });
      }
    } else if (/\d/.test(token) && /[A-Za-z]/.test(token) && shannonEntropy(token) >= BASE64_MIN_ENTROPY) {
      found.push({ kind: 'high-entropy-string', start: offset, end: offset + token.length });
    }
  }
  return found;
};

const WORD = /^(?:[A-Za-z][a-z]*\d{0,2}|[A-Z][A-Z]*\d{0,2}|\d{1,4})$/;
/** A path's one odd segment, such as a temporary directory's random suffix (`tmp-gnRnq1`). */
const SHORT_SEGMENT = /^[A-Za-z0-9]{1,8}$/;

/**
 * `src/app/main.ts`, `com.example.Service`, `some-long-kebab-name`, `/tmp/run-gnRnq1/CHANGELOG.md`:
 * words joined by separators. A path of four or more parts may hold one short odd segment; a
 * secret split at its `/` characters leaves mostly odd parts.
 */
function looksLikePathOrName(token: string): boolean {
  const parts = token.split(/[/._-]/).filter(Boolean);
  if (parts.length < 3) return false;
  const odd = parts.filter((p) => !WORD.test(p));
  if (odd.length === 0) return true;
  return token.includes('/') && parts.length >= 4 && odd.length === 1 && SHORT_SEGMENT.test(odd[0]);
}
