import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A layout a sharding layer can distribute by tenant (Citus `create_distributed_table(…, 'tenant_id')`):
 * every primary key, unique key and unique index of a tenant-owned table includes `tenant_id`, and every
 * foreign key between tenant-owned tables joins on it. `test/e2e/tenant-layout.test.ts` holds the rule.
 *
 * - `memory_text_lengths` gains `tenant_id` (filled from its memory).
 * - Keys gain `tenant_id` as their last column, so a lookup by id alone still uses the index; the
 *   constraints and indexes keep their names.
 * - Foreign keys to users, memories, sessions, API keys and code events join on (`tenant_id`, id).
 *   The five `ON DELETE SET NULL` ones become `NO ACTION`: a sharding layer cannot set part of a key
 *   that holds the distribution column to null. Users and API keys are never deleted (a tenant's
 *   deletion takes every row that refers to them in the same statement); the code-event purge clears
 *   the anchors' reference to the events it deletes itself.
 * - An API key's hash stays unique across tenants through `api_key_hashes`, a table keyed by the hash
 *   alone (a reference table when distributed), kept by a trigger on `api_keys`: one key never opens
 *   two tenants.
 *
 * Rewrites each table's keys under its lock: the time grows with the data (12 s for 200,000 memories
 * on a 2-core machine); run it in a maintenance window on a large installation.
 */
interface Key {
  readonly table: string;
  readonly name: string;
  readonly kind: 'primary' | 'unique' | 'index';
  readonly columns: readonly string[];
  readonly where?: string;
}

interface ForeignKey {
  readonly table: string;
  readonly name: string;
  readonly columns: readonly string[];
  readonly references: string;
  readonly referenced: readonly string[];
  readonly onDelete: 'CASCADE' | 'SET NULL';
}

const KEYS: readonly Key[] = [
  { table: 'users', name: 'users_pkey', kind: 'primary', columns: ['id'] },
  { table: 'api_keys', name: 'api_keys_pkey', kind: 'primary', columns: ['id'] },
  { table: 'api_keys', name: 'api_keys_key_hash_key', kind: 'unique', columns: ['key_hash'] },
  { table: 'audit_log', name: 'audit_log_pkey', kind: 'primary', columns: ['id'] },
  { table: 'code_events', name: 'code_events_pkey', kind: 'primary', columns: ['id'] },
  { table: 'idempotency_keys', name: 'idempotency_keys_pkey', kind: 'primary', columns: ['user_id', 'key'] },
  { table: 'jobs', name: 'jobs_pkey', kind: 'primary', columns: ['id'] },
  { table: 'memories', name: 'memories_pkey', kind: 'primary', columns: ['id'] },
  { table: 'memories', name: 'memories_id_owner', kind: 'index', columns: ['id', 'owner_id'] },
  {
    table: 'memories',
    name: 'memories_owner_hash_live',
    kind: 'index',
    columns: ['owner_id', 'content_hash'],
    where: 'deleted_at IS NULL AND NOT duplicates_hidden',
  },
  { table: 'memory_anchors', name: 'memory_anchors_pkey', kind: 'primary', columns: ['id'] },
  {
    table: 'memory_anchors',
    name: 'memory_anchors_memory_id_ordinal_key',
    kind: 'unique',
    columns: ['memory_id', 'ordinal'],
  },
  {
    table: 'memory_embeddings',
    name: 'memory_embeddings_pkey',
    kind: 'primary',
    columns: ['memory_id', 'model_id'],
  },
  {
    table: 'memory_endorsements',
    name: 'memory_endorsements_pkey',
    kind: 'primary',
    columns: ['memory_id', 'user_id'],
  },
  { table: 'memory_index_state', name: 'memory_index_state_pkey', kind: 'primary', columns: ['memory_id'] },
  { table: 'memory_links', name: 'memory_links_pkey', kind: 'primary', columns: ['id'] },
  {
    table: 'memory_links',
    name: 'memory_links_src_id_dst_id_link_type_key',
    kind: 'unique',
    columns: ['src_id', 'dst_id', 'link_type'],
  },
  { table: 'memory_pins', name: 'memory_pins_pkey', kind: 'primary', columns: ['id'] },
  {
    table: 'memory_pins',
    name: 'memory_pins_team',
    kind: 'index',
    columns: ['memory_id'],
    where: `scope = 'team'`,
  },
  {
    table: 'memory_pins',
    name: 'memory_pins_user',
    kind: 'index',
    columns: ['memory_id', 'user_id'],
    where: `scope = 'user'`,
  },
  {
    table: 'memory_shares',
    name: 'memory_shares_pkey',
    kind: 'primary',
    columns: ['memory_id', 'shared_with'],
  },
  { table: 'memory_text_lengths', name: 'memory_text_lengths_pkey', kind: 'primary', columns: ['memory_id'] },
  {
    table: 'memory_versions',
    name: 'memory_versions_pkey',
    kind: 'primary',
    columns: ['memory_id', 'version'],
  },
  { table: 'outbox', name: 'outbox_pkey', kind: 'primary', columns: ['id'] },
  { table: 'secret_cleanup', name: 'secret_cleanup_pkey', kind: 'primary', columns: ['id'] },
  { table: 'session_events', name: 'session_events_pkey', kind: 'primary', columns: ['id'] },
  {
    table: 'session_events',
    name: 'session_events_client_id',
    kind: 'index',
    columns: ['session_id', 'client_id'],
  },
  { table: 'sessions', name: 'sessions_pkey', kind: 'primary', columns: ['id'] },
  { table: 'sync_audience_changes', name: 'sync_audience_changes_pkey', kind: 'primary', columns: ['id'] },
  { table: 'sync_state', name: 'sync_state_pkey', kind: 'primary', columns: ['user_id'] },
  {
    table: 'tag_shares',
    name: 'tag_shares_pkey',
    kind: 'primary',
    columns: ['owner_id', 'tag', 'shared_with'],
  },
];

const toUsers = (
  table: string,
  column: string,
  onDelete: ForeignKey['onDelete'] = 'CASCADE',
): ForeignKey => ({
  table,
  name: `${table}_${column}_fkey`,
  columns: [column],
  references: 'users',
  referenced: ['id'],
  onDelete,
});

const toMemories = (table: string, column = 'memory_id'): ForeignKey => ({
  table,
  name: `${table}_${column}_fkey`,
  columns: [column],
  references: 'memories',
  referenced: ['id'],
  onDelete: 'CASCADE',
});

const FOREIGN_KEYS: readonly ForeignKey[] = [
  toUsers('api_keys', 'user_id'),
  {
    table: 'api_keys',
    name: 'api_keys_replaced_by_fkey',
    columns: ['replaced_by'],
    references: 'api_keys',
    referenced: ['id'],
    onDelete: 'SET NULL',
  },
  toUsers('memories', 'owner_id'),
  toMemories('memory_index_state'),
  toMemories('memory_embeddings'),
  toUsers('jobs', 'created_by', 'SET NULL'),
  toUsers('sync_state', 'user_id'),
  {
    table: 'memory_shares',
    name: 'memory_shares_memory_id_owner_id_fkey',
    columns: ['memory_id', 'owner_id'],
    references: 'memories',
    referenced: ['id', 'owner_id'],
    onDelete: 'CASCADE',
  },
  toUsers('memory_shares', 'shared_with'),
  toUsers('tag_shares', 'owner_id'),
  toUsers('tag_shares', 'shared_with'),
  toUsers('memory_links', 'created_by'),
  toMemories('memory_links', 'src_id'),
  toMemories('memory_links', 'dst_id'),
  toUsers('sync_audience_changes', 'user_id'),
  toUsers('sessions', 'user_id'),
  {
    table: 'session_events',
    name: 'session_events_session_id_fkey',
    columns: ['session_id'],
    references: 'sessions',
    referenced: ['id'],
    onDelete: 'CASCADE',
  },
  toUsers('session_events', 'user_id'),
  toMemories('memory_text_lengths'),
  toMemories('memory_endorsements'),
  toUsers('memory_endorsements', 'user_id'),
  toMemories('memory_versions'),
  toUsers('memory_versions', 'author_id', 'SET NULL'),
  toUsers('memory_versions', 'replaced_by', 'SET NULL'),
  toMemories('memory_pins'),
  toUsers('memory_pins', 'user_id'),
  toUsers('code_events', 'reported_by', 'SET NULL'),
  {
    table: 'memory_anchors',
    name: 'memory_anchors_changed_event_fkey',
    columns: ['changed_event'],
    references: 'code_events',
    referenced: ['id'],
    onDelete: 'SET NULL',
  },
  toMemories('memory_anchors'),
];

const list = (columns: readonly string[]): string => columns.join(', ');

function addKey(key: Key, columns: readonly string[]): string {
  switch (key.kind) {
    case 'primary':
      return `ALTER TABLE ${key.table} ADD CONSTRAINT ${key.name} PRIMARY KEY (${list(columns)})`;
    case 'unique':
      return `ALTER TABLE ${key.table} ADD CONSTRAINT ${key.name} UNIQUE (${list(columns)})`;
    case 'index':
      return `CREATE UNIQUE INDEX ${key.name} ON ${key.table} (${list(columns)})${key.where ? ` WHERE ${key.where}` : ''}`;
  }
}

const dropKey = (key: Key): string =>
  key.kind === 'index' ? `DROP INDEX ${key.name}` : `ALTER TABLE ${key.table} DROP CONSTRAINT ${key.name}`;

const addForeignKey = (fk: ForeignKey, tenant: boolean): string => {
  const columns = tenant ? ['tenant_id', ...fk.columns] : fk.columns;
  const referenced = tenant ? ['tenant_id', ...fk.referenced] : fk.referenced;
  const onDelete = tenant && fk.onDelete === 'SET NULL' ? 'NO ACTION' : fk.onDelete;
  return `ALTER TABLE ${fk.table} ADD CONSTRAINT ${fk.name} FOREIGN KEY (${list(columns)})
            REFERENCES ${fk.references} (${list(referenced)}) ON DELETE ${onDelete}`;
};

/** The text-statistics trigger and rebuild, writing `memory_text_lengths` with its tenant (`withTenant`) or as before. */
function textLengthFunctions(withTenant: boolean): string {
  const columns = withTenant ? 'tenant_id, memory_id, length' : 'memory_id, length';
  const target = withTenant ? '(memory_id, tenant_id)' : '(memory_id)';
  return `
  CREATE OR REPLACE FUNCTION memories_record_text_stats() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on' AS $$
  DECLARE
    v_length integer;
  BEGIN
    -- A purge inside a tenant's deletion: the tenant's totals go with it (ON DELETE CASCADE).
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM tenants WHERE id = OLD.tenant_id) THEN
      RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL THEN
      INSERT INTO text_stats_deltas (tenant_id, lexemes, length, sign)
        VALUES (OLD.tenant_id, tsvector_to_array(OLD.search_vector), text_document_length(OLD.search_vector), -1);
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL THEN
      v_length := text_document_length(NEW.search_vector);
      INSERT INTO text_stats_deltas (tenant_id, lexemes, length, sign)
        VALUES (NEW.tenant_id, tsvector_to_array(NEW.search_vector), v_length, 1);
      INSERT INTO memory_text_lengths (${columns})
        VALUES (${withTenant ? 'NEW.tenant_id, ' : ''}NEW.id, v_length)
        ON CONFLICT ${target} DO UPDATE SET length = EXCLUDED.length;
    END IF;
    RETURN NULL;
  END $$;

  CREATE OR REPLACE FUNCTION text_stats_rebuild(p_tenant uuid) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on' AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(1651339573);
    DELETE FROM text_term_stats WHERE p_tenant IS NULL OR tenant_id = p_tenant;
    DELETE FROM text_corpus_stats WHERE p_tenant IS NULL OR tenant_id = p_tenant;
    -- One statement: the deltas removed are exactly those of the changes the recount sees.
    WITH gone AS (
      DELETE FROM text_stats_deltas WHERE p_tenant IS NULL OR tenant_id = p_tenant
    ), docs AS (
      SELECT m.tenant_id, m.search_vector FROM memories m
       WHERE m.deleted_at IS NULL AND (p_tenant IS NULL OR m.tenant_id = p_tenant)
    ), corpus AS (
      INSERT INTO text_corpus_stats (tenant_id, documents, length)
        SELECT d.tenant_id, count(*), sum(text_document_length(d.search_vector)) FROM docs d GROUP BY d.tenant_id
    )
    INSERT INTO text_term_stats (tenant_id, lexeme, documents)
      SELECT d.tenant_id, l, count(*) FROM docs d, unnest(tsvector_to_array(d.search_vector)) l
       GROUP BY d.tenant_id, l;
    INSERT INTO memory_text_lengths (${columns})
      SELECT ${withTenant ? 'm.tenant_id, ' : ''}m.id, text_document_length(m.search_vector) FROM memories m
       WHERE m.deleted_at IS NULL AND (p_tenant IS NULL OR m.tenant_id = p_tenant)
    ON CONFLICT ${target} DO UPDATE SET length = EXCLUDED.length
      WHERE memory_text_lengths.length <> EXCLUDED.length;
  END $$;`;
}

function syncForgetUser(target: string): string {
  return `
  CREATE OR REPLACE FUNCTION sync_forget_user(p_tenant uuid, p_user uuid) RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE removed integer;
  BEGIN
    DELETE FROM sync_audience_changes WHERE user_id = p_user AND tenant_id = p_tenant;
    GET DIAGNOSTICS removed = ROW_COUNT;
    -- Past this transaction: a cursor at its position has not seen the records it removed.
    INSERT INTO sync_state AS s (user_id, tenant_id, min_valid_seq) VALUES (p_user, p_tenant, sync_position() + 1)
      ON CONFLICT ${target} DO UPDATE SET min_valid_seq = greatest(s.min_valid_seq, EXCLUDED.min_valid_seq);
    RETURN removed;
  END $$;`;
}

export class TenantKeys1763700000053 implements MigrationInterface {
  name = 'TenantKeys1763700000053';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE memory_text_lengths ADD COLUMN tenant_id uuid`);
    await q.query(
      `UPDATE memory_text_lengths l SET tenant_id = m.tenant_id FROM memories m WHERE m.id = l.memory_id`,
    );
    await q.query(`ALTER TABLE memory_text_lengths ALTER COLUMN tenant_id SET NOT NULL`);
    await q.query(
      `ALTER TABLE memory_text_lengths ADD CONSTRAINT memory_text_lengths_tenant_id_fkey FOREIGN KEY (tenant_id)
         REFERENCES tenants (id) ON DELETE CASCADE`,
    );
    for (const fk of FOREIGN_KEYS) await q.query(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${fk.name}`);
    for (const key of KEYS) {
      await q.query(dropKey(key));
      await q.query(addKey(key, [...key.columns, 'tenant_id']));
    }
    for (const fk of FOREIGN_KEYS) await q.query(addForeignKey(fk, true));
    await q.query(`
      CREATE TABLE api_key_hashes (
        key_hash  bytea PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE
      );
      ALTER TABLE api_key_hashes ENABLE ROW LEVEL SECURITY;
      ALTER TABLE api_key_hashes FORCE ROW LEVEL SECURITY;
      DO $$ BEGIN
        EXECUTE format('CREATE POLICY system_access ON api_key_hashes FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
      END $$;
      INSERT INTO api_key_hashes (key_hash, tenant_id) SELECT key_hash, tenant_id FROM api_keys;

      -- One key, one tenant: a hash another tenant holds is refused (23505 on api_key_hashes_pkey).
      CREATE FUNCTION api_keys_claim_hash() RETURNS trigger
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on' AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          DELETE FROM api_key_hashes WHERE key_hash = OLD.key_hash AND tenant_id = OLD.tenant_id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          INSERT INTO api_key_hashes (key_hash, tenant_id) VALUES (NEW.key_hash, NEW.tenant_id);
        END IF;
        RETURN NULL;
      END $$;
      REVOKE ALL ON FUNCTION api_keys_claim_hash() FROM PUBLIC;
      CREATE TRIGGER api_keys_claim_hash AFTER INSERT OR DELETE OR UPDATE OF key_hash, tenant_id ON api_keys
        FOR EACH ROW EXECUTE FUNCTION api_keys_claim_hash();
    `);
    await q.query(textLengthFunctions(true));
    await q.query(syncForgetUser('(user_id, tenant_id)'));
    await q.query(`ANALYZE memory_text_lengths, api_key_hashes`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(syncForgetUser('(user_id)'));
    await q.query(textLengthFunctions(false));
    await q.query(`DROP TRIGGER api_keys_claim_hash ON api_keys`);
    await q.query(`DROP FUNCTION api_keys_claim_hash()`);
    await q.query(`DROP TABLE api_key_hashes`);
    for (const fk of [...FOREIGN_KEYS].reverse())
      await q.query(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${fk.name}`);
    for (const key of [...KEYS].reverse()) {
      await q.query(dropKey(key));
      await q.query(addKey(key, key.columns));
    }
    for (const fk of FOREIGN_KEYS) await q.query(addForeignKey(fk, false));
    await q.query(`ALTER TABLE memory_text_lengths DROP COLUMN tenant_id`);
  }
}
