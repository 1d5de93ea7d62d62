import { randomBytes, randomInt } from 'node:crypto';
import { generateApiKey } from '@app/tenancy';

/**
 * Secret-shaped strings built at run time from random bytes and public prefixes. Nothing realistic
 * is committed: every value exists only in memory for the length of a run.
 */
export interface SecretSample {
  readonly kind: string;
  /** The sentence a user might store. */
  readonly text: string;
  /** The part that must not survive redaction. */
  readonly secret: string;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const URLSAFE = `${ALNUM}-_`;

export function randomFrom(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}
const b64url = (bytes: number): string => randomBytes(bytes).toString('base64url');
const pick = <T>(items: readonly T[]): T => items[randomInt(items.length)] as T;

const jwt = (): string =>
  [
    Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url'),
    Buffer.from(JSON.stringify({ sub: randomFrom(ALNUM, 10), iat: randomInt(1e9) })).toString('base64url'),
    b64url(32),
  ].join('.');

/** kind → [secret factory, sentence templates with {} for the secret]. */
const KINDS: Record<string, readonly [() => string, readonly string[]]> = {
  'aws-access-key-id': [
    () => `AKIA${randomFrom(BASE32, 16)}`,
    ['the deploy user key is {} for us-east-1', 'export AWS_ACCESS_KEY_ID={}'],
  ],
  'aws-secret-access-key': [
    () => randomFrom(`${ALNUM}/+`, 40),
    ['aws_secret_access_key = {}', 'AWS_SECRET_ACCESS_KEY="{}"'],
  ],
  'github-token': [
    () => `ghp_${randomFrom(ALNUM, 36)}`,
    ['use {} to push to the org repos', 'GITHUB_TOKEN={}'],
  ],
  'github-fine-grained': [
    () => `github_pat_${randomFrom(ALNUM, 22)}_${randomFrom(ALNUM, 59)}`,
    ['CI token: {}'],
  ],
  slack: [
    () => `xoxb-${randomFrom('0123456789', 12)}-${randomFrom('0123456789', 13)}-${randomFrom(ALNUM, 24)}`,
    ['slack bot token {} (workspace eng)'],
  ],
  openai: [
    () => `sk-${randomFrom(ALNUM, 20)}T3BlbkFJ${randomFrom(ALNUM, 20)}`,
    ['OPENAI_API_KEY={}', 'the openai key {} is billed to research'],
  ],
  anthropic: [() => `sk-ant-api03-${randomFrom(URLSAFE, 93)}AA`, ['ANTHROPIC_API_KEY={}']],
  stripe: [() => `sk_live_${randomFrom(ALNUM, 24)}`, ['stripe live key {} - do not share']],
  'google-api-key': [() => `AIza${randomFrom(URLSAFE, 35)}`, ['maps key: {}']],
  gitlab: [() => `glpat-${randomFrom(URLSAFE, 20)}`, ['gitlab PAT {} expires in May']],
  sendgrid: [() => `SG.${randomFrom(URLSAFE, 22)}.${randomFrom(URLSAFE, 43)}`, ['SENDGRID_API_KEY={}']],
  huggingface: [
    () => `hf_${randomFrom('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 34)}`,
    ['HF token {} for the model pulls'],
  ],
  jwt: [jwt, ['session cookie was {} when it failed', 'id_token: {}']],
  'bearer-token': [
    () => b64url(randomInt(24, 40)),
    ['curl -H "Authorization: Bearer {}" https://api.internal/v1', 'send Bearer {} in the header'],
  ],
  'generic-api-key': [
    () => randomFrom(ALNUM, randomInt(24, 40)),
    ['api_key = "{}"', 'client_secret: {}', 'SERVICE_TOKEN={}'],
  ],
  'prose-password': [
    () =>
      `${pick(['Summer', 'blue', 'Tr0ub4dor', 'kafka', 'Pa'])}${randomInt(10, 9999)}${pick(['!', '#', '-x', ''])}`,
    ['my password is {}', 'the staging admin password is {} btw', 'The wifi passcode is {}'],
  ],
  'database-url': [
    () => `${randomFrom(ALNUM, 8)}-${randomInt(10, 99)}`,
    [
      'the prod db is postgres://admin:{}@db:5432/app',
      'MONGO_URL=mongodb+srv://svc:{}@cluster0.mongodb.net/test',
      'redis://default:{}@cache:6379/0',
    ],
  ],
  'memory-service-key': [generateApiKey, ['my memory key is {}', 'MEMORY_API_KEY={}']],
  'private-key': [
    () =>
      `-----BEGIN RSA PRIVATE KEY-----\n${randomBytes(96).toString('base64')}\n${randomBytes(96).toString('base64')}\n-----END RSA PRIVATE KEY-----`,
    ['deploy key:\n{}\n'],
  ],
  'high-entropy-token': [
    () => randomBytes(randomInt(30, 48)).toString('base64'),
    ['the signing value is {} (rotated monthly)'],
  ],
};

export const SECRET_KINDS = Object.keys(KINDS);

export function generateSecretSamples(perKind: number): SecretSample[] {
  const samples: SecretSample[] = [];
  for (const [kind, [make, templates]] of Object.entries(KINDS)) {
    for (let i = 0; i < perKind; i++) {
      const secret = make();
      samples.push({ kind, secret, text: pick(templates).replace('{}', secret) });
    }
  }
  return samples;
}
