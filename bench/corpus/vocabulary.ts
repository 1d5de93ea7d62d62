/**
 * Words the synthetic memories are built from. Topics overlap on purpose (a deploy memory may
 * mention the database) so full-text and vector search both face realistic ambiguity rather than
 * one keyword per topic.
 */

export const SERVICES = [
  'payments-api',
  'auth-service',
  'checkout',
  'search-indexer',
  'billing-worker',
  'web-frontend',
  'notification-service',
  'api-gateway',
  'reporting',
  'inventory',
  'mobile-backend',
  'data-pipeline',
] as const;

export const ENVIRONMENTS = ['staging', 'production', 'canary', 'preview', 'the load-test cluster'] as const;

export const PEOPLE = [
  'Priya',
  'Marco',
  'Lena',
  'Tomasz',
  'Aisha',
  'Kenji',
  'Sofia',
  'Dmitri',
  'Grace',
  'Omar',
];

export const PROJECTS = ['atlas', 'hermes', 'nova', 'orion', 'zephyr'] as const;

export interface Topic {
  readonly name: string;
  readonly tools: readonly string[];
  /** Things that are true or configured ("X is Y"). */
  readonly facts: readonly string[];
  /** Things the team chose to do. */
  readonly decisions: readonly string[];
  readonly reasons: readonly string[];
  /** Traps: what goes wrong, and when. */
  readonly gotchas: readonly string[];
  readonly conditions: readonly string[];
  /** Preferences in code review and tooling: [preferred, instead of]. */
  readonly preferences: readonly (readonly [string, string])[];
  /** Phrases a developer would search with. */
  readonly questions: readonly string[];
  readonly keywords: readonly string[];
}

export const TOPICS: readonly Topic[] = [
  {
    name: 'deploys',
    tools: ['GitHub Actions', 'Argo CD', 'Helm', 'Jenkins', 'Terraform', 'Kubernetes'],
    facts: [
      'deploys go out through a blue-green rollout',
      'the release train leaves every Tuesday and Thursday',
      'rollbacks take about four minutes end to end',
      'the deploy pipeline needs a green build on main',
      'canary traffic starts at five percent for thirty minutes',
    ],
    decisions: [
      'move the deploy pipeline to {tool}',
      'freeze deploys during the quarterly close',
      'require two approvals before a production release',
      'tag every release with the semantic version',
    ],
    reasons: [
      'the old pipeline was flaky',
      'releases kept colliding',
      'auditors asked for it',
      'rollbacks were too slow',
    ],
    gotchas: [
      'the deploy hangs on the health check',
      'the Helm chart silently keeps the old image tag',
      'the pipeline cache serves a stale artifact',
    ],
    conditions: ['the readiness probe times out', 'two releases overlap', 'someone force-pushes to main'],
    preferences: [
      ['small frequent releases', 'big batched releases'],
      ['feature flags', 'long-lived release branches'],
    ],
    questions: [
      'how do we deploy {service}',
      'rollback procedure for {service}',
      'when is the release train',
    ],
    keywords: ['deploy', 'release', 'rollout', 'pipeline', 'ship'],
  },
  {
    name: 'databases',
    tools: ['Postgres', 'Redis', 'pgbouncer', 'pgvector', 'Flyway'],
    facts: [
      'the primary database has two read replicas',
      'connection pooling goes through {tool} in transaction mode',
      'autovacuum is tuned more aggressively on the events table',
      'backups run nightly and are kept for thirty days',
      'the orders table is partitioned by month',
    ],
    decisions: [
      'run schema migrations only from the deploy job',
      'add an index before every new query on a large table',
      'use {tool} for session storage',
      'keep migrations backwards compatible for one release',
    ],
    reasons: [
      'a lock blocked checkout for ten minutes',
      'queries were scanning millions of rows',
      'replicas lagged',
    ],
    gotchas: [
      'a migration takes an exclusive lock on the table',
      'the replica returns stale rows',
      'the connection pool runs out of connections',
    ],
    conditions: [
      'an index is created without CONCURRENTLY',
      'a long transaction stays open',
      'traffic spikes',
    ],
    preferences: [
      ['explicit SQL in repositories', 'an ORM query builder'],
      ['UUID primary keys', 'sequential integer ids'],
    ],
    questions: ['database migration rules', 'why is the {service} query slow', 'where are database backups'],
    keywords: ['database', 'sql', 'migration', 'index', 'replica', 'query'],
  },
  {
    name: 'code-style',
    tools: ['ESLint', 'Prettier', 'TypeScript', 'Vitest', 'Storybook'],
    facts: [
      'the lint config forbids default exports',
      'strict mode is on in every package',
      'files are named in kebab case with a role suffix',
      'the line length limit is one hundred and ten characters',
    ],
    decisions: [
      'switch the formatter to {tool}',
      'ban the any type in new code',
      'colocate unit tests with the code they test',
      'use named exports everywhere',
    ],
    reasons: [
      'reviews kept arguing about formatting',
      'type errors reached production',
      'imports were hard to follow',
    ],
    gotchas: [
      'the formatter rewrites generated files',
      'a circular import leaves a value undefined at runtime',
      'decorator metadata disappears',
    ],
    conditions: [
      'the build uses a bundler',
      'two modules import each other',
      'a file is excluded from tsconfig',
    ],
    preferences: [
      ['early returns', 'deeply nested conditionals'],
      ['small focused functions', 'long multi-purpose functions'],
      ['async and await', 'promise chains'],
    ],
    questions: ['code style rules for {service}', 'how should files be named', 'lint rules we follow'],
    keywords: ['style', 'lint', 'format', 'naming', 'review'],
  },
  {
    name: 'incidents',
    tools: ['PagerDuty', 'Grafana', 'Sentry', 'Datadog', 'Opsgenie'],
    facts: [
      'the on-call rotation changes every Monday at ten',
      'every outage gets a blameless postmortem within a week',
      'severity one incidents page the whole team',
      'the status page is updated by the incident commander',
    ],
    decisions: [
      'alert on error budget burn instead of raw error counts',
      'route {service} alerts to {tool}',
      'add a runbook link to every alert',
    ],
    reasons: [
      'the pager was too noisy',
      'an outage went unnoticed for an hour',
      'nobody knew who owned the alert',
    ],
    gotchas: [
      'the certificate for {service} expired',
      'the disk filled up with debug logs',
      'a memory leak crashed the pods',
      'a retry storm took down the gateway',
    ],
    conditions: ['log level is left on debug', 'a dependency times out', 'traffic doubles after a campaign'],
    preferences: [
      ['short written incident updates', 'long status calls'],
      ['dashboards per service', 'one giant dashboard'],
    ],
    questions: ['what happened in the {service} outage', 'who is on call', 'incident process'],
    keywords: ['incident', 'outage', 'alert', 'postmortem', 'pager'],
  },
  {
    name: 'testing',
    tools: ['Vitest', 'Playwright', 'Testcontainers', 'k6', 'Cypress'],
    facts: [
      'integration tests run against a real database',
      'the end to end suite takes about twelve minutes',
      'flaky tests are quarantined with a ticket',
      'coverage must not drop below eighty percent',
    ],
    decisions: [
      'run load tests with {tool} before big launches',
      'replace mocks of the database with real containers',
      'give each test its own tenant',
    ],
    reasons: [
      'mocks hid a broken query',
      'tests interfered with each other',
      'the launch fell over under load',
    ],
    gotchas: [
      'tests pass locally but fail in CI',
      'the suite leaks open handles',
      'parallel tests share a database',
    ],
    conditions: ['the timezone differs', 'a test depends on execution order', 'ports collide'],
    preferences: [
      ['testing behaviour through the public API', 'asserting on private internals'],
      ['one assertion idea per test', 'giant scenario tests'],
    ],
    questions: ['how do we test {service}', 'why are tests flaky', 'load testing tool'],
    keywords: ['test', 'ci', 'flaky', 'coverage', 'suite'],
  },
  {
    name: 'security',
    tools: ['Vault', 'Snyk', 'Dependabot', 'OAuth', 'Keycloak'],
    facts: [
      'secrets live in {tool} and rotate monthly',
      'API keys are stored only as hashes',
      'the staging database password rotates every month',
      'production access needs a hardware key',
    ],
    decisions: [
      'scan dependencies with {tool} on every pull request',
      'drop long-lived access tokens',
      'encrypt backups at rest',
    ],
    reasons: [
      'a token leaked in a log',
      'an audit flagged plain-text secrets',
      'a vulnerable package shipped',
    ],
    gotchas: [
      'the token refresh fails silently',
      'secrets appear in crash reports',
      'the CORS rule allows every origin',
    ],
    conditions: ['the clock drifts', 'a debug flag is left on', 'a new subdomain is added'],
    preferences: [
      ['short-lived credentials', 'static passwords'],
      ['least privilege roles', 'shared admin accounts'],
    ],
    questions: ['where are secrets stored', 'password rotation policy', 'how to get production access'],
    keywords: ['security', 'secret', 'token', 'password', 'credential'],
  },
  {
    name: 'frontend',
    tools: ['React', 'Next.js', 'Tailwind', 'Vite', 'Redux'],
    facts: [
      'the design system lives in a separate package',
      'the web app supports the last two browser versions',
      'images are served through the CDN',
    ],
    decisions: [
      'migrate the build from webpack to {tool}',
      'stop adding new Redux stores',
      'lazy load the admin pages',
    ],
    reasons: ['the bundle was too large', 'builds took minutes', 'state was duplicated everywhere'],
    gotchas: [
      'hydration fails on the dashboard',
      'the service worker caches an old bundle',
      'dates render in UTC',
    ],
    conditions: ['the locale is not English', 'the user has an ad blocker', 'the page is server rendered'],
    preferences: [
      ['server components', 'client-side data fetching'],
      ['utility classes', 'hand-written CSS files'],
    ],
    questions: ['frontend build setup', 'why is the bundle so big', 'browser support policy'],
    keywords: ['frontend', 'ui', 'browser', 'bundle', 'css'],
  },
  {
    name: 'observability',
    tools: ['OpenTelemetry', 'Prometheus', 'Loki', 'Jaeger', 'pino'],
    facts: [
      'every request carries a request id through the logs',
      'metrics are scraped every fifteen seconds',
      'traces are sampled at ten percent in production',
      'logs are retained for fourteen days',
    ],
    decisions: ['export traces with {tool}', 'log in JSON only', 'redact personal data before logging'],
    reasons: [
      'we could not follow a request across services',
      'logs were unreadable',
      'a log contained emails',
    ],
    gotchas: [
      'high-cardinality labels blow up Prometheus',
      'the trace context is lost in the queue',
      'logs are buffered and lost on crash',
    ],
    conditions: ['user ids are used as labels', 'a job is retried', 'the process exits abruptly'],
    preferences: [
      ['structured logs', 'free-form log lines'],
      ['RED metrics per endpoint', 'ad hoc counters'],
    ],
    questions: ['how to trace a request', 'log retention', 'which metrics do we collect'],
    keywords: ['logs', 'metrics', 'tracing', 'monitoring', 'dashboard'],
  },
];
