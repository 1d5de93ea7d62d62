import type { Tx } from './tx';

/** Install-wide generated secrets (`server_secrets`, system-only): run inside `asSystem`. */
export class ServerSecretRepository {
  /**
   * Stores `candidate` under `name` unless a value exists, then returns the stored value: every
   * process of the installation converges on whichever value was inserted first.
   */
  async getOrCreate(tx: Tx, name: string, candidate: Buffer): Promise<Buffer> {
    await tx.query(`INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [
      name,
      candidate,
    ]);
    const { rows } = await tx.query<{ value: Buffer }>(`SELECT value FROM server_secrets WHERE name = $1`, [
      name,
    ]);
    return rows[0].value;
  }
}
