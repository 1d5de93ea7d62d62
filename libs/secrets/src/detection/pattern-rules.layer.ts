import { API_KEY_PATTERN, isWellFormedApiKey } from '@app/tenancy';
import { shannonEntropy } from './entropy';
import { isBenignValue } from './false-positive-filters';
import type { DetectionLayer, SecretFinding } from './finding';

/** Entropy a generic `key = value` must reach (bits/char), per the design. */
export const GENERIC_MIN_ENTROPY = 3.5;
/** Passwords are chosen by people and score lower (`S3cr3t-pa55` ≈ 2.9), so they get their own bar. */
export const PASSWORD_MIN_ENTROPY = 2.5;

const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g;
const BEARER = /\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)/gi;
const ASSIGNMENT =
  /([A-Za-z0-9_.-]*?(api[_-]?key|apikey|access[_-]?key|client[_-]?secret|secret|token|passw(?:or)?d|pwd|passphrase|credentials?|private[_-]?key)[A-Za-z0-9_.-]*)["']?\s*(?:=|:=|=>|:)\s*(["'`]?)([^\s"'`,;)}\]]{6,})\3/gi;
const PROSE =
  /\b(password|passphrase|passcode|pass code|pin|api key|secret key|access key|token|secret)\s+(?:is|was|=|:)\s*[:"'`]?\s*([^\s"'`]{4,})/gi;
const DATABASE_URL =
  /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|oracle)(?:\+[a-z0-9]+)?:\/\/[^:/?#\s@]*:([^@\s/]+)@/gi;
/** Well-known provider prefixes secretlint's recommend preset does not cover. */
const PREFIXED: ReadonlyArray<readonly [string, RegExp]> = [
  ['stripe', /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,99}\b/g],
  ['google-api-key', /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g],
  ['gitlab', /\bglpat-[0-9A-Za-z_-]{20}(?![0-9A-Za-z_-])/g],
  ['huggingface', /\bhf_[A-Za-z]{34}\b/g],
  ['pypi', /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g],
  ['npm', /\bnpm_[A-Za-z0-9]{36}\b/g],
  ['twilio', /\bSK[0-9a-f]{32}\b/g],
  ['digitalocean', /\bdo[opr]_v1_[a-f0-9]{64}\b/g],
];
const COMMON_WORDS =
  /^(?:required|missing|invalid|expired|wrong|incorrect|correct|empty|set|unset|stored|saved|hidden|rotated|changed|reset|the|not|in|on|at|a|an|too|being|valid|needed|secure|strong|weak)$/i;

/** JWTs, `Bearer` tokens, key=value credentials, prose passwords, database URLs, provider prefixes, msk_ keys. */
export const patternRulesLayer: DetectionLayer = (text) => {
  const found: SecretFinding[] = [];
  const add = (kind: string, start: number, end: number): void => void found.push({ kind, start, end });

  for (const m of text.matchAll(JWT)) add('jwt', m.index, m.index + m[0].length);
  for (const m of text.matchAll(BEARER)) {
    const token = m[1] ?? '';
    if (!isBenignValue(token) && shannonEntropy(token) >= 3)
      add('bearer-token', m.index + m[0].length - token.length, m.index + m[0].length);
  }
  for (const m of text.matchAll(ASSIGNMENT)) {
    const value = trimTrailing(m[4] ?? '');
    const isPassword = /pass|pwd/i.test(m[2] ?? '');
    if (value.length < 6 || isBenignValue(value) || /^\d+$/.test(value) || looksLikeCode(value)) continue;
    if (shannonEntropy(value) < (isPassword ? PASSWORD_MIN_ENTROPY : GENERIC_MIN_ENTROPY)) continue;
    const start = m.index + m[0].length - (m[3] ?? '').length - (m[4] ?? '').length;
    add(isPassword ? 'password' : 'generic-secret', start, start + value.length);
  }
  for (const m of text.matchAll(PROSE)) {
    const value = trimTrailing(m[2] ?? '');
    if (value.length < 4 || COMMON_WORDS.test(value) || isBenignValue(value) || !looksChosen(value)) continue;
    const start = m.index + m[0].lastIndexOf(m[2] ?? '');
    add('password', start, start + value.length);
  }
  for (const m of text.matchAll(DATABASE_URL)) {
    const password = m[1] ?? '';
    if (isBenignValue(password)) continue;
    const end = m.index + m[0].length - 1; // before the '@'
    add('database-password', end - password.length, end);
  }
  for (const [kind, pattern] of PREFIXED)
    for (const m of text.matchAll(pattern)) add(kind, m.index, m.index + m[0].length);
  for (const m of text.matchAll(new RegExp(API_KEY_PATTERN.source, 'g'))) {
    if (isWellFormedApiKey(m[0])) add('memory-service-key', m.index, m.index + m[0].length);
  }
  return found;
};

/** `bcrypt.hashpw(…)`, `config.jwtSecret`, `getToken(`: an expression, not a literal. */
function looksLikeCode(value: string): boolean {
  return value.includes('(') || /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value);
}

/** Sentence punctuation after a value is not part of it. */
function trimTrailing(value: string): string {
  return value.replace(/[.,;:!?)\]}>]+$/, '');
}

/** People-chosen secrets mix character classes; plain words ("stored", "rotated") do not. */
function looksChosen(value: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  return classes >= 2 && !/^[A-Z][a-z]+$/.test(value);
}
