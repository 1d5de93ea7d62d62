import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Quotas per tenant: live memories, bytes of live memory content, sessions started per UTC day.
 *
 * - `tenants.max_memories`, `max_memory_bytes`, `max_sessions_per_day`: the tenant's own ceiling;
 *   NULL takes the configured default (QUOTA_MAX_*), 0 is unlimited.
 * - Usage of memories is counted, not recounted: a store must not COUNT a tenant's 100,000 rows, and
 *   writers must not queue behind a shared counter row. So, as the BM25 statistics do (migration
 *   1763700000017), triggers on `memories` only APPEND to `memory_usage_deltas` (tenant, ±1 memory,
 *   ±bytes): an insert of a live row, a soft delete, a restore, a hard delete of a live row, a
 *   change of a live row's content length, or a move to another tenant. The delta commits with the
 *   change itself. Readers add the pending deltas of their tenant to the folded totals in
 *   `memory_usage`; `memory_usage_fold()` (the worker's `memories.fold-usage` job, every ten seconds)
 *   moves deltas into the totals in one statement under an advisory lock, so every snapshot counts
 *   each delta exactly once. `memory_usage_rebuild()` recounts from the rows (the backfill below,
 *   and for operators after loads that bypassed triggers). Bytes are `octet_length(content)`: the
 *   stored text, so a sensitive memory counts its redacted text.
 * - Sessions per day are counted from the rows (an index on tenant and creation time): a tenant's
 *   sessions of one day are few, and a refused start adds none.
 * - The application role reads usage only through `memory_usage_totals()` and
 *   `sessions_started_today()`, which answer for the caller's own tenant (`app.tenant_id`) only.
 *   Both are checked inside the write's own statement when a quota applies
 *   (`memory_quota_allows()`), so a quota costs no extra round trip.
 */
export class TenantQuotas1763700000025 implements MigrationInterface {
  name = 'TenantQuotas1763700000025';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SELECT set_config('app.system', 'on', true)`);
    await q.query(`
      ALTER TABLE tenants
        ADD COLUMN max_memories bigint CHECK (max_memories >= 0),
        ADD COLUMN max_memory_bytes bigint CHECK (max_memory_bytes >= 0),
        ADD COLUMN max_sessions_per_day integer CHECK (max_sessions_per_day >= 0);

      -- Folded away every ten seconds: vacuumed after a fixed number of dead rows rather than a share of
      -- the table, so a check does not step over a fold's worth of dead index entries for long.
      CREATE TABLE memory_usage_deltas (
        tenant_id uuid NOT NULL,
        memories  integer NOT NULL,
        bytes     bigint NOT NULL
      ) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);
      CREATE INDEX memory_usage_deltas_tenant ON memory_usage_deltas (tenant_id);
      CREATE TABLE memory_usage (
        tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        memories  bigint NOT NULL,
        bytes     bigint NOT NULL
      );
      CREATE INDEX sessions_tenant_created ON sessions (tenant_id, created_at);
    `);
    for (const table of ['memory_usage_deltas', 'memory_usage']) {
      await q.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await q.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
      await q.query(`
        DO $$ BEGIN
          EXECUTE format('CREATE POLICY system_access ON ${table} FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        END $$`);
    }
    await q.query(USAGE_SQL);
    await q.query(`SELECT memory_usage_rebuild(NULL)`);
    await q.query(`ANALYZE memory_usage_deltas, memory_usage`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS memories_usage_insert ON memories;
      DROP TRIGGER IF EXISTS memories_usage_update ON memories;
      DROP TRIGGER IF EXISTS memories_usage_delete ON memories;
      DROP TRIGGER IF EXISTS memories_usage_truncate ON memories;
      DROP FUNCTION IF EXISTS memory_quota_allows(uuid, bigint, bigint, bigint),
        sessions_started_today(uuid), memory_usage_totals(uuid), memory_usage_fold(integer),
        memory_usage_rebuild(uuid), memories_record_usage(), memories_truncate_usage();
      DROP TABLE IF EXISTS memory_usage, memory_usage_deltas;
      DROP INDEX IF EXISTS sessions_tenant_created;
      ALTER TABLE tenants DROP COLUMN IF EXISTS max_memories, DROP COLUMN IF EXISTS max_memory_bytes,
        DROP COLUMN IF EXISTS max_sessions_per_day;
    `);
  }
}

/** Advisory lock key of usage folds and rebuilds ('quot'). */
const USAGE_LOCK = 1903519604;

const SYSTEM_FUNCTION = `SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'`;

const USAGE_SQL = `
  CREATE FUNCTION memories_record_usage() RETURNS trigger LANGUAGE plpgsql ${SYSTEM_FUNCTION}
  AS $$
  BEGIN
    -- A purge inside a tenant's deletion: the tenant's totals go with it (ON DELETE CASCADE).
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM tenants WHERE id = OLD.tenant_id) THEN
      RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.tenant_id = NEW.tenant_id AND OLD.deleted_at IS NULL AND NEW.deleted_at IS NULL THEN
      -- A live memory's content changed length: only its bytes move.
      INSERT INTO memory_usage_deltas (tenant_id, memories, bytes)
        VALUES (NEW.tenant_id, 0, octet_length(NEW.content)::bigint - octet_length(OLD.content));
      RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL THEN
      INSERT INTO memory_usage_deltas (tenant_id, memories, bytes)
        VALUES (OLD.tenant_id, -1, -octet_length(OLD.content)::bigint);
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL THEN
      INSERT INTO memory_usage_deltas (tenant_id, memories, bytes)
        VALUES (NEW.tenant_id, 1, octet_length(NEW.content));
    END IF;
    RETURN NULL;
  END $$;
  REVOKE ALL ON FUNCTION memories_record_usage() FROM PUBLIC;
  CREATE TRIGGER memories_usage_insert AFTER INSERT ON memories
    FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION memories_record_usage();
  CREATE TRIGGER memories_usage_delete AFTER DELETE ON memories
    FOR EACH ROW WHEN (OLD.deleted_at IS NULL) EXECUTE FUNCTION memories_record_usage();
  -- Only updates that change what is counted: liveness, the content's length, or the tenant.
  -- (octet_length reads a stored value's size without decompressing it.)
  CREATE TRIGGER memories_usage_update AFTER UPDATE ON memories
    FOR EACH ROW WHEN ((OLD.deleted_at IS NULL OR NEW.deleted_at IS NULL)
                       AND ((OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)
                            OR octet_length(OLD.content) <> octet_length(NEW.content)
                            OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id))
    EXECUTE FUNCTION memories_record_usage();

  CREATE FUNCTION memories_truncate_usage() RETURNS trigger LANGUAGE plpgsql ${SYSTEM_FUNCTION}
  AS $$
  BEGIN
    TRUNCATE memory_usage_deltas, memory_usage;
    RETURN NULL;
  END $$;
  REVOKE ALL ON FUNCTION memories_truncate_usage() FROM PUBLIC;
  CREATE TRIGGER memories_usage_truncate AFTER TRUNCATE ON memories
    FOR EACH STATEMENT EXECUTE FUNCTION memories_truncate_usage();

  -- Live memories and their content bytes in the caller's tenant: folded totals plus pending deltas.
  CREATE FUNCTION memory_usage_totals(p_tenant uuid, OUT memories bigint, OUT bytes bigint)
    LANGUAGE plpgsql STABLE ${SYSTEM_FUNCTION}
  AS $$
  DECLARE
    v_memories bigint;
    v_bytes bigint;
  BEGIN
    IF p_tenant IS DISTINCT FROM app_tenant_id() THEN
      RAISE EXCEPTION 'usage of another tenant' USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT coalesce(sum(d.memories), 0), coalesce(sum(d.bytes), 0) INTO v_memories, v_bytes
      FROM memory_usage_deltas d WHERE d.tenant_id = p_tenant;
    SELECT v_memories + coalesce(u.memories, 0), v_bytes + coalesce(u.bytes, 0) INTO memories, bytes
      FROM (SELECT 1) one LEFT JOIN memory_usage u ON u.tenant_id = p_tenant;
  END $$;

  -- Sessions the caller's tenant created since the start of the current UTC day.
  CREATE FUNCTION sessions_started_today(p_tenant uuid) RETURNS bigint
    LANGUAGE plpgsql STABLE ${SYSTEM_FUNCTION}
  AS $$
  BEGIN
    IF p_tenant IS DISTINCT FROM app_tenant_id() THEN
      RAISE EXCEPTION 'usage of another tenant' USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN (SELECT count(*) FROM sessions s
             WHERE s.tenant_id = p_tenant
               AND s.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC');
  END $$;

  -- Whether one more memory of p_adding bytes (an update: p_max_memories 0 and the growth) fits the
  -- quotas given (0 = unlimited). A write that shrinks content always fits.
  CREATE FUNCTION memory_quota_allows(p_tenant uuid, p_max_memories bigint, p_max_bytes bigint, p_adding bigint)
    RETURNS boolean LANGUAGE sql STABLE
  AS $$
    SELECT (p_max_memories = 0 OR t.memories < p_max_memories)
       AND (p_max_bytes = 0 OR p_adding <= 0 OR t.bytes + p_adding <= p_max_bytes)
      FROM memory_usage_totals(p_tenant) t
  $$;
  REVOKE ALL ON FUNCTION memory_usage_totals(uuid), sessions_started_today(uuid),
    memory_quota_allows(uuid, bigint, bigint, bigint) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION memory_usage_totals(uuid), sessions_started_today(uuid),
    memory_quota_allows(uuid, bigint, bigint, bigint) TO memory_app;

  -- Moves up to p_batch pending deltas into the totals; returns how many (0 if another fold runs).
  CREATE FUNCTION memory_usage_fold(p_batch integer DEFAULT 10000) RETURNS integer
    LANGUAGE plpgsql VOLATILE ${SYSTEM_FUNCTION}
  AS $$
  DECLARE
    v_folded integer;
  BEGIN
    IF NOT pg_try_advisory_xact_lock(${USAGE_LOCK}) THEN RETURN 0; END IF;
    WITH moved AS (
      DELETE FROM memory_usage_deltas d
       WHERE d.ctid = ANY (ARRAY(SELECT x.ctid FROM memory_usage_deltas x LIMIT p_batch))
      RETURNING d.tenant_id, d.memories, d.bytes
    ), folded AS (
      -- Deltas of a tenant deleted since are dropped with it.
      INSERT INTO memory_usage AS u (tenant_id, memories, bytes)
        SELECT m.tenant_id, sum(m.memories), sum(m.bytes) FROM moved m
         WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = m.tenant_id)
         GROUP BY m.tenant_id
      ON CONFLICT (tenant_id) DO UPDATE
        SET memories = u.memories + EXCLUDED.memories, bytes = u.bytes + EXCLUDED.bytes
    )
    SELECT count(*) INTO v_folded FROM moved;
    RETURN v_folded;
  END $$;

  -- Recounts a tenant's usage (NULL: every tenant) from its live rows, in one snapshot.
  CREATE FUNCTION memory_usage_rebuild(p_tenant uuid) RETURNS void
    LANGUAGE plpgsql VOLATILE ${SYSTEM_FUNCTION}
  AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(${USAGE_LOCK});
    DELETE FROM memory_usage WHERE p_tenant IS NULL OR tenant_id = p_tenant;
    -- One statement: the deltas removed are exactly those of the changes the recount sees.
    WITH gone AS (
      DELETE FROM memory_usage_deltas WHERE p_tenant IS NULL OR tenant_id = p_tenant
    )
    INSERT INTO memory_usage (tenant_id, memories, bytes)
      SELECT m.tenant_id, count(*), coalesce(sum(octet_length(m.content)), 0) FROM memories m
       WHERE m.deleted_at IS NULL AND (p_tenant IS NULL OR m.tenant_id = p_tenant)
       GROUP BY m.tenant_id;
  END $$;
  REVOKE ALL ON FUNCTION memory_usage_fold(integer), memory_usage_rebuild(uuid) FROM PUBLIC;
`;
