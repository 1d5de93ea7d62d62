import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';

/** Text that must not be redacted: code, ids, hashes, prose, config that only references secrets. */
export interface BenignSample {
  readonly kind: string;
  readonly text: string;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const sha = (algo: string): string => createHash(algo).update(randomBytes(16)).digest('hex');
const pick = <T>(items: readonly T[]): T => items[randomInt(items.length)] as T;

const GENERATORS: Record<string, () => string> = {
  uuid: () =>
    pick([`request ${randomUUID()} timed out`, `memory id ${randomUUID()}`, `tenant_id: ${randomUUID()}`]),
  'git-sha': () =>
    pick([
      `fixed in commit ${sha('sha1')}`,
      `git checkout ${sha('sha1').slice(0, 12)}`,
      `merge ${sha('sha1')} into main`,
    ]),
  digest: () =>
    pick([`sha256: ${sha('sha256')}`, `image digest sha256:${sha('sha256')}`, `md5 ${sha('md5')} matches`]),
  code: () =>
    pick([
      'const token = await getToken(userId);',
      'if (password.length < 12) throw new Error("password too short");',
      'export function createApiKey(scope: Scope): Promise<ApiKey> { return repo.insert(scope); }',
      'SELECT id, content FROM memories WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY id',
      'apiKey: process.env.OPENAI_API_KEY,',
      'const secret = config.get<string>("jwt.secret");',
      `npm install @nestjs/core@11.2.${randomInt(10)} --save-exact`,
      'import { SecretDetector } from "@app/secrets/detection/secret-detector";',
      'docker run -p 5432:5432 -e POSTGRES_PASSWORD=${POSTGRES_PASSWORD} pgvector/pgvector:pg16',
      'password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())',
    ]),
  config: () =>
    pick([
      'DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app',
      'api_key = "your-api-key"',
      'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'token: <YOUR_TOKEN>',
      'password: changeme',
      'SECRET_KEY={{ vault_secret_key }}',
      `LOG_LEVEL=info\nPORT=${randomInt(3000, 9000)}\nQUEUE_PREFIX=memsvc`,
      'redis://cache:6379/0',
      'postgres://localhost:5432/app_test',
      'Authorization: Bearer <token>',
      'client_secret: ${CLIENT_SECRET}',
    ]),
  prose: () =>
    pick([
      'The password is stored in Vault, never in the repo.',
      'Remember to rotate the token every 90 days; the password is required for sudo.',
      'We decided to use pgvector with HNSW indexes for recall above 10k rows.',
      'The API key was revoked yesterday after the incident review.',
      'Kubernetes service account tokens rotate automatically, so read the file on each login.',
      'User prefers tabs over spaces and runs tests with vitest in watch mode.',
      'My password is not something I will write down here.',
      'The deploy takes about 4 minutes; staging uses the same Helm chart as production.',
    ]),
  paths: () =>
    pick([
      'see libs/memories/src/application/create-memory.use-case.ts line 42',
      'https://github.com/org/repo/blob/main/docs/architecture-overview.md',
      'com.example.payments.service.PaymentProcessorImpl',
      `artifact build-${hex(4)}-linux-x64.tar.gz`,
      'node_modules/@secretlint/secretlint-rule-preset-recommend/module/index.js',
    ]),
  numbers: () =>
    pick([
      `order ${randomInt(1e9)} shipped`,
      `timestamp ${Date.now()}`,
      `version 1.${randomInt(99)}.${randomInt(99)}`,
    ]),
};

export const BENIGN_KINDS = Object.keys(GENERATORS);

export function generateBenignSamples(perKind: number): BenignSample[] {
  return Object.entries(GENERATORS).flatMap(([kind, make]) =>
    Array.from({ length: perKind }, () => ({ kind, text: make() })),
  );
}
