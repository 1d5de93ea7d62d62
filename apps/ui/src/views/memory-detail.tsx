import { useState } from 'preact/hooks';
import { ApiError, del, post, query } from '../api';
import { Badge, ConfirmDialog, ErrorNote, Link, Loading, ViewTitle, formatDate } from '../components';
import { describeError, useAction, useApi } from '../hooks';
import { navigate } from '../router';
import type { AuditEntry, Me, MemoryDetail, MyShares } from '../types';
import { BranchBadge, CodeSection, CodeStateBadge } from './code-section';
import { SharePanel } from './share-panel';
import { VersionHistory } from './version-history';

interface Revealed {
  content: string;
  source: string;
}

/** One memory: its text (redacted when sensitive), links, shares, history, and what may be done to it. */
export function MemoryDetailView(props: { id: number; me: Me }) {
  const memory = useApi<MemoryDetail>(`/api/memories/${props.id}`);
  const action = useAction();
  const [confirmReveal, setConfirmReveal] = useState(false);
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [revealError, setRevealError] = useState<string | undefined>(undefined);
  const [deleted, setDeleted] = useState(false);
  const shares = useShares(memory.data !== undefined && memory.data.owner === props.me.userId, props.id);

  if (memory.error) {
    return (
      <section>
        <ViewTitle>Memory {props.id}</ViewTitle>
        <ErrorNote error={memory.error} />
        <p>A deleted memory of yours can be restored.</p>
        <button
          type="button"
          onClick={() =>
            void action.run(async () => {
              await post(`/api/memories/${props.id}/restore`);
              memory.reload();
            })
          }
        >
          Restore
        </button>
        <ErrorNote error={action.error} />
      </section>
    );
  }
  const m = memory.data;
  if (!m) return <Loading loading />;
  const mine = m.owner === props.me.userId;
  const canManage = mine || props.me.isAdmin;

  const reveal = async () => {
    setConfirmReveal(false);
    setRevealError(undefined);
    try {
      setRevealed(await post<Revealed>(`/api/memories/${m.id}/secret`));
    } catch (failure) {
      setRevealError(
        failure instanceof ApiError && failure.status === 403
          ? `Not revealed: ${failure.message}`
          : `Not revealed: ${describeError(failure)}`,
      );
    }
  };

  return (
    <section>
      <ViewTitle>Memory {m.id}</ViewTitle>
      <p class="meta">
        <Badge>{m.category}</Badge> <Badge tone="muted">{m.visibility}</Badge>{' '}
        {m.is_sensitive && <Badge tone="warn">sensitive</Badge>} <CodeStateBadge state={m.code_state} />{' '}
        <BranchBadge branch={m.branch} /> by <strong>{m.owner}</strong>
        {m.shared_by && <> (shared with you)</>} · importance {m.importance}
        {m.project && <> · project {m.project}</>}
      </p>
      <pre class="content" aria-label="Content">
        {m.content}
      </pre>
      {m.tags && <p>Tags: {m.tags.split(',').join(', ')}</p>}
      {m.is_sensitive && (
        <div class="reveal">
          {!revealed && (
            <button type="button" onClick={() => setConfirmReveal(true)}>
              Reveal secret…
            </button>
          )}
          {revealed && (
            <div role="region" aria-label="Revealed secret">
              <pre class="content secret">{revealed.content}</pre>
              <p class="hint">From the {revealed.source} store; this reveal was recorded in the audit log.</p>
              <button type="button" onClick={() => setRevealed(null)}>
                Hide
              </button>
            </div>
          )}
          {revealError && (
            <p class="error" role="alert">
              {revealError}
            </p>
          )}
        </div>
      )}
      <ConfirmDialog
        open={confirmReveal}
        title="Reveal the secret?"
        confirmLabel="Reveal"
        onConfirm={() => void reveal()}
        onCancel={() => setConfirmReveal(false)}
      >
        <p>The original text, secret included, will show on this screen. Every reveal is audited.</p>
      </ConfirmDialog>

      <div class="actions">
        <Link to={`/memories/${m.id}/edit`} class="button">
          Edit
        </Link>
        {canManage && !deleted && (
          <button
            type="button"
            class="danger"
            onClick={() =>
              void action.run(async () => {
                await del(`/api/memories/${m.id}`);
                setDeleted(true);
              })
            }
          >
            Delete
          </button>
        )}
        {deleted && (
          <>
            <span role="status">Deleted.</span>
            <button
              type="button"
              onClick={() =>
                void action.run(async () => {
                  await post(`/api/memories/${m.id}/restore`);
                  setDeleted(false);
                })
              }
            >
              Restore
            </button>
            <button type="button" onClick={() => navigate('/memories')}>
              Back to the list
            </button>
          </>
        )}
      </div>
      <ErrorNote error={action.error} />

      <CodeSection memory={m} onChanged={memory.reload} />
      <h2>Links</h2>
      {m.links_out.length + m.links_in.length === 0 ? (
        <p>No links.</p>
      ) : (
        <ul>
          {[...m.links_out, ...m.links_in].map((l) => (
            <li key={l.link_id}>
              {l.dir === 'out' ? `${l.type} →` : `← ${l.type}`}{' '}
              <Link to={`/memories/${l.id}`}>memory {l.id}</Link>
            </li>
          ))}
        </ul>
      )}
      {canManage && <SharePanel memoryId={m.id} visibility={m.visibility} shares={shares} />}
      <h2>History</h2>
      <ul>
        <li>Created {formatDate(m.created_at)}</li>
        <li>Last changed {formatDate(m.updated_at)}</li>
        {m.expires_at && <li>Expires {formatDate(m.expires_at)}</li>}
        {m.links_in
          .filter((l) => l.type === 'supersedes')
          .map((l) => (
            <li key={l.link_id}>
              Replaced by <Link to={`/memories/${l.id}`}>memory {l.id}</Link>
            </li>
          ))}
      </ul>
      <h3>Versions</h3>
      <VersionHistory memoryId={m.id} onRestored={memory.reload} />
      {props.me.isAdmin && <AuditTrail memoryId={m.id} />}
    </section>
  );
}

function useShares(mine: boolean, memoryId: number) {
  const shares = useApi<MyShares>(mine ? '/api/memories/my-shares' : null);
  return {
    rows: (shares.data?.memory_shares ?? []).filter((s) => s.memory_id === memoryId),
    reload: shares.reload,
    known: mine,
  };
}

function AuditTrail(props: { memoryId: number }) {
  const audit = useApi<{ entries: AuditEntry[] }>(
    `/api/admin/audit${query({ target: props.memoryId, limit: 50 })}`,
  );
  return (
    <>
      <h3>Audit trail</h3>
      <ErrorNote error={audit.error} />
      <ul>
        {(audit.data?.entries ?? []).map((e) => (
          <li key={e.id}>
            {formatDate(e.created_at)} — {e.action} by {e.actor ?? e.via}
          </li>
        ))}
      </ul>
    </>
  );
}
