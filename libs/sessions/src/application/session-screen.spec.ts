import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretDetector } from '@app/secrets';
import { SessionScreen } from './session-screen';

const screen = new SessionScreen(new SecretDetector());
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// Generated, so no token-shaped literal sits in the repository.
const token = `ghp_${[...randomBytes(36)].map((b) => ALNUM[b % ALNUM.length]).join('')}`;

describe('SessionScreen', () => {
  it('redacts secrets in every string of a payload, at any depth, keys included', () => {
    const payload = {
      text: `push with ${token}`,
      steps: [{ command: `curl -H "Authorization: Bearer ${token}"` }, 42, true, null],
      [token]: 'as a key',
    };
    const screened = JSON.stringify(screen.payload(payload));
    expect(screened).not.toContain(token);
    expect(screened).toContain('[REDACTED:');
    expect(screen.payload(payload)).toMatchObject({ steps: [expect.any(Object), 42, true, null] });
  });

  it('redacts a string under a credential-named key whole, whatever it looks like', () => {
    expect(screen.payload({ env: { DB_PASSWORD: 'hunter2', api_key: 'short', user: 'alice' } })).toEqual({
      env: { DB_PASSWORD: '[REDACTED:sensitive]', api_key: '[REDACTED:sensitive]', user: 'alice' },
    });
  });

  it('leaves text without secrets exactly as it was', () => {
    const payload = { text: 'ｆｕｌｌ-width and plain text', n: 1 };
    expect(screen.payload(payload)).toEqual(payload);
    expect(screen.text('Switched to pnpm')).toBe('Switched to pnpm');
  });

  it('redacts a repeated secret every time, while repeated clean keys keep their value', () => {
    const event = { tool: 'Bash', input: { command: `export GH=${token}` } };
    for (let i = 0; i < 3; i++) {
      const screened = screen.payload(event) as { tool: string; input: { command: string } };
      expect(screened.tool).toBe('Bash');
      expect(screened.input.command).not.toContain(token);
      expect(screen.text(token)).not.toContain(token);
    }
  });
});
