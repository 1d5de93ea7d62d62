import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RecallTextIndex1763700000009 } from './1763700000009-recall-text-index';

/**
 * The text leg of recall scores with Okapi BM25 instead of `ts_rank_cd` (which has no inverse
 * document frequency and no length normalisation), over per-tenant term statistics kept in step
 * with every memory write.
 *
 * Tokens. A memory's tokens are the positions of its generated `search_vector` (Snowball English,
 * stop words dropped), each counted by its field: A content 1.0, B expanded keywords 0.4, C tags
 * 0.2, D category 0.1 — `ts_rank`'s default weights, so keywords and tags help as they did without
 * outranking the text itself. A term's frequency `tf` and a document's length `dl` are sums of
 * those weights. They are kept in tenths (10/4/2/1) as integers so the totals below add and
 * subtract exactly, never drifting from a recount.
 *
 * Statistics. Per tenant: live documents `N`, their total length, and per lexeme the number of live
 * documents holding it (`df`); live = not soft-deleted (expired rows count until the expiry job
 * soft-deletes them, minutes later). Writers must not queue behind each other, so no writer
 * touches a shared row: triggers on `memories` only APPEND to `text_stats_deltas` (tenant, the
 * document's distinct lexemes, its length, +1 or -1) — an insert counts +1, a hard delete -1, a
 * soft delete -1, a restore +1, a change to the tokens (content, keywords, tags, category) or a
 * move to another tenant -1 for the old row and +1 for the new one. Inserts never conflict, and the
 * delta commits (or aborts) with the memory change itself, so a snapshot that sees a memory sees
 * its statistics. Readers add the deltas they see to the folded totals (`text_corpus_stats`,
 * `text_term_stats`). `text_stats_fold()` (the worker, every few seconds) moves deltas into the
 * totals in ONE statement — `DELETE … RETURNING` feeding `INSERT … ON CONFLICT` — so every snapshot
 * sees each delta exactly once: still pending, or folded. Folds take an advisory lock and run one
 * at a time. Between folds a reader scans the pending deltas of its tenant (by tenant for N, by
 * lexeme through a GIN index for df); the fold keeps that backlog small. `text_stats_rebuild()`
 * recounts from the rows (the backfill below, and for operators after bulk loads that skipped
 * triggers) in one statement, with the same lock. The same trigger keeps each live memory's length
 * in `memory_text_lengths` (its own row: no contention), so scoring a candidate reads only the
 * query's lexemes from its vector (computing dl again from the vector costs 3× as much). Statistics are tenant-wide: a score reflects how
 * common a term is in the tenant, including memories the caller cannot read (a search engine's
 * usual trade-off; the rows themselves stay out of reach). The tables are for the schema owner
 * only (FORCE RLS, `app.system`); the application role reads them only through the functions below.
 *
 * Search. `recall_text_search(lexemes, k, k1, b, filters…)` (SECURITY DEFINER for the reason
 * migration 1763700000009 gives: under RLS `@@` cannot use the GIN index; the read rule is restated
 * exactly as there, admin branch included) scores
 *   Σ idf·tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)),  idf = ln(1 + (N − df + 0.5)/(df + 0.5))
 * over the query's distinct lexemes with OR semantics, and returns the caller's top k by score, then
 * id (both descending). Candidates come through the GIN index. Exact pruning (MaxScore): terms go
 * rarest first; the first round scores every visible match of the rare terms (up to a budget of
 * postings); then each further (more common) term is scored only while a document matching nothing
 * but the remaining terms could still beat the k-th best score so far — such a document scores
 * below Σ idf·(k1+1) over those terms. A very common term (low idf) in a query with any selective
 * term is therefore never ranked across all its matches.
 */
export class Bm25TextSearch1763700000017 implements MigrationInterface {
  name = 'Bm25TextSearch1763700000017';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SELECT set_config('app.system', 'on', true)`);
    await q.query(`
      -- Weighted count of one lexeme's positions, in tenths (A 10, B 4, C 2, D 1).
      CREATE FUNCTION text_weighted_tf(p_weights text[]) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT 10 * cardinality(array_positions(p_weights, 'A')) + 4 * cardinality(array_positions(p_weights, 'B'))
             + 2 * cardinality(array_positions(p_weights, 'C')) + cardinality(array_positions(p_weights, 'D'))
      $$;
      -- A document's weighted length, in tenths.
      CREATE FUNCTION text_document_length(p_vector tsvector) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT coalesce(sum(text_weighted_tf(u.weights)), 0)::integer FROM unnest(p_vector) u
      $$;
      -- An OR query of lexemes taken as they are (quoted: no parsing, no stemming again).
      CREATE FUNCTION text_lexeme_query(p_lexemes text[]) RETURNS tsquery
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT string_agg('''' || replace(replace(l, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery
          FROM unnest(p_lexemes) l
      $$;

      CREATE TABLE text_stats_deltas (
        tenant_id uuid NOT NULL,
        lexemes   text[] NOT NULL,
        length    integer NOT NULL,
        sign      smallint NOT NULL CHECK (sign IN (-1, 1))
      );
      CREATE INDEX text_stats_deltas_tenant ON text_stats_deltas (tenant_id);
      CREATE INDEX text_stats_deltas_lexemes ON text_stats_deltas USING gin (lexemes);

      -- Each memory's weighted length, so a search does not recount every candidate's tokens.
      CREATE TABLE memory_text_lengths (
        memory_id bigint PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
        length    integer NOT NULL
      );

      CREATE TABLE text_corpus_stats (
        tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        documents bigint NOT NULL,
        length    bigint NOT NULL
      );
      CREATE TABLE text_term_stats (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        lexeme    text NOT NULL,
        documents bigint NOT NULL,
        PRIMARY KEY (tenant_id, lexeme)
      );
    `);
    for (const table of ['text_stats_deltas', 'memory_text_lengths', 'text_corpus_stats', 'text_term_stats']) {
      await q.query(`ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`);
      await q.query(`ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`);
      await q.query(`
        DO $$ BEGIN
          EXECUTE format('CREATE POLICY system_access ON ${table} FOR ALL TO %I USING (app_is_system()) WITH CHECK (app_is_system())', current_user);
        END $$`);
    }
    await q.query(STATISTICS_SQL);
    await q.query(`SELECT text_stats_rebuild(NULL)`);
    await q.query(`DROP FUNCTION recall_text_search(tsquery, integer, text, text[], text, timestamptz, timestamptz)`);
    await q.query(SEARCH_SQL);
    await q.query(`ANALYZE text_stats_deltas, memory_text_lengths, text_corpus_stats, text_term_stats`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP FUNCTION IF EXISTS recall_text_search(text[], integer, double precision, double precision, text, text[], text, timestamptz, timestamptz);
      DROP FUNCTION IF EXISTS recall_text_phase(uuid, uuid, boolean, tsquery, text[], double precision[], double precision, double precision, double precision, integer, text, text[], text, timestamptz, timestamptz);
      DROP TRIGGER IF EXISTS memories_text_stats_insert ON memories;
      DROP TRIGGER IF EXISTS memories_text_stats_update ON memories;
      DROP TRIGGER IF EXISTS memories_text_stats_delete ON memories;
      DROP TRIGGER IF EXISTS memories_text_stats_truncate ON memories;
      DROP FUNCTION IF EXISTS memories_record_text_stats(), memories_truncate_text_stats(),
        text_stats_fold(integer), text_stats_rebuild(uuid), text_term_documents(uuid, text[]),
        text_corpus_totals(uuid);
      DROP TABLE IF EXISTS text_term_stats, text_corpus_stats, memory_text_lengths, text_stats_deltas;
      DROP FUNCTION IF EXISTS text_lexeme_query(text[]), text_document_length(tsvector), text_weighted_tf(text[]);
    `);
    await new RecallTextIndex1763700000009().up(q);
  }
}

/** Advisory lock key of folds and rebuilds ('bm25'). */
const FOLD_LOCK = 1651339573;

const STATISTICS_SQL = `
  CREATE FUNCTION memories_record_text_stats() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
  AS $$
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
      INSERT INTO memory_text_lengths (memory_id, length) VALUES (NEW.id, v_length)
        ON CONFLICT (memory_id) DO UPDATE SET length = EXCLUDED.length;
    END IF;
    RETURN NULL;
  END $$;
  REVOKE ALL ON FUNCTION memories_record_text_stats() FROM PUBLIC;
  CREATE TRIGGER memories_text_stats_insert AFTER INSERT ON memories
    FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION memories_record_text_stats();
  CREATE TRIGGER memories_text_stats_delete AFTER DELETE ON memories
    FOR EACH ROW WHEN (OLD.deleted_at IS NULL) EXECUTE FUNCTION memories_record_text_stats();
  -- Only updates that change what is counted: the tokens, liveness, or the tenant.
  CREATE TRIGGER memories_text_stats_update AFTER UPDATE ON memories
    FOR EACH ROW WHEN ((OLD.deleted_at IS NULL OR NEW.deleted_at IS NULL)
                       AND (OLD.search_vector IS DISTINCT FROM NEW.search_vector
                            OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)
                            OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id))
    EXECUTE FUNCTION memories_record_text_stats();

  CREATE FUNCTION memories_truncate_text_stats() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
  AS $$
  BEGIN
    TRUNCATE text_stats_deltas, memory_text_lengths, text_corpus_stats, text_term_stats;
    RETURN NULL;
  END $$;
  REVOKE ALL ON FUNCTION memories_truncate_text_stats() FROM PUBLIC;
  CREATE TRIGGER memories_text_stats_truncate AFTER TRUNCATE ON memories
    FOR EACH STATEMENT EXECUTE FUNCTION memories_truncate_text_stats();

  -- Live documents and their total length in a tenant: folded totals plus pending deltas.
  CREATE FUNCTION text_corpus_totals(p_tenant uuid, OUT documents bigint, OUT length bigint)
    LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT c.documents FROM text_corpus_stats c WHERE c.tenant_id = p_tenant), 0)
             + coalesce(sum(d.sign), 0),
           coalesce((SELECT c.length FROM text_corpus_stats c WHERE c.tenant_id = p_tenant), 0)
             + coalesce(sum(d.sign * d.length), 0)
      FROM text_stats_deltas d WHERE d.tenant_id = p_tenant
  $$;
  -- Each lexeme's document frequency in a tenant, the same way.
  CREATE FUNCTION text_term_documents(p_tenant uuid, p_lexemes text[])
    RETURNS TABLE (lexeme text, documents bigint) LANGUAGE sql STABLE AS $$
    SELECT l.lexeme,
           coalesce(s.documents, 0)
             + coalesce((SELECT sum(d.sign) FROM text_stats_deltas d
                          WHERE d.tenant_id = p_tenant AND d.lexemes @> ARRAY[l.lexeme]), 0)
      FROM (SELECT DISTINCT x AS lexeme FROM unnest(p_lexemes) x WHERE x <> '') l
      LEFT JOIN text_term_stats s ON s.tenant_id = p_tenant AND s.lexeme = l.lexeme
  $$;
  REVOKE ALL ON FUNCTION text_corpus_totals(uuid), text_term_documents(uuid, text[]) FROM PUBLIC;

  -- Moves up to p_batch pending deltas into the totals; returns how many (0 if another fold runs).
  CREATE FUNCTION text_stats_fold(p_batch integer DEFAULT 10000) RETURNS integer
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
  AS $$
  DECLARE
    v_folded integer;
    v_zero_tenants uuid[];
    v_zero_lexemes text[];
  BEGIN
    IF NOT pg_try_advisory_xact_lock(${FOLD_LOCK}) THEN RETURN 0; END IF;
    WITH moved AS (
      DELETE FROM text_stats_deltas d
       WHERE d.ctid = ANY (ARRAY(SELECT x.ctid FROM text_stats_deltas x LIMIT p_batch))
      RETURNING d.tenant_id, d.lexemes, d.length, d.sign
    ), kept AS (
      -- Deltas of a tenant deleted since are dropped with it.
      SELECT m.* FROM moved m WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = m.tenant_id)
    ), corpus AS (
      INSERT INTO text_corpus_stats AS c (tenant_id, documents, length)
        SELECT k.tenant_id, sum(k.sign), sum(k.sign * k.length) FROM kept k GROUP BY k.tenant_id
      ON CONFLICT (tenant_id) DO UPDATE
        SET documents = c.documents + EXCLUDED.documents, length = c.length + EXCLUDED.length
    ), terms AS (
      INSERT INTO text_term_stats AS s (tenant_id, lexeme, documents)
        SELECT k.tenant_id, l, sum(k.sign) FROM kept k, unnest(k.lexemes) l
         GROUP BY k.tenant_id, l HAVING sum(k.sign) <> 0
      ON CONFLICT (tenant_id, lexeme) DO UPDATE SET documents = s.documents + EXCLUDED.documents
      RETURNING s.tenant_id, s.lexeme, s.documents
    )
    SELECT (SELECT count(*) FROM moved),
           ARRAY(SELECT t.tenant_id FROM terms t WHERE t.documents = 0 ORDER BY t.tenant_id, t.lexeme),
           ARRAY(SELECT t.lexeme FROM terms t WHERE t.documents = 0 ORDER BY t.tenant_id, t.lexeme)
      INTO v_folded, v_zero_tenants, v_zero_lexemes;
    -- A lexeme no live document holds any more: no row, as if it had never been seen.
    DELETE FROM text_term_stats s USING unnest(v_zero_tenants, v_zero_lexemes) z(tenant_id, lexeme)
     WHERE s.tenant_id = z.tenant_id AND s.lexeme = z.lexeme AND s.documents = 0;
    RETURN v_folded;
  END $$;

  -- Recounts a tenant's statistics (NULL: every tenant) from its live rows, in one snapshot.
  CREATE FUNCTION text_stats_rebuild(p_tenant uuid) RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public SET app.system = 'on'
  AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(${FOLD_LOCK});
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
    INSERT INTO memory_text_lengths (memory_id, length)
      SELECT m.id, text_document_length(m.search_vector) FROM memories m
       WHERE m.deleted_at IS NULL AND (p_tenant IS NULL OR m.tenant_id = p_tenant)
    ON CONFLICT (memory_id) DO UPDATE SET length = EXCLUDED.length
      WHERE memory_text_lengths.length <> EXCLUDED.length;
  END $$;
  REVOKE ALL ON FUNCTION text_stats_fold(integer), text_stats_rebuild(uuid) FROM PUBLIC;
`;

/**
 * One round of the search: the caller's visible, filtered memories matching `p_match`, each scored
 * over all query terms, best `p_limit`. The read rule is migration 1763700000009's, branch by branch
 * (the admin branch, or the four others); with plans made for the actual values only one side runs.
 */
const PHASE_SQL = `
  CREATE FUNCTION recall_text_phase(
    p_tenant uuid, p_user uuid, p_admin boolean, p_match tsquery, p_terms text[], p_idf double precision[],
    p_k1 double precision, p_b double precision, p_avgdl double precision, p_limit integer,
    p_category text, p_tags text[], p_project text, p_since timestamptz, p_before timestamptz)
  RETURNS TABLE (memory_id bigint, score double precision)
  LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    RETURN QUERY
      WITH visible AS (
        SELECT m.* FROM memories m
         WHERE p_admin AND m.tenant_id = p_tenant AND m.search_vector @@ p_match
        UNION ALL
        SELECT m.* FROM memories m
         WHERE NOT p_admin AND m.owner_id = p_user AND m.tenant_id = p_tenant AND m.search_vector @@ p_match
        UNION ALL
        SELECT m.* FROM memories m
         WHERE NOT p_admin AND m.tenant_id = p_tenant AND m.visibility = 'team' AND m.owner_id <> p_user
           AND m.search_vector @@ p_match
        UNION ALL
        -- Shares never name the owner as recipient, so these rows are nobody's own.
        SELECT m.* FROM memory_shares s JOIN memories m ON m.id = s.memory_id
         WHERE NOT p_admin AND s.shared_with = p_user AND m.tenant_id = p_tenant AND m.visibility <> 'team'
           AND m.search_vector @@ p_match
        UNION ALL
        -- One row per memory: the rule with its smallest matching tag, none if shared directly.
        SELECT m.* FROM tag_shares t JOIN memories m ON m.owner_id = t.owner_id AND m.tags @> ARRAY[t.tag]
         WHERE NOT p_admin AND t.shared_with = p_user AND m.tenant_id = p_tenant AND m.visibility <> 'team'
           AND m.search_vector @@ p_match
           AND NOT EXISTS (SELECT 1 FROM tag_shares o
                            WHERE o.owner_id = t.owner_id AND o.shared_with = p_user
                              AND o.tag < t.tag AND o.tag = ANY (m.tags))
           AND NOT EXISTS (SELECT 1 FROM memory_shares s WHERE s.memory_id = m.id AND s.shared_with = p_user)
      )
      -- Only the query's own lexemes are unnested: ts_delete twice keeps them and drops the rest.
      SELECT m.id,
             (SELECT sum(p_idf[array_position(p_terms, u.lexeme)] * (text_weighted_tf(u.weights) / 10.0::double precision)
                         * (p_k1 + 1)
                         / (text_weighted_tf(u.weights) / 10.0::double precision
                            + p_k1 * (1 - p_b + p_b * coalesce(l.length, text_document_length(m.search_vector)) / p_avgdl)))
                FROM unnest(ts_delete(m.search_vector, tsvector_to_array(ts_delete(m.search_vector, p_terms)))) u) AS score
        FROM visible m LEFT JOIN memory_text_lengths l ON l.memory_id = m.id
       WHERE m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
         AND (p_category IS NULL OR m.category = p_category) AND (p_tags IS NULL OR m.tags && p_tags)
         AND (p_project IS NULL OR m.project = p_project)
         AND (p_since IS NULL OR m.created_at >= p_since) AND (p_before IS NULL OR m.created_at < p_before)
       ORDER BY 2 DESC, 1 DESC
       LIMIT p_limit;
  END $$;
  REVOKE ALL ON FUNCTION recall_text_phase(uuid, uuid, boolean, tsquery, text[], double precision[], double precision,
    double precision, double precision, integer, text, text[], text, timestamptz, timestamptz) FROM PUBLIC;
`;

/** Postings (tenant-wide df) the first round may take on before common terms wait for the bound. */
const FIRST_ROUND_POSTINGS = 2000;
/** Query terms scored at most (the rarest): the most common ones of a long text add least. */
const MAX_TERMS = 32;

export const SEARCH_SQL = `
  ${PHASE_SQL}
  CREATE FUNCTION recall_text_search(
    p_lexemes text[], p_limit integer, p_k1 double precision, p_b double precision,
    p_category text, p_tags text[], p_project text, p_since timestamptz, p_before timestamptz)
  RETURNS TABLE (memory_id bigint, score double precision)
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  SET app.system = 'on'
  SET plan_cache_mode = force_custom_plan
  -- Recall is many short queries; starting parallel workers costs more than it saves here.
  SET max_parallel_workers_per_gather = 0
  AS $$
  DECLARE
    v_tenant uuid := app_tenant_id();
    v_user uuid := app_user_id();
    v_admin boolean := coalesce(app_is_admin(), false);
    v_docs bigint;
    v_length bigint;
    v_avgdl double precision;
    v_terms text[];
    v_idf double precision[];
    v_df bigint[];
    v_ids bigint[] := '{}';
    v_scores double precision[] := '{}';
    v_first integer := 1;
    v_next integer;
    v_rest double precision;
  BEGIN
    IF v_tenant IS NULL OR v_user IS NULL OR p_lexemes IS NULL OR NOT (p_limit > 0)
       OR NOT (p_k1 >= 0) OR NOT (p_b BETWEEN 0 AND 1) THEN
      RETURN;
    END IF;
    SELECT t.documents, t.length INTO v_docs, v_length FROM text_corpus_totals(v_tenant) t;
    IF NOT (v_docs > 0 AND v_length > 0) THEN RETURN; END IF;
    v_avgdl := v_length::double precision / v_docs;
    -- Terms no live document holds match nothing; the rest go rarest first, ${MAX_TERMS} at most.
    SELECT array_agg(d.lexeme ORDER BY d.documents, d.lexeme),
           array_agg(ln(1 + (v_docs - d.documents + 0.5)::double precision / (d.documents + 0.5)) ORDER BY d.documents, d.lexeme),
           array_agg(d.documents ORDER BY d.documents, d.lexeme)
      INTO v_terms, v_idf, v_df
      FROM (SELECT t.lexeme, t.documents FROM text_term_documents(v_tenant, p_lexemes) t
             WHERE t.documents > 0 ORDER BY t.documents, t.lexeme LIMIT ${MAX_TERMS}) d;
    IF v_terms IS NULL THEN RETURN; END IF;
    -- First round: the rare terms, while their postings stay within the budget (at least one term).
    WHILE v_first < cardinality(v_terms)
          AND (SELECT sum(x) FROM unnest(v_df[1:v_first + 1]) x) <= ${FIRST_ROUND_POSTINGS} LOOP
      v_first := v_first + 1;
    END LOOP;
    v_next := 1;
    WHILE v_next <= cardinality(v_terms) LOOP
      IF v_next > 1 THEN
        -- A document matching none of the terms scored so far scores below this bound.
        SELECT sum(x) * (p_k1 + 1) INTO v_rest FROM unnest(v_idf[v_next:]) x;
        EXIT WHEN cardinality(v_ids) >= p_limit AND v_rest * (1 + 1e-9) < v_scores[p_limit];
      END IF;
      SELECT array_agg(h.id ORDER BY h.score DESC, h.id DESC), array_agg(h.score ORDER BY h.score DESC, h.id DESC)
        INTO v_ids, v_scores
        FROM (SELECT a.id, a.score FROM unnest(v_ids, v_scores) a(id, score)
              UNION ALL
              SELECT r.memory_id, r.score FROM recall_text_phase(
                v_tenant, v_user, v_admin,
                CASE WHEN v_next = 1 THEN text_lexeme_query(v_terms[1:v_first])
                     ELSE text_lexeme_query(v_terms[v_next:v_next]) && !! text_lexeme_query(v_terms[1:v_next - 1]) END,
                v_terms, v_idf, p_k1, p_b, v_avgdl, p_limit,
                p_category, p_tags, p_project, p_since, p_before) r
              ORDER BY 2 DESC, 1 DESC LIMIT p_limit) h;
      v_ids := coalesce(v_ids, '{}');
      v_scores := coalesce(v_scores, '{}');
      v_next := CASE WHEN v_next = 1 THEN v_first + 1 ELSE v_next + 1 END;
    END LOOP;
    RETURN QUERY SELECT a.id, a.score FROM unnest(v_ids, v_scores) a(id, score);
  END $$;
  REVOKE ALL ON FUNCTION recall_text_search(text[], integer, double precision, double precision, text, text[], text,
    timestamptz, timestamptz) FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION recall_text_search(text[], integer, double precision, double precision, text, text[], text,
    timestamptz, timestamptz) TO memory_app;
`;
