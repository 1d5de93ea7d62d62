import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Vector search storage and long-running admin jobs.
 *
 * - `embedding_models`: the registry. At most one `active` model (the read model); a `filling`
 *   model is being populated by a reindex job while the active one keeps serving; `retired`
 *   models keep their rows until an operator drops them.
 * - `memory_embeddings`: one row per memory per model. `embedding` is an untyped `vector` so
 *   models of different sizes share the table; each model gets its own partial HNSW index on
 *   `(embedding::vector(D))`, created by the application when the model is registered (the
 *   dimension is only known then). Only immutable data lives here: updating a row whose vector is
 *   HNSW-indexed re-inserts it into the graph, so counters and timestamps stay elsewhere.
 * - `jobs`: progress of admin jobs (reindex now, secret migration later), readable by the tenant
 *   that started them.
 */
export class MemoryEmbeddings1763700000003 implements MigrationInterface {
  name = 'MemoryEmbeddings1763700000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE embedding_models (
        id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$'),
        dimensions    integer NOT NULL CHECK (dimensions BETWEEN 1 AND 2000),
        status        text NOT NULL CHECK (status IN ('filling', 'active', 'retired')),
        created_at    timestamptz NOT NULL DEFAULT now(),
        activated_at  timestamptz
      );
      -- Exactly one read model at a time: a second 'active' row cannot be committed.
      CREATE UNIQUE INDEX embedding_models_one_active ON embedding_models ((true)) WHERE status = 'active';

      CREATE TABLE memory_embeddings (
        memory_id   bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        model_id    text NOT NULL REFERENCES embedding_models(id),
        tenant_id   uuid NOT NULL,
        owner_id    uuid NOT NULL,
        embedding   vector NOT NULL,
        -- sha256 of the embedded text: a reindex skips rows whose input has not changed.
        input_hash  bytea NOT NULL CHECK (octet_length(input_hash) = 32),
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (memory_id, model_id)
      );
      -- Sizes the caller's candidate set (exact scan or HNSW) and feeds the exact scan.
      CREATE INDEX memory_embeddings_model_owner ON memory_embeddings (model_id, owner_id);

      CREATE TABLE jobs (
        id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        kind         text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_.-]{0,63}$'),
        status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
        params       jsonb NOT NULL DEFAULT '{}',
        progress     jsonb NOT NULL DEFAULT '{"total": null, "done": 0, "failed": 0}',
        -- Opaque resume point owned by the job kind (e.g. the last memory id done), so a
        -- re-delivered job continues where the previous run stopped.
        checkpoint   jsonb,
        error        text,
        created_by   uuid REFERENCES users(id) ON DELETE SET NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        started_at   timestamptz,
        finished_at  timestamptz
      );
      CREATE INDEX jobs_tenant_created ON jobs (tenant_id, created_at DESC);
    `);

    for (const table of ['embedding_models', 'memory_embeddings', 'jobs']) {
      await q.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await q.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
      await q.query(`
        DO $$ BEGIN
          EXECUTE format('CREATE POLICY system_access ON ${table} FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        END $$`);
    }

    await q.query(`
      -- The registry is install-wide and not secret; only system transactions change it.
      CREATE POLICY read_all ON embedding_models FOR SELECT TO memory_app USING (true);

      -- Tenant read: team-visible memories' vectors must be searchable by teammates, and
      -- visibility lives on memories. Every search joins memories, whose own policy hides other
      -- users' private rows, so a private memory never comes back through a vector query.
      CREATE POLICY tenant_read ON memory_embeddings FOR SELECT TO memory_app
        USING (tenant_id = app_tenant_id());
      CREATE POLICY owner_insert ON memory_embeddings FOR INSERT TO memory_app
        WITH CHECK (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      CREATE POLICY owner_update ON memory_embeddings FOR UPDATE TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id())
        WITH CHECK (tenant_id = app_tenant_id() AND owner_id = app_user_id());
      CREATE POLICY owner_delete ON memory_embeddings FOR DELETE TO memory_app
        USING (tenant_id = app_tenant_id() AND owner_id = app_user_id());

      CREATE POLICY tenant_read ON jobs FOR SELECT TO memory_app USING (tenant_id = app_tenant_id());
      CREATE POLICY tenant_insert ON jobs FOR INSERT TO memory_app WITH CHECK (tenant_id = app_tenant_id());
      CREATE POLICY tenant_update ON jobs FOR UPDATE TO memory_app
        USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id());

      GRANT SELECT ON embedding_models TO memory_app;
      GRANT SELECT, INSERT, UPDATE, DELETE ON memory_embeddings TO memory_app;
      GRANT SELECT, INSERT, UPDATE ON jobs TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    // Dropping the table drops every per-model partial HNSW index with it.
    await q.query(`DROP TABLE IF EXISTS jobs, memory_embeddings, embedding_models CASCADE`);
  }
}
