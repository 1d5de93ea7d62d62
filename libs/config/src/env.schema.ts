import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { readJson } from './json-variable';
import { oauthConsoleClientSecretsJson, oauthIssuersJson, oauthResource } from './oauth.schema';

/** Variables whose values must never appear in logs or error messages. */
export const SENSITIVE_ENV_KEYS = [
  'DATABASE_URL',
  'DATABASE_REPLICA_URLS',
  'REDIS_URL',
  'API_KEYS',
  'API_KEY',
  'ADMIN_API_KEY',
  'SYNC_CURSOR_SECRET',
  'VAULT_TOKEN',
  'VAULT_SECRET_ID',
  'MEMORY_ENCRYPTION_KEY',
  'EXTRACTOR_LLM_API_KEY',
  'METRICS_TOKEN',
  'OAUTH_CONSOLE_CLIENT_SECRETS',
] as const;

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const int = (def: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(def);

/** An integer that may be left unset (or empty): undefined then, for a default decided elsewhere. */
const optionalInt = (min: number, max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce.number().int().min(min).max(max).optional(),
  );

const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(def ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

const apiKeysJson = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === '') return {} as Record<string, string>;
    const parsed = readJson(raw, ctx, 'a JSON object such as {"alice":"key-a","bob":"key-b"}');
    if (parsed === z.NEVER) return z.NEVER;
    const shape = z.record(
      z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, 'user names are 1-64 letters, digits, . _ @ -'),
      z.string().min(1, 'keys must not be empty').max(512),
    );
    const result = shape.safeParse(parsed);
    if (!result.success) {
      ctx.addIssue({ code: 'custom', message: result.error.issues.map((i) => i.message).join('; ') });
      return z.NEVER;
    }
    return result.data;
  });

/** A comma-separated list ("a, b"); empty entries dropped. */
const commaList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );

/** Networks as CIDR ranges or single addresses ("10.0.0.0/8, 192.168.1.20, fd00::/8"), validated. */
const networkList = commaList.transform((values, ctx) =>
  values.map((value) => {
    const cidr = value.includes('/')
      ? value
      : `${value}/${ipaddr.isValid(value) && ipaddr.parse(value).kind() === 'ipv6' ? 128 : 32}`;
    try {
      ipaddr.parseCIDR(cidr);
      return cidr;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: `"${value}" is not a network such as 10.0.0.0/8 or an address`,
      });
      return value;
    }
  }),
);

/** Browser origins such as https://app.example.com, normalised to scheme://host[:port]. */
const originList = commaList.transform((values, ctx) =>
  values.map((value) => {
    try {
      const origin = new URL(value).origin;
      if (origin !== 'null') return origin;
    } catch {
      /* reported below */
    }
    ctx.addIssue({ code: 'custom', message: `"${value}" is not an origin such as https://app.example.com` });
    return value;
  }),
);

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: int(8080, 0, 65535),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` lines, or short `pretty` lines for a terminal; unset → pretty on a terminal unless NODE_ENV=production. */
  LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  /** The API's /metrics on its own port (0: on PORT with everything else). */
  METRICS_PORT: int(0, 0, 65535),
  /** When set, /metrics (API and worker) answers only `Authorization: Bearer <token>`. */
  METRICS_TOKEN: optionalString.refine((v) => v === undefined || v.length >= 16, {
    message: 'must be at least 16 characters',
  }),
  /** Git commit of the build, shown by /version and memsvc_build_info (else the one recorded at build time). */
  BUILD_COMMIT: optionalString,
  DATABASE_URL: optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
    message: 'must start with postgres:// or postgresql://',
  }),
  DATABASE_POOL_SIZE: int(10, 1, 200),
  DATABASE_APP_ROLE: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
    .default('memory_app'),
  DATABASE_STATEMENT_TIMEOUT_MS: int(15_000, 100, 600_000),
  /** Streaming replicas (hot standbys) of DATABASE_URL's primary, comma-separated; reads go to them. */
  DATABASE_REPLICA_URLS: commaList.refine((urls) => urls.every((u) => /^postgres(ql)?:\/\//.test(u)), {
    message: 'every entry must start with postgres:// or postgresql://',
  }),
  /** A replica further behind the primary than this is out of rotation until it catches up. */
  REPLICA_MAX_LAG_MS: int(5_000, 100, 600_000),
  /** A read that must see a newer write than a replica has replayed waits this long, then goes to the primary. */
  REPLICA_MAX_WAIT_MS: int(250, 0, 10_000),
  RUN_MIGRATIONS: bool(true),
  REDIS_URL: optionalString.refine((v) => v === undefined || /^rediss?:\/\//.test(v), {
    message: 'must start with redis:// or rediss://',
  }),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('memsvc'),
  DATA_DIR: z.string().default('./data'),
  API_KEYS: apiKeysJson,
  /** This service's canonical URL: the audience of the access tokens it accepts (oauth.schema.ts). */
  OAUTH_RESOURCE: oauthResource,
  /** Identity providers whose access tokens are accepted beside API keys (oauth.schema.ts). */
  OAUTH_ISSUERS: oauthIssuersJson,
  /** The console clients' secrets by issuer (oauth.schema.ts); sensitive. */
  OAUTH_CONSOLE_CLIENT_SECRETS: oauthConsoleClientSecretsJson,
  /** A console sign-in session ends after this many minutes without a request. */
  CONSOLE_SESSION_IDLE_MINUTES: int(60, 1, 10_080),
  /** A console sign-in session ends this many hours after sign-in, however active. */
  CONSOLE_SESSION_MAX_HOURS: int(12, 1, 720),
  API_KEY: optionalString,
  ADMIN_API_KEY: optionalString,
  /** After `keys rotate`, how long the old key keeps working (0: it stops at once). */
  KEY_ROTATION_GRACE_SECONDS: int(86_400, 0, 31_536_000),
  /** Audit rows older than this many days are deleted by the worker (0: kept forever). */
  AUDIT_RETENTION_DAYS: int(90, 0, 36_500),
  /** Who reads a memory stored without `visibility`: the whole team (`team`) or its writer (`private`). */
  DEFAULT_VISIBILITY: z.enum(['team', 'private']).default('team'),
  /**
   * Lifetimes per category, e.g. `scratch=7d,standup=36h`: a memory of that category stored without
   * `expires_at` expires after it (units s, m, h, d).
   */
  MEMORY_TTL_BY_CATEGORY: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const ttl: Record<string, number> = {};
      for (const entry of (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const match = /^([a-z0-9][a-z0-9_.-]{0,63})=(\d+)([smhd])$/.exec(entry);
        if (!match) {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is not category=<number><s|m|h|d>` });
          continue;
        }
        const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[3] as 's' | 'm' | 'h' | 'd'];
        ttl[match[1]] = Number(match[2]) * unit;
      }
      return ttl;
    }),
  DEFAULT_TENANT: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/)
    .default('default'),
  BODY_LIMIT_BYTES: int(1_048_576, 1024, 64 * 1_048_576),
  REQUEST_TIMEOUT_MS: int(30_000, 1000, 600_000),
  MAX_CONTENT_BYTES: int(16_384, 256, 1_048_576),
  MAX_IMPORT_BATCH: int(500, 1, 10_000),
  /** A transcript uploaded to POST /api/import/claude-code (streamed, so not bound by BODY_LIMIT_BYTES). */
  TRANSCRIPT_IMPORT_MAX_BYTES: int(64 * 1_048_576, 1024, 1_073_741_824),
  MAX_LIST_LIMIT: int(10_000, 1, 100_000),
  /** Requests per key and minute of each budget below that is not set (0 = unlimited). */
  RATE_LIMIT_PER_MINUTE: int(600, 0, 1_000_000),
  /** Budget of routes and MCP tools that change data (memories:write, sessions:write). */
  RATE_LIMIT_WRITES_PER_MINUTE: optionalInt(0, 1_000_000),
  /** Budget of routes and MCP tools that only read (recall, list, get, sync, export, …). */
  RATE_LIMIT_READS_PER_MINUTE: optionalInt(0, 1_000_000),
  /** Budget of admin routes (users, keys, settings, reindex, secret migration). */
  RATE_LIMIT_ADMIN_PER_MINUTE: optionalInt(0, 1_000_000),
  /** Budget of session event ingest (`POST /api/sessions/:id/events`, the session_note tool). */
  RATE_LIMIT_EVENTS_PER_MINUTE: optionalInt(0, 1_000_000),
  /** Live memories per tenant (0 = unlimited); a tenant's `max_memories` overrides it. */
  QUOTA_MAX_MEMORIES: int(0, 0, 1_000_000_000),
  /** Bytes of live memory content (UTF-8) per tenant (0 = unlimited); `max_memory_bytes` overrides it. */
  QUOTA_MAX_MEMORY_BYTES: int(0, 0, Number.MAX_SAFE_INTEGER),
  /** Sessions a tenant may start per UTC day (0 = unlimited); `max_sessions_per_day` overrides it. */
  QUOTA_MAX_SESSIONS_PER_DAY: int(0, 0, 1_000_000_000),
  TRUST_PROXY: bool(false),
  OUTBOX_POLL_INTERVAL_MS: int(1000, 10, 60_000),
  OUTBOX_BATCH_SIZE: int(100, 1, 1000),
  WORKER_CONCURRENCY: int(4, 1, 64),
  WORKER_HEALTH_PORT: int(9464, 0, 65535),
  WORKER_HEALTH_HOST: z.string().default('0.0.0.0'),
  SHUTDOWN_GRACE_MS: int(10_000, 0, 300_000),
  /** After SIGTERM the API keeps serving this long with /health/ready at 503, then closes its listener. */
  SHUTDOWN_DELAY_MS: int(0, 0, 60_000),
  EMBEDDING_MODEL: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/,
      'a model id: use-lite-512d, glove-sif-100d or a model folder name under MODELS_DIR',
    )
    // Universal Sentence Encoder lite, read from its npm package (docs/embeddings.md: why).
    .default('use-lite-512d'),
  MODELS_DIR: z.string().default('./models'),
  EMBEDDING_ALLOW_REMOTE: bool(false),
  EMBEDDING_QUANTIZED: bool(false),
  EMBEDDING_BATCH_SIZE: int(32, 1, 1024),
  // 0: a lone query is embedded at once; under load, calls queue behind the running batch and merge.
  EMBEDDING_BATCH_WAIT_MS: int(0, 0, 1000),
  QUERY_EMBEDDING_CACHE_SIZE: int(1000, 0, 1_000_000),
  /**
   * A live memory whose index state has been pending this long is re-enqueued by the reconciliation
   * sweep. A memory is normally embedded within tens of milliseconds, and a dispatched job waits
   * behind at most 4 batches (the relay keeps the rest in the outbox, where the sweep never looks):
   * seconds even for one worker with the slowest model. 2 minutes is far beyond that, so a lost
   * job is found within ~3 minutes (a Redis that lost its data triggers a sweep at once anyway).
   */
  INDEX_RECONCILE_AFTER_MS: int(120_000, 1_000, 86_400_000),
  /** How often the sweep runs (one run per interval cluster-wide). */
  INDEX_RECONCILE_EVERY_MS: int(60_000, 1_000, 3_600_000),
  /** At most this many memories are re-enqueued per sweep. */
  INDEX_RECONCILE_BATCH: int(1000, 1, 100_000),
  VECTOR_EXACT_SCAN_MAX_ROWS: int(2_000, 0, 10_000_000),
  /**
   * A tenant with at least this many embeddings of a model gets an HNSW index of its own (built by
   * the worker, CONCURRENTLY): its recall walks only its own rows. 0: only the shared model index.
   */
  VECTOR_TENANT_INDEX_MIN_ROWS: int(5_000, 0, 100_000_000),
  DEDUP_NOOP_THRESHOLD: z.coerce.number().min(0).max(1).default(0.92),
  DEDUP_UPDATE_THRESHOLD: z.coerce.number().min(0).max(1).default(0.75),
  /** HMAC key for sync cursors (>= 32 chars); unset → a per-installation key kept in the database. */
  SYNC_CURSOR_SECRET: optionalString.refine((v) => v === undefined || v.length >= 32, {
    message: 'must be at least 32 characters',
  }),
  SYNC_PAGE_DEFAULT: int(500, 1, 100_000),
  SYNC_PAGE_MAX: int(5_000, 1, 100_000),
  TOMBSTONE_RETENTION_DAYS: int(90, 1, 36_500),
  SINCE_OVERLAP_MS: int(60_000, 0, 86_400_000),
  VAULT_ADDR: optionalString.refine((v) => v === undefined || /^https?:\/\/[^/]/.test(v), {
    message: 'must start with http:// or https://',
  }),
  VAULT_TOKEN: optionalString,
  VAULT_ROLE_ID: optionalString,
  VAULT_SECRET_ID: optionalString,
  VAULT_K8S_ROLE: optionalString,
  VAULT_K8S_TOKEN_PATH: z.string().default('/var/run/secrets/kubernetes.io/serviceaccount/token'),
  VAULT_MOUNT: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'a KV v2 mount path such as secret')
    .default('secret'),
  /** KV folder under the mount; not node-vault's URL prefix (the client ignores that env variable). */
  VAULT_PREFIX: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/,
      'a folder such as memory-service (no leading or trailing /)',
    )
    .default('memory-service'),
  VAULT_TIMEOUT_MS: int(3000, 100, 60_000),
  /** Browser origins allowed to call /mcp; a request with any other Origin gets 403 (none → only non-browser clients). */
  MCP_ALLOWED_ORIGINS: originList,
  /**
   * Host header values /mcp answers to (host or host:port), besides localhost, which is always
   * allowed; `*` → any host. Empty → localhost only (the Helm chart fills in its service and
   * ingress names).
   */
  MCP_ALLOWED_HOSTS: commaList.transform((hosts) => hosts.map((h) => h.toLowerCase())),
  /** Output budget of list-like MCP tools (recall, list), in characters (≈ 4 per token). */
  MCP_MAX_OUTPUT_CHARS: int(20_000, 500, 1_000_000),
  /**
   * Most JSON-RPC messages one `POST /mcp` may carry; a larger batch is refused (413) before any
   * message runs or counts against the key's rate limit.
   */
  MCP_MAX_BATCH_MESSAGES: int(50, 1, 10_000),
  /**
   * Webhooks: networks a webhook URL may resolve to although they are private, loopback or
   * link-local (refused otherwise), e.g. an in-cluster receiver. Empty → public addresses only.
   */
  WEBHOOK_ALLOWED_NETWORKS: networkList,
  /** Webhooks: how long one delivery attempt may take (connect, send, response), in milliseconds. */
  WEBHOOK_TIMEOUT_MS: int(10_000, 200, 60_000),
  /** Webhooks: attempts per event and endpoint, the first included, before the delivery counts as failed. */
  WEBHOOK_MAX_ATTEMPTS: int(10, 1, 30),
  /** Webhooks: the wait before the first retry; each later one waits twice the one before. */
  WEBHOOK_RETRY_BASE_MS: int(30_000, 50, 3_600_000),
  /** Webhooks: an endpoint is disabled after this many deliveries in a row failed every attempt. */
  WEBHOOK_DISABLE_AFTER_FAILURES: int(5, 1, 10_000),
  /** Webhooks: how long the old signing secret still signs after a rotation, unless the request says. */
  WEBHOOK_SECRET_OVERLAP_SECONDS: int(86_400, 0, 604_800),
  /** Webhooks: finished deliveries (and their attempt log) are deleted after this many days. */
  WEBHOOK_DELIVERY_RETENTION_DAYS: int(30, 1, 3650),
  /** Output budget of the startup_context tool, in characters. */
  MCP_STARTUP_CONTEXT_CHARS: int(8_000, 500, 1_000_000),
  /** Budget of `GET /api/context/startup` when the request names none, in characters. */
  STARTUP_CONTEXT_CHARS: int(4_000, 500, 1_000_000),
  /** Largest budget a startup context request (REST or MCP) may ask for. */
  STARTUP_CONTEXT_MAX_CHARS: int(32_000, 500, 1_000_000),
  /**
   * Token budget of the startup context (REST and MCP) when the request names none, as the
   * kernel's `estimateTokens` counts them (≈ 4 ASCII characters per token, every other character
   * a token); the character budget applies as well.
   */
  STARTUP_CONTEXT_TOKENS: int(2_000, 150, 250_000),
  /** Largest token budget a startup context request may ask for. */
  STARTUP_CONTEXT_MAX_TOKENS: int(8_000, 150, 250_000),
  /** Recall: factor on the fused score of memories of the project named in `project_boost` (1 = no boost). */
  RECALL_PROJECT_BOOST: z.coerce.number().min(1).max(10).default(1.5),
  /** Recall: how the text and vector legs are fused — scores scaled per leg (`linear`) or ranks (`rrf`). */
  RECALL_FUSION: z.enum(['linear', 'rrf']).default('linear'),
  /** Recall: weight of the text (BM25) leg in fusion. */
  RECALL_TEXT_WEIGHT: z.coerce.number().min(0).max(1).default(0.7),
  /** Recall: weight of the vector leg in fusion. */
  RECALL_VECTOR_WEIGHT: z.coerce.number().min(0).max(1).default(0.3),
  /** Recall (`linear`): cosine similarity at or below which a vector hit counts as no match. */
  RECALL_VECTOR_FLOOR: z.coerce.number().min(-1).max(1).default(0.25),
  /**
   * Recall (`linear`): the lead of the text leg's best hit over its 10th (a share of the best score)
   * at which the text leg keeps its whole weight; with less lead it hands weight to the vector leg (0 = off).
   */
  RECALL_TEXT_SPREAD: z.coerce.number().min(0).max(1).default(0.6),
  /** Recall (`linear`): the same for the vector leg, its lead measured above RECALL_VECTOR_FLOOR (0 = off). */
  RECALL_VECTOR_SPREAD: z.coerce.number().min(0).max(1).default(0.3),
  /**
   * Recall (`linear`): the share of the query's weight (its terms' IDF) the text leg's best-covered hit
   * must hold for the leg to keep its whole weight; less, and it hands that part to the vector leg (0 = off).
   */
  RECALL_TEXT_COVERAGE: z.coerce.number().min(0).max(1).default(0),
  /**
   * Recall: cosine similarity a memory found by meaning alone needs when no word of the query occurs
   * in any memory the caller may read (below it the answer is empty). Unset: the model's own
   * (0.4 for use-lite-512d and glove-sif-100d; other models none). -1 turns it off.
   */
  RECALL_UNMATCHED_VECTOR_FLOOR: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce.number().min(-1).max(1).optional(),
  ),
  /**
   * Recall's relevance floor: below this share of the query's topical words found in the caller's
   * memories, the answer is empty unless a memory is close in meaning (RECALL_MEANING_FLOOR). 0 turns
   * the topic rule off.
   */
  RECALL_COVERAGE_FLOOR: z.coerce.number().min(0).max(1).default(0.2),
  /**
   * Recall's relevance floor: from RECALL_COVERAGE_FLOOR up to this share of the query's topical words
   * found in the caller's memories (thin coverage), the answer is empty unless the nearest memory
   * reaches RECALL_THIN_MEANING_FLOOR. At or below RECALL_COVERAGE_FLOOR turns the band off.
   */
  RECALL_THIN_COVERAGE_FLOOR: z.coerce.number().min(0).max(1).default(0.3),
  /**
   * Recall's relevance floor: cosine similarity of the nearest memory that lets a query of thin
   * coverage answer. Unset: the model's own (0.35 for use-lite-512d; other models: none, and thin
   * coverage answers).
   */
  RECALL_THIN_MEANING_FLOOR: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce.number().min(-1).max(1).optional(),
  ),
  /**
   * Recall's relevance floor: from this share of the query's words that no readable memory has and
   * the language does not know (names of unknown things), the answer is empty. Above 1 turns it off.
   */
  RECALL_UNKNOWN_WORD_FLOOR: z.coerce.number().min(0).max(2).default(0.3),
  /**
   * Recall's relevance floor: cosine similarity of the nearest memory that lets an off-topic-looking
   * query answer (a paraphrase). Unset: the model's own (0.42 for use-lite-512d; other models: none,
   * and the topic rule does not apply).
   */
  RECALL_MEANING_FLOOR: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce.number().min(-1).max(1).optional(),
  ),
  /** Recall (`rrf`): the RRF constant k. */
  RECALL_RRF_K: int(60, 1, 1_000),
  /** Recall: share of a thread neighbour's score a memory borrows (`thread:`/`session:` tags; 0 = off). */
  RECALL_CONTEXT_WEIGHT: z.coerce.number().min(0).max(1).default(0.5),
  /** Recall: whom a memory borrows from — both thread neighbours, or only the memory before it. */
  RECALL_CONTEXT_DIRECTION: z.enum(['both', 'previous']).default('previous'),
  /**
   * Recall: an owner's memories without a `thread:`/`session:` tag written within this many minutes
   * of each other (a conversation imported or stored turn by turn) are a thread too; 0 = only tags
   * (the default: separate facts stored one by one would lend each other relevance).
   */
  RECALL_THREAD_WINDOW_MINUTES: z.coerce.number().min(0).max(1_440).default(0),
  /** Recall's text leg (BM25): term-frequency saturation k1 (0 = a term counts once however often it occurs). */
  RECALL_BM25_K1: z.coerce.number().min(0).max(10).default(1.2),
  /** Recall's text leg (BM25): length normalisation b (0 = none, 1 = full). */
  RECALL_BM25_B: z.coerce.number().min(0).max(1).default(0.75),
  /**
   * Recall's text leg: memory each API process may give its in-memory BM25 index, in MiB (about 41
   * per 100,000 memories). Tenants load on first recall, least recently used leave first; a tenant
   * loading or not fitting is searched in Postgres. 0 = always search in Postgres.
   */
  RECALL_TEXT_INDEX_MB: int(256, 0, 65_536),
  /**
   * Recall's vector leg: memory each API process may give its in-memory vectors and their HNSW
   * graphs, in MiB (per 100,000 memories about 100 at 100 dimensions, 320 at 512). Loaded beside a
   * tenant's text index on its first recall; meanwhile, and for a tenant that does not fit, the
   * vector leg runs in Postgres. 0 = always in Postgres.
   */
  RECALL_VECTOR_INDEX_MB: int(256, 0, 65_536),
  /**
   * How long (ms) after a recall brought a tenant's in-memory indexes up to date the next recalls in
   * that API process use them as they are: no statement before the served rows, when the process
   * committed no write of the tenant since and knows every word of the query. Bounds how late a
   * write, share or unshare made through another process is seen. 0 = every recall reads what
   * changed first.
   */
  RECALL_INDEX_FRESH_MS: int(250, 0, 1_000),
  /** Memories screened per transaction by the secret migration (progress is saved after each). */
  SECRET_MIGRATION_BATCH_SIZE: int(200, 1, 5_000),
  /** How ended sessions become candidate memories: `rules` (no model) or `llm` (falls back to rules). */
  SESSION_EXTRACTOR: z.enum(['rules', 'llm']).default('rules'),
  /** OpenAI-compatible API base (…/v1) or its full /chat/completions URL; required with `llm`. */
  EXTRACTOR_LLM_URL: optionalString.refine((v) => v === undefined || /^https?:\/\/[^/]/.test(v), {
    message: 'must start with http:// or https://',
  }),
  EXTRACTOR_LLM_MODEL: optionalString,
  /** Sent as `Authorization: Bearer …`; optional (local servers often need none). */
  EXTRACTOR_LLM_API_KEY: optionalString,
  EXTRACTOR_LLM_TIMEOUT_MS: int(30_000, 1_000, 600_000),
  /** 64 hex chars = raw 256-bit key; anything else is a passphrase stretched with scrypt. */
  MEMORY_ENCRYPTION_KEY: optionalString.refine(
    (v) => v === undefined || /^[0-9a-fA-F]{64}$/.test(v) || v.length >= 16,
    {
      message: 'must be 64 hex characters (32 bytes) or a passphrase of at least 16 characters',
    },
  ),
});

export type Env = z.output<typeof envSchema>;
