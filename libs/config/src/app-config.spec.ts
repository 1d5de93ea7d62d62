import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('defaults to embedded mode on port 8080 with no environment', () => {
    const config = loadConfig({});
    expect(config.mode).toBe('embedded');
    expect(config.http.port).toBe(8080);
    expect(config.embedded.dataDir).toBe('./data');
  });

  it('switches to server mode when DATABASE_URL is set and parses API_KEYS', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@127.0.0.1/db',
      API_KEYS: '{"alice":"alice-key-1","bob":"bob-key-22"}',
    });
    expect(config.mode).toBe('server');
    expect(config.auth.apiKeys).toEqual({ alice: 'alice-key-1', bob: 'bob-key-22' });
  });

  it('reports every invalid variable in one error without echoing secret values', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://secret-pass@x',
        API_KEYS: '{not json',
        LOG_LEVEL: 'loud',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'API_KEYS',
      'DATABASE_URL',
      'LOG_LEVEL',
      'PORT',
    ]);
    expect((error as Error).message).not.toContain('secret-pass');
  });

  it('lets /mcp answer localhost by default, configured hosts besides, and any host only when asked', () => {
    expect(loadConfig({}).mcp.allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(
      loadConfig({ MCP_ALLOWED_HOSTS: 'Memory.Example.com, memory-service-api' }).mcp.allowedHosts,
    ).toEqual(['localhost', '127.0.0.1', '[::1]', 'memory.example.com', 'memory-service-api']);
    expect(loadConfig({ MCP_ALLOWED_HOSTS: '*' }).mcp.allowedHosts).toEqual([]);
  });

  it('extracts session memories with the rules by default; the llm extractor needs its endpoint and model', () => {
    expect(loadConfig({}).sessions).toMatchObject({
      extractor: 'rules',
      llm: { url: undefined, model: undefined, apiKey: undefined, timeoutMs: 30_000 },
    });
    let error: unknown;
    try {
      loadConfig({ SESSION_EXTRACTOR: 'llm', EXTRACTOR_LLM_API_KEY: 'sk-very-secret-value' });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual([
      'EXTRACTOR_LLM_URL: required when SESSION_EXTRACTOR is llm',
      'EXTRACTOR_LLM_MODEL: required when SESSION_EXTRACTOR is llm',
    ]);
    expect((error as Error).message).not.toContain('sk-very-secret-value');
    expect(() => loadConfig({ SESSION_EXTRACTOR: 'gpt' })).toThrow(/SESSION_EXTRACTOR/);
    expect(() => loadConfig({ EXTRACTOR_LLM_URL: 'ftp://x' })).toThrow(/EXTRACTOR_LLM_URL/);
    const llm = loadConfig({
      SESSION_EXTRACTOR: 'llm',
      EXTRACTOR_LLM_URL: 'http://127.0.0.1:11434/v1',
      EXTRACTOR_LLM_MODEL: 'qwen2.5:7b',
      EXTRACTOR_LLM_TIMEOUT_MS: '5000',
    });
    expect(llm.sessions).toMatchObject({
      extractor: 'llm',
      llm: { url: 'http://127.0.0.1:11434/v1', model: 'qwen2.5:7b', timeoutMs: 5000 },
    });
  });

  it('logs pretty lines on a terminal in development and JSON otherwise, unless LOG_FORMAT says', () => {
    const tty = { stdoutIsTty: true };
    const pipe = { stdoutIsTty: false };
    expect(loadConfig({}, tty).log.format).toBe('pretty');
    expect(loadConfig({ NODE_ENV: 'development' }, tty).log.format).toBe('pretty');
    expect(loadConfig({ NODE_ENV: 'production' }, tty).log.format).toBe('json');
    expect(loadConfig({}, pipe).log.format).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'json' }, tty).log.format).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty', NODE_ENV: 'production' }, pipe).log.format).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('reads the metrics port and token, refusing a short token without echoing it', () => {
    expect(loadConfig({}).metrics).toEqual({ port: 0, token: undefined });
    expect(loadConfig({ METRICS_PORT: '9090', METRICS_TOKEN: 'a'.repeat(32) }).metrics).toEqual({
      port: 9090,
      token: 'a'.repeat(32),
    });
    expect(() => loadConfig({ METRICS_TOKEN: 'short-secret' })).toThrow(/METRICS_TOKEN.*value hidden/);
  });

  it('takes each rate-limit budget from its own variable, else from RATE_LIMIT_PER_MINUTE', () => {
    expect(loadConfig({}).http.rateLimits).toEqual({ writes: 600, reads: 600, admin: 600, events: 600 });
    expect(
      loadConfig({
        RATE_LIMIT_PER_MINUTE: '120',
        RATE_LIMIT_WRITES_PER_MINUTE: '100',
        RATE_LIMIT_READS_PER_MINUTE: '0',
        RATE_LIMIT_EVENTS_PER_MINUTE: '',
      }).http.rateLimits,
    ).toEqual({ writes: 100, reads: 0, admin: 120, events: 120 });
    expect(() => loadConfig({ RATE_LIMIT_ADMIN_PER_MINUTE: '-1' })).toThrow(/RATE_LIMIT_ADMIN_PER_MINUTE/);
    expect(() => loadConfig({ RATE_LIMIT_WRITES_PER_MINUTE: 'many' })).toThrow(
      /RATE_LIMIT_WRITES_PER_MINUTE/,
    );
  });

  it('leaves tenants unlimited unless quotas are configured', () => {
    expect(loadConfig({}).quotas).toEqual({ maxMemories: 0, maxMemoryBytes: 0, maxSessionsPerDay: 0 });
    expect(
      loadConfig({
        QUOTA_MAX_MEMORIES: '10000',
        QUOTA_MAX_MEMORY_BYTES: '1073741824',
        QUOTA_MAX_SESSIONS_PER_DAY: '500',
      }).quotas,
    ).toEqual({ maxMemories: 10_000, maxMemoryBytes: 1_073_741_824, maxSessionsPerDay: 500 });
    expect(() => loadConfig({ QUOTA_MAX_MEMORIES: '-5' })).toThrow(/QUOTA_MAX_MEMORIES/);
  });

  it('reads the identity providers it accepts tokens from, and refuses what it could not act on', () => {
    expect(loadConfig({}).oauth).toEqual({
      resource: null,
      issuers: [],
      consoleSessions: { idleSeconds: 3600, maxSeconds: 43_200 },
    });
    const issuers = JSON.stringify([
      { issuer: 'https://idp.example.com/realms/eng', tenant: 'acme', jit_domains: ['Example.COM'] },
      {
        issuer: 'https://login.other.example',
        tenant: 'beta',
        jwks_uri: 'https://login.other.example/keys',
        jit_role: 'admin',
      },
    ]);
    expect(
      loadConfig({ OAUTH_RESOURCE: 'https://memory.example.com/', OAUTH_ISSUERS: issuers }).oauth,
    ).toMatchObject({
      resource: 'https://memory.example.com',
      issuers: [
        {
          issuer: 'https://idp.example.com/realms/eng',
          tenant: 'acme',
          jitDomains: ['example.com'],
          jitRole: 'member',
        },
        {
          issuer: 'https://login.other.example',
          tenant: 'beta',
          jwksUri: 'https://login.other.example/keys',
          jitDomains: [],
          jitRole: 'admin',
        },
      ],
    });
    expect(() => loadConfig({ OAUTH_ISSUERS: issuers })).toThrow(
      /OAUTH_RESOURCE: required when OAUTH_ISSUERS/,
    );
    expect(() => loadConfig({ OAUTH_RESOURCE: 'x', OAUTH_ISSUERS: '[{' })).toThrow(
      /OAUTH_ISSUERS: must be a JSON array/,
    );
    expect(() => loadConfig({ OAUTH_RESOURCE: 'https://m.example/?a=1' })).toThrow(/OAUTH_RESOURCE/);
    expect(() =>
      loadConfig({
        OAUTH_RESOURCE: 'https://m.example',
        OAUTH_ISSUERS: '[{"issuer":"https://i.example","tenant":"Acme"}]',
      }),
    ).toThrow(/tenant is a tenant slug/);
    expect(() =>
      loadConfig({
        OAUTH_RESOURCE: 'https://m.example',
        OAUTH_ISSUERS:
          '[{"issuer":"https://i.example","tenant":"a"},{"issuer":"https://i.example","tenant":"b"}]',
      }),
    ).toThrow(/an issuer may be listed once/);
    expect(() =>
      loadConfig({
        OAUTH_RESOURCE: 'https://m.example',
        OAUTH_ISSUERS: '[{"issuer":"https://i.example","tenant":"a","extra":1}]',
      }),
    ).toThrow(/OAUTH_ISSUERS/);
  });

  it('reads the console clients, keeps their secrets apart and out of every message', () => {
    const secret = 'console-secret-value-1234';
    const issuers = JSON.stringify([
      {
        issuer: 'https://idp.example.com',
        tenant: 'acme',
        console_client_id: 'memory-console',
        console_label: 'Acme SSO',
      },
      { issuer: 'https://public.example', tenant: 'acme', console_client_id: 'spa' },
      { issuer: 'https://tokens-only.example', tenant: 'acme' },
    ]);
    const config = loadConfig({
      OAUTH_RESOURCE: 'https://memory.example.com',
      OAUTH_ISSUERS: issuers,
      OAUTH_CONSOLE_CLIENT_SECRETS: JSON.stringify({ 'https://idp.example.com': secret }),
      CONSOLE_SESSION_IDLE_MINUTES: '30',
      CONSOLE_SESSION_MAX_HOURS: '8',
    });
    expect(config.oauth.issuers.map((i) => i.console)).toEqual([
      { clientId: 'memory-console', label: 'Acme SSO', clientSecret: secret },
      { clientId: 'spa', label: 'public.example' },
      undefined,
    ]);
    expect(config.oauth.consoleSessions).toEqual({ idleSeconds: 1800, maxSeconds: 28_800 });

    const failure = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('expected the configuration to be refused');
    };
    const unknown = failure({
      OAUTH_RESOURCE: 'https://memory.example.com',
      OAUTH_ISSUERS: issuers,
      OAUTH_CONSOLE_CLIENT_SECRETS: JSON.stringify({ 'https://tokens-only.example': secret }),
    });
    expect(unknown).toMatch(/OAUTH_CONSOLE_CLIENT_SECRETS: "https:\/\/tokens-only.example" is not an issuer/);
    expect(unknown).not.toContain(secret);
    const malformed = failure({ OAUTH_CONSOLE_CLIENT_SECRETS: `{"https://idp.example.com": "${secret}"` });
    expect(malformed).toMatch(/OAUTH_CONSOLE_CLIENT_SECRETS: .*\(value hidden\)/);
    expect(malformed).not.toContain(secret);
    // Console cookies need https, except on a loopback address (development, tests).
    expect(failure({ OAUTH_RESOURCE: 'http://memory.internal', OAUTH_ISSUERS: issuers })).toMatch(
      /console sign-in \(console_client_id\) needs an https URL/,
    );
    expect(() =>
      loadConfig({ OAUTH_RESOURCE: 'http://127.0.0.1:8080', OAUTH_ISSUERS: issuers }),
    ).not.toThrow();
    expect(failure({ CONSOLE_SESSION_IDLE_MINUTES: '600', CONSOLE_SESSION_MAX_HOURS: '2' })).toMatch(
      /CONSOLE_SESSION_IDLE_MINUTES: must not be longer/,
    );
  });
});
