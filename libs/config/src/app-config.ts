import { z } from 'zod';
import { envSchema, SENSITIVE_ENV_KEYS, type Env } from './env.schema';
import { isLoopbackUrl, withConsoleSecrets, type OAuthIssuer } from './oauth.schema';

export type RunMode = 'embedded' | 'server';

/** Typed, grouped configuration. Built once at boot; nothing else reads process.env. */
export interface AppConfig {
  readonly mode: RunMode;
  readonly env: Env['NODE_ENV'];
  readonly http: {
    readonly host: string;
    readonly port: number;
    readonly bodyLimitBytes: number;
    readonly requestTimeoutMs: number;
    readonly trustProxy: boolean;
    /** Requests per key (or client address) and minute, per budget; 0 = unlimited. */
    readonly rateLimits: RateLimitBudgets;
    /** SIGTERM → listener close: time for load balancers that watch readiness to see the 503. */
    readonly shutdownDelayMs: number;
  };
  readonly log: { readonly level: Env['LOG_LEVEL']; readonly format: 'pretty' | 'json' };
  /**
   * Access tokens from identity providers (OAuth 2.1 resource server, beside API keys); `issuers`
   * empty: API keys only.
   */
  readonly oauth: {
    /** This service's canonical URL: the `resource` of its metadata and the audience tokens must name. */
    readonly resource: string | null;
    readonly issuers: readonly OAuthIssuer[];
    /** The console's sign-in sessions (issuers with a console client). */
    readonly consoleSessions: {
      /** A session unused this long ends. */
      readonly idleSeconds: number;
      /** A session ends this long after sign-in. */
      readonly maxSeconds: number;
    };
  };
  readonly metrics: {
    /** The API serves /metrics on this port instead of PORT (0: on PORT). */
    readonly port: number;
    /** Bearer token /metrics requires; undefined → open. */
    readonly token: string | undefined;
  };
  /** Overrides what was recorded at build time (dist/build-info.json). */
  readonly build: { readonly commit: string | undefined };
  readonly database: {
    /** Absent in embedded mode until the embedded server has started. */
    readonly url: string | undefined;
    readonly poolSize: number;
    readonly appRole: string;
    readonly statementTimeoutMs: number;
    readonly runMigrations: boolean;
    /** Streaming replicas serving reads; empty: every read goes to the primary. */
    readonly replicaUrls: readonly string[];
    readonly replicaMaxLagMs: number;
    readonly replicaMaxWaitMs: number;
  };
  readonly redis: { readonly url: string | undefined; readonly queuePrefix: string };
  readonly embedded: { readonly dataDir: string };
  readonly auth: {
    readonly defaultTenant: string;
    readonly apiKeys: Readonly<Record<string, string>>;
    readonly apiKey: string | undefined;
    readonly adminApiKey: string | undefined;
    /** How long a rotated key keeps working after its replacement is issued. */
    readonly keyRotationGraceSeconds: number;
  };
  readonly audit: {
    /** Days an audit row is kept; 0 keeps them forever. */
    readonly retentionDays: number;
  };
  /** Per-tenant defaults; 0 = unlimited. A tenant's own columns override them. */
  readonly quotas: {
    readonly maxMemories: number;
    readonly maxMemoryBytes: number;
    readonly maxSessionsPerDay: number;
  };
  readonly limits: {
    readonly maxContentBytes: number;
    readonly maxImportBatch: number;
    /** Bytes of one streamed transcript import. */
    readonly transcriptImportMaxBytes: number;
    readonly maxListLimit: number;
  };
  /** Defaults of the memory aggregate. */
  readonly memories: {
    readonly defaultVisibility: 'team' | 'private';
    /** Lifetime in ms per category for memories stored without `expires_at`. */
    readonly ttlByCategory: Readonly<Record<string, number>>;
  };
  readonly outbox: { readonly pollIntervalMs: number; readonly batchSize: number };
  readonly webhooks: {
    /** CIDR ranges (WEBHOOK_ALLOWED_NETWORKS) exempt from the private-address refusal. */
    readonly allowedNetworks: readonly string[];
    readonly timeoutMs: number;
    readonly maxAttempts: number;
    readonly retryBaseMs: number;
    readonly disableAfterFailures: number;
    readonly secretOverlapSeconds: number;
    readonly deliveryRetentionDays: number;
  };
  readonly embeddings: {
    /** Model folder under modelsDir (or a hub id when remote loading is allowed). */
    readonly model: string;
    readonly modelsDir: string;
    readonly allowRemote: boolean;
    readonly quantized: boolean;
    readonly batchSize: number;
    readonly batchWaitMs: number;
    readonly queryCacheSize: number;
    /** Below this many candidate rows the vector leg scans exactly instead of using HNSW. */
    readonly exactScanMaxRows: number;
    /** Tenants with at least this many embeddings of a model get their own HNSW index (0: never). */
    readonly tenantIndexMinRows: number;
    /** The sweep that re-enqueues memories whose `memory.index` job was lost. */
    readonly reconcile: { readonly afterMs: number; readonly everyMs: number; readonly batch: number };
  };
  readonly dedup: { readonly noopThreshold: number; readonly updateThreshold: number };
  readonly mcp: {
    /** Normalised origins (scheme://host[:port]); an Origin header outside the list is refused. */
    readonly allowedOrigins: readonly string[];
    /** Lower-case Host values (host or host:port); empty → not checked. */
    readonly allowedHosts: readonly string[];
    readonly maxOutputChars: number;
    /** Most JSON-RPC messages in one request (MCP_MAX_BATCH_MESSAGES). */
    readonly maxBatchMessages: number;
    /** The startup_context tool's budget when the call names none (at most `sessions.startupContext.maxChars`). */
    readonly startupContextChars: number;
  };
  readonly sessions: {
    /** The session startup block: default budget over REST, and the largest any request may ask for. */
    readonly startupContext: {
      readonly defaultChars: number;
      readonly maxChars: number;
      /** Estimated tokens (`estimateTokens`): the default budget and the largest a request may ask for. */
      readonly defaultTokens: number;
      readonly maxTokens: number;
    };
    /** Session capture: how an ended session's events become candidate memories. */
    readonly extractor: Env['SESSION_EXTRACTOR'];
    /** The `llm` extractor's OpenAI-compatible endpoint (set when extractor is `llm`). */
    readonly llm: {
      readonly url: string | undefined;
      readonly model: string | undefined;
      readonly apiKey: string | undefined;
      readonly timeoutMs: number;
    };
  };
  readonly recall: {
    /** Factor on the fused score of memories of the boosted project (`project_boost`). */
    readonly projectBoost: number;
    /** How the two legs are fused (see `FusionSettings` in libs/recall). */
    readonly fusion: {
      readonly method: 'linear' | 'rrf';
      readonly textWeight: number;
      readonly vectorWeight: number;
      readonly vectorFloor: number;
      readonly textSpread: number;
      readonly vectorSpread: number;
      readonly textCoverage: number;
      readonly rrfK: number;
      readonly contextWeight: number;
      readonly contextDirection: 'both' | 'previous';
      readonly threadWindowMinutes: number;
    };
    /** Similarity a vector-only hit needs when no query word matched (undefined: the model's own). */
    readonly unmatchedVectorFloor: number | undefined;
    /**
     * The relevance floor's rules (RECALL_COVERAGE_FLOOR, RECALL_UNKNOWN_WORD_FLOOR, RECALL_MEANING_FLOOR,
     * RECALL_THIN_COVERAGE_FLOOR, RECALL_THIN_MEANING_FLOOR).
     */
    readonly floor: {
      readonly coverage: number;
      readonly unknownShare: number;
      readonly meaning: number | undefined;
      readonly thinCoverage: number;
      readonly thinMeaning: number | undefined;
    };
    /** Okapi BM25 parameters of the text leg: term-frequency saturation and length normalisation. */
    readonly bm25: { readonly k1: number; readonly b: number };
    /** Heap budget of the in-memory text index per process, in bytes (0: Postgres only). */
    readonly textIndexBytes: number;
    /** Budget of the in-memory vector indexes per process, in bytes (0: Postgres only). */
    readonly vectorIndexBytes: number;
    /** RECALL_INDEX_FRESH_MS. */
    readonly indexFreshMs: number;
  };
  readonly worker: {
    readonly concurrency: number;
    readonly healthPort: number;
    readonly healthHost: string;
    readonly shutdownGraceMs: number;
  };
  readonly sync: {
    /** Unset → the app generates one per installation and keeps it in `server_secrets`. */
    readonly cursorSecret: string | undefined;
    readonly pageDefault: number;
    readonly pageMax: number;
    readonly tombstoneRetentionDays: number;
    /** `?since=` reads from `since` minus this, to cover writers whose transaction began earlier. */
    readonly sinceOverlapMs: number;
  };
  readonly secrets: {
    readonly vault: {
      /** Vault is used when set; otherwise the local encryption key; otherwise no store. */
      readonly address: string | undefined;
      readonly token: string | undefined;
      readonly roleId: string | undefined;
      readonly secretId: string | undefined;
      readonly k8sRole: string | undefined;
      readonly k8sTokenPath: string;
      readonly mount: string;
      readonly prefix: string;
      readonly timeoutMs: number;
    };
    /** 64 hex chars (raw key) or a passphrase stretched with scrypt. */
    readonly encryptionKey: string | undefined;
    readonly migrationBatchSize: number;
  };
}

/** The rate limit's budgets: what a key may send per minute, by kind of request. */
export interface RateLimitBudgets {
  readonly writes: number;
  readonly reads: number;
  readonly admin: number;
  /** Session event ingest. */
  readonly events: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface RuntimeFacts {
  /** Whether stdout is a terminal (chooses the default LOG_FORMAT). */
  readonly stdoutIsTty: boolean;
}

/** Validates the whole environment at once and reports every problem together. */
export function loadConfig(
  source: Record<string, string | undefined> = process.env,
  runtime: RuntimeFacts = { stdoutIsTty: process.stdout.isTTY === true },
): AppConfig {
  const result = envSchema.safeParse(source);
  if (!result.success) throw new ConfigError(describeIssues(result.error));
  const problems = crossFieldProblems(result.data);
  if (problems.length > 0) throw new ConfigError(problems);
  const logFormat = result.data.LOG_FORMAT ?? defaultLogFormat(source.NODE_ENV, runtime);
  return toAppConfig(result.data, logFormat);
}

/**
 * Pretty lines for a developer at a terminal; JSON for everything else (containers, files, log
 * shippers). NODE_ENV counts as set only when the environment sets it (its schema default is
 * `production`), so `npm start` in a terminal is pretty and the image (NODE_ENV=production) is JSON.
 */
export function defaultLogFormat(nodeEnv: string | undefined, runtime: RuntimeFacts): 'pretty' | 'json' {
  return nodeEnv === 'production' || !runtime.stdoutIsTty ? 'json' : 'pretty';
}

/** Rules that tie variables together (each variable alone was valid). */
function crossFieldProblems(env: Env): string[] {
  const problems: string[] = [];
  if (env.OAUTH_ISSUERS.length > 0 && env.OAUTH_RESOURCE === undefined)
    problems.push('OAUTH_RESOURCE: required when OAUTH_ISSUERS is set (the audience tokens must name)');
  withConsoleSecrets(env.OAUTH_ISSUERS, env.OAUTH_CONSOLE_CLIENT_SECRETS, problems);
  const resource = env.OAUTH_RESOURCE;
  if (
    resource !== undefined &&
    env.OAUTH_ISSUERS.some((i) => i.console) &&
    !resource.startsWith('https:') &&
    !isLoopbackUrl(resource)
  )
    problems.push(
      'OAUTH_RESOURCE: console sign-in (console_client_id) needs an https URL (plain http only on localhost or 127.0.0.1)',
    );
  if (env.CONSOLE_SESSION_IDLE_MINUTES * 60 > env.CONSOLE_SESSION_MAX_HOURS * 3600)
    problems.push('CONSOLE_SESSION_IDLE_MINUTES: must not be longer than CONSOLE_SESSION_MAX_HOURS');
  if (env.SESSION_EXTRACTOR === 'llm') {
    for (const name of ['EXTRACTOR_LLM_URL', 'EXTRACTOR_LLM_MODEL'] as const) {
      if (env[name] === undefined) problems.push(`${name}: required when SESSION_EXTRACTOR is llm`);
    }
  }
  return problems;
}

function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const variable = issue.path.join('.') || '(environment)';
    // Never echo a sensitive value back; zod messages do not include input values.
    const sensitive = (SENSITIVE_ENV_KEYS as readonly string[]).includes(variable);
    return `${variable}: ${issue.message}${sensitive ? ' (value hidden)' : ''}`;
  });
}

function toAppConfig(env: Env, logFormat: 'pretty' | 'json'): AppConfig {
  return {
    mode: env.DATABASE_URL ? 'server' : 'embedded',
    env: env.NODE_ENV,
    http: {
      host: env.HOST,
      port: env.PORT,
      bodyLimitBytes: env.BODY_LIMIT_BYTES,
      requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
      trustProxy: env.TRUST_PROXY,
      rateLimits: {
        writes: env.RATE_LIMIT_WRITES_PER_MINUTE ?? env.RATE_LIMIT_PER_MINUTE,
        reads: env.RATE_LIMIT_READS_PER_MINUTE ?? env.RATE_LIMIT_PER_MINUTE,
        admin: env.RATE_LIMIT_ADMIN_PER_MINUTE ?? env.RATE_LIMIT_PER_MINUTE,
        events: env.RATE_LIMIT_EVENTS_PER_MINUTE ?? env.RATE_LIMIT_PER_MINUTE,
      },
      shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
    },
    log: { level: env.LOG_LEVEL, format: logFormat },
    oauth: {
      resource: env.OAUTH_RESOURCE ?? null,
      issuers: withConsoleSecrets(env.OAUTH_ISSUERS, env.OAUTH_CONSOLE_CLIENT_SECRETS, []),
      consoleSessions: {
        idleSeconds: env.CONSOLE_SESSION_IDLE_MINUTES * 60,
        maxSeconds: env.CONSOLE_SESSION_MAX_HOURS * 3600,
      },
    },
    metrics: { port: env.METRICS_PORT, token: env.METRICS_TOKEN },
    build: { commit: env.BUILD_COMMIT },
    database: {
      url: env.DATABASE_URL,
      poolSize: env.DATABASE_POOL_SIZE,
      appRole: env.DATABASE_APP_ROLE,
      statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
      runMigrations: env.RUN_MIGRATIONS,
      replicaUrls: env.DATABASE_REPLICA_URLS,
      replicaMaxLagMs: env.REPLICA_MAX_LAG_MS,
      replicaMaxWaitMs: env.REPLICA_MAX_WAIT_MS,
    },
    redis: { url: env.REDIS_URL, queuePrefix: env.QUEUE_PREFIX },
    embedded: { dataDir: env.DATA_DIR },
    auth: {
      defaultTenant: env.DEFAULT_TENANT,
      apiKeys: env.API_KEYS,
      apiKey: env.API_KEY,
      adminApiKey: env.ADMIN_API_KEY,
      keyRotationGraceSeconds: env.KEY_ROTATION_GRACE_SECONDS,
    },
    audit: { retentionDays: env.AUDIT_RETENTION_DAYS },
    quotas: {
      maxMemories: env.QUOTA_MAX_MEMORIES,
      maxMemoryBytes: env.QUOTA_MAX_MEMORY_BYTES,
      maxSessionsPerDay: env.QUOTA_MAX_SESSIONS_PER_DAY,
    },
    limits: {
      maxContentBytes: env.MAX_CONTENT_BYTES,
      maxImportBatch: env.MAX_IMPORT_BATCH,
      transcriptImportMaxBytes: env.TRANSCRIPT_IMPORT_MAX_BYTES,
      maxListLimit: env.MAX_LIST_LIMIT,
    },
    memories: { defaultVisibility: env.DEFAULT_VISIBILITY, ttlByCategory: env.MEMORY_TTL_BY_CATEGORY },
    outbox: { pollIntervalMs: env.OUTBOX_POLL_INTERVAL_MS, batchSize: env.OUTBOX_BATCH_SIZE },
    webhooks: {
      allowedNetworks: env.WEBHOOK_ALLOWED_NETWORKS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      disableAfterFailures: env.WEBHOOK_DISABLE_AFTER_FAILURES,
      secretOverlapSeconds: env.WEBHOOK_SECRET_OVERLAP_SECONDS,
      deliveryRetentionDays: env.WEBHOOK_DELIVERY_RETENTION_DAYS,
    },
    embeddings: {
      model: env.EMBEDDING_MODEL,
      modelsDir: env.MODELS_DIR,
      allowRemote: env.EMBEDDING_ALLOW_REMOTE,
      quantized: env.EMBEDDING_QUANTIZED,
      batchSize: env.EMBEDDING_BATCH_SIZE,
      batchWaitMs: env.EMBEDDING_BATCH_WAIT_MS,
      queryCacheSize: env.QUERY_EMBEDDING_CACHE_SIZE,
      exactScanMaxRows: env.VECTOR_EXACT_SCAN_MAX_ROWS,
      tenantIndexMinRows: env.VECTOR_TENANT_INDEX_MIN_ROWS,
      reconcile: {
        afterMs: env.INDEX_RECONCILE_AFTER_MS,
        everyMs: env.INDEX_RECONCILE_EVERY_MS,
        batch: env.INDEX_RECONCILE_BATCH,
      },
    },
    dedup: { noopThreshold: env.DEDUP_NOOP_THRESHOLD, updateThreshold: env.DEDUP_UPDATE_THRESHOLD },
    mcp: {
      allowedOrigins: env.MCP_ALLOWED_ORIGINS,
      allowedHosts: mcpAllowedHosts(env.MCP_ALLOWED_HOSTS),
      maxOutputChars: env.MCP_MAX_OUTPUT_CHARS,
      maxBatchMessages: env.MCP_MAX_BATCH_MESSAGES,
      startupContextChars: Math.min(env.MCP_STARTUP_CONTEXT_CHARS, env.STARTUP_CONTEXT_MAX_CHARS),
    },
    sessions: {
      startupContext: {
        defaultChars: Math.min(env.STARTUP_CONTEXT_CHARS, env.STARTUP_CONTEXT_MAX_CHARS),
        maxChars: env.STARTUP_CONTEXT_MAX_CHARS,
        defaultTokens: Math.min(env.STARTUP_CONTEXT_TOKENS, env.STARTUP_CONTEXT_MAX_TOKENS),
        maxTokens: env.STARTUP_CONTEXT_MAX_TOKENS,
      },
      extractor: env.SESSION_EXTRACTOR,
      llm: {
        url: env.EXTRACTOR_LLM_URL,
        model: env.EXTRACTOR_LLM_MODEL,
        apiKey: env.EXTRACTOR_LLM_API_KEY,
        timeoutMs: env.EXTRACTOR_LLM_TIMEOUT_MS,
      },
    },
    recall: {
      projectBoost: env.RECALL_PROJECT_BOOST,
      fusion: {
        method: env.RECALL_FUSION,
        textWeight: env.RECALL_TEXT_WEIGHT,
        vectorWeight: env.RECALL_VECTOR_WEIGHT,
        vectorFloor: env.RECALL_VECTOR_FLOOR,
        textSpread: env.RECALL_TEXT_SPREAD,
        vectorSpread: env.RECALL_VECTOR_SPREAD,
        textCoverage: env.RECALL_TEXT_COVERAGE,
        rrfK: env.RECALL_RRF_K,
        contextWeight: env.RECALL_CONTEXT_WEIGHT,
        contextDirection: env.RECALL_CONTEXT_DIRECTION,
        threadWindowMinutes: env.RECALL_THREAD_WINDOW_MINUTES,
      },
      unmatchedVectorFloor: env.RECALL_UNMATCHED_VECTOR_FLOOR,
      floor: {
        coverage: env.RECALL_COVERAGE_FLOOR,
        unknownShare: env.RECALL_UNKNOWN_WORD_FLOOR,
        meaning: env.RECALL_MEANING_FLOOR,
        thinCoverage: env.RECALL_THIN_COVERAGE_FLOOR,
        thinMeaning: env.RECALL_THIN_MEANING_FLOOR,
      },
      bm25: { k1: env.RECALL_BM25_K1, b: env.RECALL_BM25_B },
      textIndexBytes: env.RECALL_TEXT_INDEX_MB * 1024 * 1024,
      vectorIndexBytes: env.RECALL_VECTOR_INDEX_MB * 1024 * 1024,
      indexFreshMs: env.RECALL_INDEX_FRESH_MS,
    },
    worker: {
      concurrency: env.WORKER_CONCURRENCY,
      healthPort: env.WORKER_HEALTH_PORT,
      healthHost: env.WORKER_HEALTH_HOST,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    },
    sync: {
      cursorSecret: env.SYNC_CURSOR_SECRET,
      pageDefault: Math.min(env.SYNC_PAGE_DEFAULT, env.SYNC_PAGE_MAX),
      pageMax: env.SYNC_PAGE_MAX,
      tombstoneRetentionDays: env.TOMBSTONE_RETENTION_DAYS,
      sinceOverlapMs: env.SINCE_OVERLAP_MS,
    },
    secrets: {
      vault: {
        address: env.VAULT_ADDR,
        token: env.VAULT_TOKEN,
        roleId: env.VAULT_ROLE_ID,
        secretId: env.VAULT_SECRET_ID,
        k8sRole: env.VAULT_K8S_ROLE,
        k8sTokenPath: env.VAULT_K8S_TOKEN_PATH,
        mount: env.VAULT_MOUNT,
        prefix: env.VAULT_PREFIX,
        timeoutMs: env.VAULT_TIMEOUT_MS,
      },
      encryptionKey: env.MEMORY_ENCRYPTION_KEY,
      migrationBatchSize: env.SECRET_MIGRATION_BATCH_SIZE,
    },
  };
}

/** Returns a copy of a config with the database URL set (embedded mode fills it in after start). */
export function withDatabaseUrl(config: AppConfig, url: string, poolSize?: number): AppConfig {
  return { ...config, database: { ...config.database, url, poolSize: poolSize ?? config.database.poolSize } };
}

/** Names a local client reaches the server by; a DNS-rebinding attack cannot send them as Host. */
export const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

/** The configured MCP hosts plus localhost; `*` → every host (an empty list). */
export function mcpAllowedHosts(configured: readonly string[]): readonly string[] {
  if (configured.includes('*')) return [];
  return [...new Set([...LOCAL_HOSTS, ...configured])];
}
