import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAdminJobResponse, type AdminJob } from '@app/jobs';
import { AdminJobErrorCode } from '@app/jobs';
import { AdminJobRepository } from '@app/jobs';
import { GetAdminJobUseCase } from '@app/jobs';
import { type NewMemory } from '@app/memories';
import { QueryEmbeddingCache } from '@app/embeddings/testing';
import { QueryEmbedder } from '@app/embeddings';
import { RecallMemoriesUseCase, type RecalledMemory } from '@app/recall';
import { type EmbedderProvider } from '@app/embeddings';
import { EmbeddingModelRepository } from '@app/embeddings/testing';
import { MemoryEmbeddingRepository } from '@app/embeddings/testing';
import { RecallCandidateRepository, buildTextLeg } from '@app/recall/testing';
import { MemoryVectorRepository } from '@app/recall/testing';
import { MemoryReadRepository } from '@app/memories/testing';
import { RecallLinks, VectorRecallAdapter } from '@app/recall/testing';
import { RunReindexUseCase } from '@app/embeddings';
import { StartReindexUseCase } from '@app/embeddings';
import { EmbeddingErrorCode } from '@app/embeddings';
import { ALL_SCOPES, type Principal } from '@app/tenancy';
import { createTestTenant, newMemory } from '@app/testing';
import { DeterministicEmbedderProvider } from '@app/testing';
import { embeddingHarness, type EmbeddingHarness } from '../../../test/support/embedding-harness';
import { waitFor } from '../../../test/support/wait-for';

/**
 * Acceptance 3: switching EMBEDDING_MODEL and reindexing keeps recall answering throughout.
 * Memories in two tenants; the reindex (system-wide) fills a second model while vector-only
 * recalls run, then switches the read model atomically. Deterministic test embedders stand in
 * for the models; the job runs through the outbox and the in-process queue as in embedded mode.
 */
// Enough dimensions that a note's own words dominate its hashed vector.
const OLD = 'test-old-64d';
const NEW = 'test-new-96d';
const THIRD = 'test-third-48d';
const BATCH = 16; // EMBEDDING_BATCH_SIZE 4 → reindex steps of 4 × 4 memories

const note = (content: string): NewMemory => newMemory(content, { tags: ['reindex'] });

describe('reindex to another embedding model', () => {
  const embedders = new DeterministicEmbedderProvider(OLD, { [OLD]: 64, [NEW]: 96, [THIRD]: 48 });
  let h: EmbeddingHarness;
  let admin: Principal;
  let alice: Principal;
  let outsiderAdmin: Principal;
  const aliceNotes: { id: number; content: string }[] = [];
  /** Embedded with the first model, then deleted: the reindex passes it by. */
  let deletedNote: number;

  const recallUseCase = () =>
    new RecallMemoriesUseCase(
      h.db.tx,
      buildTextLeg(h.db.tx),
      new VectorRecallAdapter(
        new QueryEmbedder(
          h.db.tx,
          new EmbeddingModelRepository(),
          new QueryEmbeddingCache(0),
          embedders as EmbedderProvider,
        ),
        new MemoryVectorRepository({ exactScanMaxRows: 20_000 }),
      ),
      new RecallCandidateRepository(),
      new RecallLinks(new MemoryReadRepository()),
    );
  /** Vector-only recall of one of alice's notes by its own text: the note itself must come first. */
  const recallNote = async (n: number, recall = recallUseCase()): Promise<RecalledMemory> => {
    const target = aliceNotes[n % aliceNotes.length];
    const found = await recall.execute(alice, {
      context: target.content,
      expandedQuery: '',
      sortBy: 'relevance',
      limit: 3,
      legs: { text: false, vector: true },
    });
    expect(found[0]?.memory.id).toBe(target.id);
    return found[0];
  };
  const job = (id: string) => h.app.get(GetAdminJobUseCase).execute(admin, id);
  const finished = (id: string) =>
    waitFor(`job ${id} finished`, async () => {
      const current = await job(id);
      return current.status === 'succeeded' || current.status === 'failed' ? current : undefined;
    });
  const registry = () =>
    h.db.tx.asSystem(async (tx) => {
      const { rows } = await tx.query<{ id: string; status: string }>(
        `SELECT id, status FROM embedding_models ORDER BY id`,
      );
      return Object.fromEntries(rows.map((r) => [r.id, r.status]));
    });
  const liveMissing = (model: string) =>
    h.db.tx.asSystem((tx) => new MemoryEmbeddingRepository().countLiveMissing(tx, model));

  beforeAll(async () => {
    h = await embeddingHarness('reindex', { EMBEDDING_MODEL: OLD, EMBEDDING_BATCH_SIZE: '4' }, embedders);
    admin = await h.principal('admin', true);
    alice = await h.principal('alice');
    const other = await createTestTenant(h.db, 'reindex-other');
    const carol = await other.addUser('carol');
    outsiderAdmin = { ...alice, ...carol, tenantSlug: other.slug, scopes: ALL_SCOPES };
    for (let i = 0; i < 60; i += 1) {
      const content = `alice note ${i} about topic ${i % 7} ${randomUUID()}`;
      aliceNotes.push({ id: (await h.create.execute(alice, note(content))).id, content });
    }
    for (let i = 0; i < 40; i += 1)
      await h.create.execute(outsiderAdmin, note(`carol note ${i} ${randomUUID()}`));
    deletedNote = (await h.create.execute(alice, note(`deleted before the switch ${randomUUID()}`))).id;
    await waitFor('every memory embedded with the first model', async () =>
      (await liveMissing(OLD)) === 0 ? true : undefined,
    );
    await h.remove.execute(alice, deletedNote);
  });
  afterAll(async () => h?.close());

  it('keeps recall answering from the old model while the new one fills, then switches atomically', async () => {
    expect(await registry()).toEqual({ [OLD]: 'active' });
    embedders.embedder(NEW).delayMs = 60; // long enough to recall many times mid-run

    const started = await h.app.get(StartReindexUseCase).execute(admin, { model: NEW });
    expect(await registry()).toEqual({ [OLD]: 'active', [NEW]: 'filling' });

    const during: { model: string | null; done: number; total: number | null }[] = [];
    let written: number | undefined;
    let current: AdminJob = started;
    for (let n = 0; current.status !== 'succeeded' && current.status !== 'failed'; n += 1) {
      const hit = await recallNote(n);
      current = await job(started.id);
      if (current.status === 'running') {
        during.push({
          model: hit.explanation.model,
          done: current.progress.done,
          total: current.progress.total,
        });
      }
      // A memory written mid-reindex is embedded with both models by its own index job.
      if (n === 2) {
        const id = (await h.create.execute(alice, note(`written during the reindex ${randomUUID()}`))).id;
        await waitFor('both models for the new memory', async () =>
          (await h.embeddingsOf(id)).length === 2 ? true : undefined,
        );
        written = id;
      }
    }
    embedders.embedder(NEW).delayMs = 0;
    console.info(`[reindex] ${during.length} recalls answered while the reindex was running`);
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(during.some((d) => d.total !== null && d.done > 0 && d.done < d.total)).toBe(true);
    // Until the switch commits (with the job's completion), recall uses the old model.
    expect(new Set(during.map((d) => d.model))).toEqual(new Set([OLD]));

    expect(current).toMatchObject({ status: 'succeeded', error: null });
    expect(current.progress.failed).toBe(0);
    expect(current.progress.done).toBe(current.progress.total);
    expect(current.progress.total).toBeGreaterThanOrEqual(100);
    expect(await registry()).toEqual({ [OLD]: 'retired', [NEW]: 'active' });
    expect(await liveMissing(NEW)).toBe(0);
    expect(written).toBeDefined();
    const { rows } = await h.db.tx.asSystem((tx) =>
      tx.query<{ model_id: string }>(
        `SELECT model_id FROM memory_embeddings WHERE memory_id = $1 ORDER BY 1`,
        [written],
      ),
    );
    expect(rows.map((r) => r.model_id)).toEqual([NEW, OLD]);

    // A fresh recall (no cached read model) embeds the query with the new model.
    expect((await recallNote(5)).explanation.model).toBe(NEW);
  });

  it('shows progress to admins of the tenant that started it, and to nobody else', async () => {
    const [latest] = await h.db.tx.asSystem((tx) =>
      new AdminJobRepository().findOpen(tx, 'embeddings.reindex'),
    );
    expect(latest).toBeUndefined();
    const started = await h.app.get(StartReindexUseCase).execute(admin, { model: NEW });
    const done = await finished(started.id);
    const view = toAdminJobResponse(done);
    expect(view).toMatchObject({
      id: started.id,
      kind: 'embeddings.reindex',
      status: 'succeeded',
      error: null,
    });
    expect(view.progress).toEqual({ total: view.progress.done, done: view.progress.done, failed: 0 });
    expect(Date.parse(view.started_at ?? '')).toBeGreaterThanOrEqual(Date.parse(view.created_at));
    expect(Date.parse(view.finished_at ?? '')).toBeGreaterThanOrEqual(Date.parse(view.started_at ?? ''));

    await expect(h.app.get(GetAdminJobUseCase).execute(outsiderAdmin, started.id)).rejects.toMatchObject({
      code: AdminJobErrorCode.NotFound,
    });
    await expect(h.app.get(GetAdminJobUseCase).execute(alice, started.id)).rejects.toThrow(/admin/);
    await expect(h.app.get(StartReindexUseCase).execute(alice, { model: NEW })).rejects.toThrow(/admin/);
    // Row-level security hides the job from the other tenant even without an explicit filter.
    const seen = await h.db.tx.inTenant(outsiderAdmin, (tx) =>
      tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs WHERE id = $1`, [started.id]),
    );
    expect(seen.rows[0].n).toBe(0);
  });

  it('is a no-op when run again: nothing embedded, no row rewritten, the same read model', async () => {
    const snapshot = () =>
      h.db.tx.asSystem(async (tx) => {
        const { rows } = await tx.query<{ memory_id: string; version: string }>(
          `SELECT memory_id, xmin::text AS version FROM memory_embeddings WHERE model_id = $1 ORDER BY memory_id`,
          [NEW],
        );
        return rows;
      });
    const before = await snapshot();
    const texts = embedders.embedder(NEW).textsEmbedded;
    const again = await h.app.get(StartReindexUseCase).execute(admin, { model: NEW });
    expect(await finished(again.id)).toMatchObject({ status: 'succeeded' });
    expect(embedders.embedder(NEW).textsEmbedded).toBe(texts);
    expect(await snapshot()).toEqual(before);
    expect(await registry()).toEqual({ [OLD]: 'retired', [NEW]: 'active' });
  });

  it('gives a memory deleted before the switch and restored after it a vector of the new model', async () => {
    expect(await registry()).toMatchObject({ [NEW]: 'active' });
    expect((await h.embeddingsOf(deletedNote)).map((e) => e.model_id)).toEqual([OLD]);
    await h.restore.execute(alice, deletedNote);
    await waitFor('the restored memory embedded with the active model', async () =>
      (await h.embeddingsOf(deletedNote)).some((e) => e.model_id === NEW) ? true : undefined,
    );
    expect(await liveMissing(NEW)).toBe(0);
  });

  it('refuses a model that cannot be loaded, and a second model while one is filling', async () => {
    await expect(
      h.app.get(StartReindexUseCase).execute(admin, { model: 'no-such-model' }),
    ).rejects.toMatchObject({
      code: EmbeddingErrorCode.InvalidModel,
      message: expect.stringContaining('no-such-model'),
    });
    embedders.embedder(THIRD).delayMs = 200;
    const first = await h.app.get(StartReindexUseCase).execute(admin, { model: THIRD });
    await expect(h.app.get(StartReindexUseCase).execute(admin, { model: OLD })).rejects.toMatchObject({
      code: EmbeddingErrorCode.ReindexInProgress,
    });
    // Asking for the same model again answers with the unfinished job.
    expect((await h.app.get(StartReindexUseCase).execute(admin, { model: THIRD })).id).toBe(first.id);
    embedders.embedder(THIRD).delayMs = 0;
    expect(await finished(first.id)).toMatchObject({ status: 'succeeded' });
    expect(await registry()).toEqual({ [OLD]: 'retired', [NEW]: 'retired', [THIRD]: 'active' });
  });

  it('resumes a re-delivered job from its checkpoint; the final failed attempt marks the job failed', async () => {
    // Back to NEW, run by hand (no queue) so the test controls each delivery.
    const jobs = new AdminJobRepository();
    const row = await h.db.tx.asSystem(async (tx) => {
      const models = new EmbeddingModelRepository();
      await models.markFilling(tx, OLD);
      await tx.query(`DELETE FROM memory_embeddings WHERE model_id = $1`, [OLD]);
      return jobs.insert(admin, tx, {
        kind: 'embeddings.reindex',
        params: { model: OLD },
        createdBy: admin.userId,
      });
    });
    const payload = { tenantId: admin.tenantId, jobId: row.id, model: OLD };
    const run = h.app.get(RunReindexUseCase);
    const old = embedders.embedder(OLD);

    old.failFromCall = old.calls.length + 3; // two batches succeed, then the model is down
    await expect(run.execute(payload)).rejects.toThrow(/told to fail/);
    const stopped = await job(row.id);
    expect(stopped).toMatchObject({ status: 'running', progress: { done: 2 * BATCH, failed: 0 } });
    expect(stopped.checkpoint).toMatchObject({ phase: 'scan' });

    const texts = old.textsEmbedded;
    old.failFromCall = undefined;
    await expect(run.execute(payload)).resolves.toBe('succeeded');
    const live = Number(
      (
        await h.db.tx.asSystem((tx) =>
          tx.query<{ n: string }>(`SELECT count(*) AS n FROM memories WHERE deleted_at IS NULL`),
        )
      ).rows[0].n,
    );
    expect(old.textsEmbedded - texts).toBe(live - 2 * BATCH);
    expect(await registry()).toMatchObject({ [OLD]: 'active', [THIRD]: 'retired' });
    await expect(run.execute(payload)).resolves.toBe('already-finished');

    // A job whose last attempt fails is marked failed, with the reason, and switches nothing.
    const doomed = await h.db.tx.asSystem(async (tx) => {
      await new EmbeddingModelRepository().markFilling(tx, NEW);
      await tx.query(`DELETE FROM memory_embeddings WHERE model_id = $1`, [NEW]);
      return jobs.insert(admin, tx, { kind: 'embeddings.reindex', params: { model: NEW }, createdBy: null });
    });
    embedders.embedder(NEW).failNext = 1_000;
    try {
      await expect(
        run.execute({ tenantId: admin.tenantId, jobId: doomed.id, model: NEW }, { finalAttempt: true }),
      ).rejects.toThrow();
    } finally {
      embedders.embedder(NEW).failNext = 0;
    }
    expect(await job(doomed.id)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/told to fail/),
    });
    expect((await registry())[OLD]).toBe('active');
  });
});
