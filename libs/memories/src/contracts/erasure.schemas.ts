import { z } from 'zod';
import type { ErasureReceipt } from '../application/erase-user-data.use-case';

/** `DELETE /api/admin/users/:id/data` answer: what was erased, per kind of data. */
export const erasureReceiptResponse = z.object({
  user_id: z.string(),
  username: z.string(),
  memories: z.number().int(),
  embeddings: z.number().int(),
  index_states: z.number().int(),
  tombstones: z.number().int(),
  shares: z.number().int().describe('shares of their memories and with them, by memory and by tag'),
  links: z.number().int().describe('links they made or that touch their memories'),
  versions: z
    .number()
    .int()
    .describe('earlier versions of their memories, and versions they wrote of teammates’ memories'),
  pins: z.number().int().describe('their own pins, and pins of their memories'),
  sessions: z.number().int().describe('their agent sessions'),
  session_events: z.number().int().describe('the events captured in those sessions'),
  idempotency_keys: z.number().int(),
  queued_jobs: z.number().int(),
  vault_secrets: z.number().int().describe('Vault secrets queued for deletion'),
  vault_secrets_deleted: z.number().int().describe('of those, deleted before answering'),
});

export function presentErasureReceipt(receipt: ErasureReceipt): z.infer<typeof erasureReceiptResponse> {
  return {
    user_id: receipt.userId,
    username: receipt.username,
    memories: receipt.memories,
    embeddings: receipt.embeddings,
    index_states: receipt.indexStates,
    tombstones: receipt.tombstones,
    shares: receipt.shares,
    links: receipt.links,
    versions: receipt.versions,
    pins: receipt.pins,
    sessions: receipt.sessions,
    session_events: receipt.sessionEvents,
    idempotency_keys: receipt.idempotencyKeys,
    queued_jobs: receipt.queuedJobs,
    vault_secrets: receipt.vaultSecrets,
    vault_secrets_deleted: receipt.vaultSecretsDeleted,
  };
}
