import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The audit actions that are webhook events, and the event each one is. */
const AUDIT_EVENTS: ReadonlyArray<readonly [string, string]> = [
  ['memory.create', 'memory.created'],
  ['memory.update', 'memory.updated'],
  ['memory.verify', 'memory.updated'],
  ['memory.version.restore', 'memory.updated'],
  ['memory.delete', 'memory.deleted'],
  ['memory.bulk_delete', 'memory.deleted'],
  ['memory.purge', 'memory.deleted'],
  ['memory.restore', 'memory.restored'],
  ['memory.share', 'memory.shared'],
  ['memory.share_tag', 'memory.shared'],
  ['memory.unshare', 'memory.unshared'],
  ['memory.unshare_tag', 'memory.unshared'],
  ['memory.propose', 'memory.proposal.created'],
  ['memory.accept', 'memory.proposal.accepted'],
  ['memory.reject', 'memory.proposal.rejected'],
  ['session.end', 'session.ended'],
];

const quoted = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

/**
 * Signed webhooks. A tenant admin registers endpoints (`webhook_endpoints`; the signing secret lives
 * in the secret store, the row keeps its reference). Events come from the writes themselves, in the
 * writing transaction: a trigger on `audit_log` turns the audited memory and session changes into
 * events, one on `memory_anchors` turns an anchor going stale into `memory.stale`. For each enabled
 * endpoint subscribed to the event, `webhook_emit` records a delivery (`webhook_deliveries`, with the
 * payload: ids and metadata only, never content) and a `webhooks.deliver` outbox row, so a committed
 * change always gets its deliveries and a rolled-back one never does. A tenant without endpoints pays
 * one index probe per audited write. The worker sends each delivery and logs every attempt
 * (`webhook_delivery_attempts`).
 */
export class Webhooks1763700000056 implements MigrationInterface {
  name = 'Webhooks1763700000056';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        tenant_id         uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        id                uuid NOT NULL DEFAULT gen_random_uuid(),
        url               text NOT NULL CHECK (length(url) BETWEEN 1 AND 2000),
        description       text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
        events            text[] NOT NULL CHECK (cardinality(events) BETWEEN 1 AND 32),
        enabled           boolean NOT NULL DEFAULT true,
        secret_version    integer NOT NULL DEFAULT 1,
        secret_ref        text NOT NULL,
        secret_store_version integer,
        previous_secret_ref  text,
        previous_secret_store_version integer,
        previous_secret_expires_at timestamptz,
        failure_streak    integer NOT NULL DEFAULT 0,
        disabled_at       timestamptz,
        disabled_reason   text,
        created_by        uuid,
        created_at        timestamptz NOT NULL DEFAULT now(),
        updated_at        timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (tenant_id, id)
      );
      CREATE INDEX webhook_endpoints_enabled ON webhook_endpoints (tenant_id) WHERE enabled;

      CREATE TABLE webhook_deliveries (
        tenant_id       uuid NOT NULL,
        id              uuid NOT NULL DEFAULT gen_random_uuid(),
        endpoint_id     uuid NOT NULL,
        event_id        text NOT NULL,
        event_type      text NOT NULL,
        payload         jsonb NOT NULL,
        status          text NOT NULL DEFAULT 'pending'
                          CHECK (status IN ('pending', 'delivered', 'failed', 'skipped')),
        attempts        integer NOT NULL DEFAULT 0,
        last_status_code integer,
        last_error      text,
        last_attempt_at timestamptz,
        delivered_at    timestamptz,
        created_at      timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (tenant_id, id),
        CONSTRAINT webhook_deliveries_endpoint_fkey FOREIGN KEY (tenant_id, endpoint_id)
          REFERENCES webhook_endpoints(tenant_id, id) ON DELETE CASCADE
      );
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (tenant_id, endpoint_id, created_at DESC, id DESC);
      CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (created_at) WHERE status <> 'pending';

      CREATE TABLE webhook_delivery_attempts (
        tenant_id    uuid NOT NULL,
        delivery_id  uuid NOT NULL,
        attempt      integer NOT NULL,
        attempted_at timestamptz NOT NULL DEFAULT now(),
        status_code  integer,
        duration_ms  integer NOT NULL,
        error        text,
        manual       boolean NOT NULL DEFAULT false,
        CONSTRAINT webhook_delivery_attempts_pkey PRIMARY KEY (tenant_id, delivery_id, attempt),
        CONSTRAINT webhook_delivery_attempts_delivery_fkey FOREIGN KEY (tenant_id, delivery_id)
          REFERENCES webhook_deliveries(tenant_id, id) ON DELETE CASCADE
      );
    `);
    for (const table of ['webhook_endpoints', 'webhook_deliveries', 'webhook_delivery_attempts']) {
      await q.query(
        `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY; ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`,
      );
      await q.query(`
        DO $$ BEGIN
          EXECUTE format('CREATE POLICY system_access ON ${table} FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        END $$`);
      await q.query(`
        CREATE POLICY tenant_rows ON ${table} FOR ALL TO memory_app
          USING (tenant_id = (SELECT app_tenant_id())) WITH CHECK (tenant_id = (SELECT app_tenant_id()));
        GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO memory_app;
      `);
    }

    // Runs as the writer (SECURITY INVOKER): a tenant's write sees that tenant's endpoints only.
    await q.query(`
      CREATE FUNCTION webhook_emit(p_tenant uuid, p_event text, p_data jsonb, p_request_id text)
        RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        v_message text;
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM webhook_endpoints e
                        WHERE e.tenant_id = p_tenant AND e.enabled AND p_event = ANY (e.events)) THEN
          RETURN;
        END IF;
        v_message := 'msg_' || replace(gen_random_uuid()::text, '-', '');
        WITH d AS (
          INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, payload)
          SELECT p_tenant, e.id, v_message, p_event,
                 jsonb_build_object('type', p_event,
                                    'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                                    'data', jsonb_strip_nulls(p_data))
            FROM webhook_endpoints e
           WHERE e.tenant_id = p_tenant AND e.enabled AND p_event = ANY (e.events)
          RETURNING tenant_id, id)
        INSERT INTO outbox (tenant_id, job_name, payload, request_id)
        SELECT d.tenant_id, 'webhooks.deliver',
               jsonb_strip_nulls(jsonb_build_object('tenantId', d.tenant_id, 'deliveryId', d.id,
                                                    'requestId', left(p_request_id, 200))),
               p_request_id
          FROM d;
      END $$;

      -- The event's data: ids and metadata the audit row names (never content, a filter or a reason).
      CREATE FUNCTION webhook_event_from_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        v_event text;
        v_data jsonb;
        v_actor jsonb := jsonb_strip_nulls(jsonb_build_object('user_id', NEW.actor_id, 'key_id', NEW.key_id,
                                                              'via', NEW.details->>'via'));
        v_id text;
      BEGIN
        v_event := CASE NEW.action
          ${AUDIT_EVENTS.map(([action, event]) => `WHEN '${action}' THEN '${event}'`).join('\n          ')}
        END;
        IF v_event IS NULL THEN
          RETURN NULL;
        END IF;
        IF NEW.action = 'memory.bulk_delete' THEN
          -- One event per memory, as a single delete sends.
          FOR v_id IN SELECT i FROM jsonb_array_elements_text(
                              CASE WHEN jsonb_typeof(NEW.details->'ids') = 'array' THEN NEW.details->'ids' ELSE '[]' END) i
                       WHERE i ~ '^[0-9]{1,18}$' LOOP
            PERFORM webhook_emit(NEW.tenant_id, v_event,
                                 jsonb_build_object('memory_id', v_id::bigint, 'actor', v_actor, 'bulk', true),
                                 NEW.request_id);
          END LOOP;
          RETURN NULL;
        END IF;
        v_data := CASE
          WHEN NEW.target_type = 'memory' AND NEW.target_id ~ '^[0-9]{1,18}$'
            THEN jsonb_build_object('memory_id', NEW.target_id::bigint)
          WHEN NEW.target_type = 'tag' THEN jsonb_build_object('tag', NEW.target_id)
          WHEN NEW.target_type = 'session' THEN jsonb_build_object('session_id', NEW.target_id)
          ELSE '{}'::jsonb
        END || jsonb_build_object(
          'actor', v_actor,
          'change', CASE NEW.action WHEN 'memory.verify' THEN 'verify'
                                    WHEN 'memory.version.restore' THEN 'version_restore'
                                    WHEN 'memory.update' THEN 'update' END,
          'fields', NEW.details->'fields',
          'version', NEW.details->'version',
          'restored_version', NEW.details->'restored',
          'purged', CASE WHEN NEW.action = 'memory.purge' THEN true END,
          'shared_with', NEW.details->'with',
          'unshared_from', NEW.details->'from',
          'permission', NEW.details->'permission',
          'supersedes', NEW.details->'supersedes',
          'status', CASE WHEN NEW.action = 'session.end' THEN NEW.details->'status' END);
        PERFORM webhook_emit(NEW.tenant_id, v_event, v_data, NEW.request_id);
        RETURN NULL;
      END $$;

      CREATE TRIGGER audit_log_webhook_events AFTER INSERT ON audit_log
        FOR EACH ROW WHEN (NEW.action IN (${quoted(AUDIT_EVENTS.map(([action]) => action))}))
        EXECUTE FUNCTION webhook_event_from_audit();

      CREATE FUNCTION webhook_event_from_anchor() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM webhook_emit(NEW.tenant_id, 'memory.stale',
                             jsonb_build_object('memory_id', NEW.memory_id, 'repo', NEW.repo, 'path', NEW.path,
                                                'commit', NEW.changed_commit),
                             NULL);
        RETURN NULL;
      END $$;

      CREATE TRIGGER memory_anchors_webhook_stale AFTER UPDATE OF state ON memory_anchors
        FOR EACH ROW WHEN (NEW.state = 'stale' AND OLD.state IS DISTINCT FROM 'stale')
        EXECUTE FUNCTION webhook_event_from_anchor();

      GRANT EXECUTE ON FUNCTION webhook_emit(uuid, text, jsonb, text) TO memory_app;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER IF EXISTS memory_anchors_webhook_stale ON memory_anchors;
      DROP TRIGGER IF EXISTS audit_log_webhook_events ON audit_log;
      DROP FUNCTION IF EXISTS webhook_event_from_anchor();
      DROP FUNCTION IF EXISTS webhook_event_from_audit();
      DROP FUNCTION IF EXISTS webhook_emit(uuid, text, jsonb, text);
      DROP TABLE IF EXISTS webhook_delivery_attempts, webhook_deliveries, webhook_endpoints;
    `);
  }
}
