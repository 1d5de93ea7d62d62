import { useState } from 'preact/hooks';
import { query } from '../api';
import { Badge, ErrorNote, Link, Loading, ViewTitle, formatDate } from '../components';
import { useApi } from '../hooks';
import type { Session, TimelineEvent } from '../types';

/** Your sessions (and the team's when the tenant shares them), newest first. */
export function SessionListView() {
  const [project, setProject] = useState('');
  const sessions = useApi<{ sessions: Session[] }>(
    `/api/sessions${query({ team: true, limit: 100, project })}`,
  );
  return (
    <section>
      <ViewTitle>Sessions</ViewTitle>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Project
          <input
            type="search"
            value={project}
            onChange={(e) => setProject((e.target as HTMLInputElement).value.trim())}
          />
        </label>
      </form>
      <Loading loading={sessions.loading} />
      <ErrorNote error={sessions.error} />
      {sessions.data && sessions.data.sessions.length === 0 && <p>No sessions.</p>}
      <ul class="cards">
        {(sessions.data?.sessions ?? []).map((s) => (
          <li key={s.id}>
            <Link to={`/sessions/${s.id}`}>
              {s.agent} · {s.project ?? 'no project'}
            </Link>{' '}
            <Badge tone={s.status === 'active' ? 'ok' : 'muted'}>{s.status}</Badge>
            <p class="meta">
              {s.owner} · started {formatDate(s.started_at)}
              {s.git_branch && <> · {s.git_branch}</>}
            </p>
            {s.summary && <p>{s.summary}</p>}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** One session and its timeline of captured events, oldest first. */
export function SessionDetailView(props: { id: string }) {
  const session = useApi<Session>(`/api/sessions/${props.id}`);
  const timeline = useApi<{ events: TimelineEvent[] }>(`/api/sessions/${props.id}/timeline?window=100`);
  const s = session.data;
  return (
    <section>
      <ViewTitle>Session {s ? `${s.agent} · ${s.project ?? 'no project'}` : ''}</ViewTitle>
      <ErrorNote error={session.error ?? timeline.error} />
      {s && (
        <p class="meta">
          {s.owner} · {s.status} · {formatDate(s.started_at)} → {formatDate(s.ended_at)} ·{' '}
          {s.events_total ?? 0} events
        </p>
      )}
      {s?.summary && <p>{s.summary}</p>}
      <h2>Timeline</h2>
      <Loading loading={timeline.loading} />
      <ol class="timeline">
        {(timeline.data?.events ?? []).map((e) => (
          <li key={e.id}>
            <time dateTime={e.created_at}>{formatDate(e.created_at)}</time> <Badge>{e.kind}</Badge>
            <span>{eventText(e)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

function eventText(event: TimelineEvent): string {
  const p = event.payload;
  const text = p.text ?? p.prompt ?? p.summary ?? p.tool ?? p.command ?? p.message;
  return typeof text === 'string' ? text.slice(0, 300) : JSON.stringify(p).slice(0, 300);
}
