import { claudeMemoryMcpClient } from './claude-memory-mcp-client';
import { teamFixture } from './e2e-env';
import { startApiProcess, type ApiProcess } from './processes';

/**
 * A built API as claude-memory-mcp's client meets it: the shipped default visibility (`team`), jobs
 * in-process, alice, bob and admin in one tenant, and dave (alice of another tenant in the same
 * database) to show that nothing crosses tenants. Call `start` in beforeAll and `stop` in afterAll.
 */
export function clientTeam(overrides: Record<string, string> = {}) {
  const team = teamFixture({ DEFAULT_VISIBILITY: 'team', REDIS_URL: '', ...overrides });
  const elsewhere = teamFixture({ REDIS_URL: '' });
  let api: ApiProcess | undefined;
  const url = () => {
    if (!api) throw new Error('clientTeam: start() first');
    return api.url;
  };
  return {
    team,
    url,
    async start() {
      api = await startApiProcess(team.env);
      // Only to bootstrap dave's tenant and key in the same database; the key then works on `api`.
      const other = await startApiProcess(elsewhere.env);
      await other.stop();
    },
    async stop() {
      await api?.stop();
    },
    alice: () => claudeMemoryMcpClient(url(), team.keys.alice),
    bob: () => claudeMemoryMcpClient(url(), team.keys.bob),
    dave: () => claudeMemoryMcpClient(url(), elsewhere.keys.alice),
  };
}

/** The body `memory_store` sends (all six fields, the client's defaults), with changes. */
export function storeBody(content: string, changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    content,
    category: 'facts',
    tags: '',
    expanded_keywords: '',
    importance: 0.5,
    force_sensitive: false,
    ...changes,
  };
}
