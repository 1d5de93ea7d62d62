import { describe, expect, it } from 'vitest';
import { checkOrigin } from './mcp-origin.hook';

const policy = { allowedOrigins: ['https://agents.example.com', 'http://localhost:6274'], allowedHosts: [] };

describe('checkOrigin', () => {
  it('lets requests without an Origin through (non-browser agents)', () => {
    expect(checkOrigin({ host: 'memory.internal:8080' }, policy)).toBeNull();
  });

  it('allows listed origins, compared after normalisation', () => {
    expect(checkOrigin({ origin: 'https://agents.example.com' }, policy)).toBeNull();
    expect(checkOrigin({ origin: 'HTTPS://Agents.Example.com:443' }, policy)).toBeNull();
    expect(checkOrigin({ origin: 'http://localhost:6274' }, policy)).toBeNull();
  });

  it('refuses other, opaque and malformed origins', () => {
    for (const origin of ['https://evil.example', 'http://localhost:6275', 'null', 'not a url', '']) {
      expect(checkOrigin({ origin }, policy), origin).toMatchObject({ code: 'origin_not_allowed' });
    }
    expect(
      checkOrigin({ origin: 'https://evil.example' }, { allowedOrigins: [], allowedHosts: [] }),
    ).toMatchObject({
      detail: expect.stringContaining('MCP_ALLOWED_ORIGINS'),
    });
  });

  it('checks Host only when hosts are configured, by name or name:port', () => {
    const hosts = { allowedOrigins: [], allowedHosts: ['memory.example.com', '127.0.0.1:8080', '[::1]'] };
    expect(checkOrigin({ host: 'memory.example.com' }, hosts)).toBeNull();
    expect(checkOrigin({ host: 'Memory.Example.com:443' }, hosts)).toBeNull();
    expect(checkOrigin({ host: '127.0.0.1:8080' }, hosts)).toBeNull();
    expect(checkOrigin({ host: '[::1]:9000' }, hosts)).toBeNull();
    expect(checkOrigin({ host: '127.0.0.1:9090' }, hosts)).toMatchObject({ code: 'host_not_allowed' });
    expect(checkOrigin({ host: 'rebound.attacker.example' }, hosts)).toMatchObject({
      code: 'host_not_allowed',
    });
    expect(checkOrigin({}, hosts)).toMatchObject({ code: 'host_not_allowed' });
  });
});
