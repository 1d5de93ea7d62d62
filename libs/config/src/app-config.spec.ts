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
});
