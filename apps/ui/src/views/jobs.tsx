import { useState } from 'preact/hooks';
import { post, query } from '../api';
import { Badge, TableHead, ErrorNote, Loading, ProgressBar, ViewTitle, formatDate } from '../components';
import { useAction, useApi, useInterval } from '../hooks';
import type { Job } from '../types';

const POLL_MS = 1_000;
const LIVE = new Set(['queued', 'running']);

/** The tenant's jobs with live progress; start a secret migration or a reindex; retry failed ones. */
export function JobsView() {
  const [state, setState] = useState('');
  const jobs = useApi<{ jobs: Job[] }>(`/api/admin/jobs${query({ state, limit: 50 })}`);
  const [tracked, setTracked] = useState<string[]>([]);
  const [model, setModel] = useState('');
  const action = useAction();
  const anyLive = (jobs.data?.jobs ?? []).some((j) => LIVE.has(j.status)) || tracked.length > 0;
  useInterval(jobs.reload, anyLive ? POLL_MS : null);

  const start = (path: string, body: unknown) =>
    void action.run(async () => {
      const started = await post<{ job_id: string }>(path, body);
      setTracked((t) => [started.job_id, ...t]);
      jobs.reload();
    });

  return (
    <section>
      <ViewTitle>Jobs</ViewTitle>
      <div class="actions">
        <button
          type="button"
          onClick={() => start('/api/admin/secrets/migrate', { dry_run: false })}
          disabled={action.busy}
        >
          Migrate secrets to the secret store
        </button>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            start('/api/admin/embeddings/reindex', { model: model.trim() });
          }}
        >
          <label for="reindex-model">Reindex with model</label>
          <input
            id="reindex-model"
            required
            value={model}
            onInput={(e) => setModel((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={action.busy}>
            Reindex
          </button>
        </form>
      </div>
      <ErrorNote error={action.error} />
      {tracked.map((id) => (
        <TrackedJob key={id} id={id} onSettled={() => setTracked((t) => t.filter((x) => x !== id))} />
      ))}
      <label>
        State
        <select value={state} onChange={(e) => setState((e.target as HTMLSelectElement).value)}>
          {['', 'waiting', 'active', 'delayed', 'completed', 'failed'].map((s) => (
            <option key={s} value={s}>
              {s || 'any'}
            </option>
          ))}
        </select>
      </label>
      <Loading loading={jobs.loading && !jobs.data} />
      <ErrorNote error={jobs.error} />
      <JobTable jobs={jobs.data?.jobs ?? []} onRetried={jobs.reload} />
    </section>
  );
}

/** A job started from this page, followed by its id until it succeeds or fails. */
function TrackedJob(props: { id: string; onSettled(): void }) {
  const job = useApi<Job>(`/api/admin/jobs/${props.id}`);
  const live = !job.data || LIVE.has(job.data.status);
  useInterval(job.reload, live ? POLL_MS : null);
  const j = job.data;
  return (
    <section class="tracked" aria-label={`Job ${props.id}`} aria-live="polite">
      <h2>
        {j?.name ?? 'Job'}{' '}
        <Badge tone={j?.status === 'failed' ? 'warn' : j?.status === 'succeeded' ? 'ok' : undefined}>
          {j?.status ?? '…'}
        </Badge>
      </h2>
      {j?.progress && <ProgressFigures job={j} />}
      {j?.error && <p class="error">{j.error}</p>}
      {!live && (
        <button type="button" onClick={props.onSettled}>
          Dismiss
        </button>
      )}
    </section>
  );
}

function ProgressFigures(props: { job: Job }) {
  const p = props.job.progress ?? {};
  const total = p.total ?? p.found ?? 0;
  const done = p.done ?? p.migrated ?? 0;
  const rest = Object.entries(p).filter(([name]) => name !== 'total' && name !== 'done');
  return (
    <>
      <ProgressBar label={`${props.job.name} progress`} done={done} total={total} />
      <p class="meta">{rest.map(([name, value]) => `${name} ${value}`).join(' · ')}</p>
    </>
  );
}

function JobTable(props: { jobs: Job[]; onRetried(): void }) {
  const action = useAction();
  if (props.jobs.length === 0) return <p>No jobs.</p>;
  return (
    <>
      <ErrorNote error={action.error} />
      <table>
        <TableHead columns={['Job', 'Status', 'Progress', 'Created', 'Finished', 'Actions']} />
        <tbody>
          {props.jobs.map((j) => (
            <tr key={j.id}>
              <td>
                {j.name}
                {j.error && <p class="error">{j.error}</p>}
              </td>
              <td>
                <Badge tone={j.status === 'failed' ? 'warn' : j.status === 'succeeded' ? 'ok' : undefined}>
                  {j.status}
                </Badge>
              </td>
              <td>{j.progress ? <ProgressFigures job={j} /> : '—'}</td>
              <td>{formatDate(j.created_at)}</td>
              <td>{formatDate(j.finished_at)}</td>
              <td>
                {j.status === 'failed' && (
                  <button
                    type="button"
                    onClick={() =>
                      void action.run(async () => {
                        await post(`/api/admin/jobs/${j.id}/retry`);
                        props.onRetried();
                      })
                    }
                  >
                    Retry
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
