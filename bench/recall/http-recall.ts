import { type Principal } from '@app/tenancy';
import { RECALL_LIMIT } from './recall-latency';

/**
 * Recall through the front door: `POST /api/memories/recall` on the running API with the caller's
 * own key, the default agent request (top 10 by relevance). Node's fetch keeps the connection
 * alive, as an agent's HTTP client would.
 */
export class HttpRecallClient {
  constructor(
    private readonly baseUrl: string,
    /** user id → API key */
    private readonly keys: ReadonlyMap<string, string>,
  ) {}

  async recall(principal: Principal, text: string): Promise<{ ms: number; results: number }> {
    const key = this.keys.get(principal.userId);
    if (!key) throw new Error(`no API key for ${principal.username}`);
    const started = performance.now();
    const response = await fetch(`${this.baseUrl}/api/memories/recall`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ context: text, limit: RECALL_LIMIT }),
    });
    const body = (await response.json()) as { memories?: unknown[]; detail?: string };
    const ms = performance.now() - started;
    if (!response.ok) throw new Error(`recall answered ${response.status}: ${body.detail ?? ''}`);
    return { ms, results: body.memories?.length ?? 0 };
  }
}
