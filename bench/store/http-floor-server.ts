/**
 * The store benchmark's second floor: the cheapest HTTP service that does a store's database work.
 * A bare Fastify server (the version the API runs on, no framework, logger, validation or auth)
 * whose one route inserts the posted text as the raw floor's single-row INSERT through a `pg` pool
 * of the API's default size and answers 201 with the new id. Run as its own process, like the API,
 * by `run-store-bench.ts`; it tells the parent its port over IPC.
 *
 *   node dist/bench/store/http-floor-server.js <database url> <tenant id> <owner id>
 */
import Fastify from 'fastify';
import { Pool } from 'pg';

async function main(): Promise<void> {
  const [databaseUrl, tenantId, ownerId] = process.argv.slice(2);
  const pool = new Pool({
    connectionString: databaseUrl,
    max: 10, // the API's default DATABASE_POOL_SIZE
    application_name: 'store-http-floor',
    idleTimeoutMillis: 0, // the pool's backends stay for the whole run: the CPU counters sum them
  });
  const app = Fastify({ logger: false });
  app.post<{ Body: { content?: unknown } }>('/floor', async (request, reply) => {
    const content = request.body?.content;
    if (typeof content !== 'string') return reply.code(400).send({ error: 'content is required' });
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO memories (tenant_id, owner_id, content, category, tags, content_hash)
       VALUES ($1, $2, $3, 'facts', '{ci,cache}', sha256(convert_to($3, 'UTF8'))) RETURNING id`,
      [tenantId, ownerId, content],
    );
    return reply.code(201).send({ id: Number(rows[0].id) });
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  process.send?.({ url: address });
  process.on('SIGTERM', () => {
    void app
      .close()
      .then(() => pool.end())
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
