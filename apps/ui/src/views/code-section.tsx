import { useState } from 'preact/hooks';
import { post } from '../api';
import { Badge, ErrorNote, Link, TableHead, formatDate } from '../components';
import { useAction } from '../hooks';
import type { CodeAnchor, CodeState, MemoryItem, VerifyAnswer } from '../types';

/** A memory's code state where it needs attention (stale or orphaned); nothing while current. */
export function CodeStateBadge(props: { state: CodeState | undefined }) {
  if (props.state !== 'stale' && props.state !== 'orphaned') return null;
  return <Badge tone="warn">code {props.state}</Badge>;
}

/** The branch a memory belongs to until it is merged; nothing for a whole-project memory. */
export function BranchBadge(props: { branch: string | undefined }) {
  return props.branch ? <Badge tone="muted">branch {props.branch}</Badge> : null;
}

/**
 * A memory's code: its anchors with their state, its branch, and — when the code changed since —
 * Verify (it still holds) or Correct… (what holds now). The service decides who may do either.
 */
export function CodeSection(props: { memory: MemoryItem; onChanged(): void }) {
  const m = props.memory;
  const anchors = m.anchors ?? [];
  const action = useAction();
  const [outcome, setOutcome] = useState<VerifyAnswer | null>(null);
  const [correcting, setCorrecting] = useState(false);
  const [correction, setCorrection] = useState('');
  // Kept while an outcome shows: a verify removes the anchors of deleted files, maybe all of them.
  if (anchors.length === 0 && !m.branch && !outcome) return null;
  const changed = m.code_state === 'stale' || m.code_state === 'orphaned';

  const verify = (body: { correction?: string }) =>
    void action.run(async () => {
      setOutcome(null);
      setOutcome(await post<VerifyAnswer>(`/api/memories/${m.id}/verify`, body));
      setCorrecting(false);
      setCorrection('');
      props.onChanged();
    });

  return (
    <section aria-labelledby="code-title">
      <h2 id="code-title">Code</h2>
      {m.branch && (
        <p>
          On branch <code>{m.branch}</code>
          {m.project && <> of {m.project}</>}: served there only until it is merged.
        </p>
      )}
      {anchors.length > 0 && <AnchorTable anchors={anchors} />}
      {changed && (
        <p class="notice">
          The code this memory cites changed since it was written. <strong>Verify</strong> if the memory still
          holds for the code as it is; <strong>Correct…</strong> if it no longer does.
        </p>
      )}
      {anchors.length > 0 && (
        <div class="actions">
          {changed && (
            <button type="button" class="primary" disabled={action.busy} onClick={() => verify({})}>
              Verify
            </button>
          )}
          {!correcting && (
            <button type="button" onClick={() => setCorrecting(true)}>
              Correct…
            </button>
          )}
        </div>
      )}
      {correcting && (
        <form
          class="stacked"
          aria-label="Correct the memory"
          onSubmit={(event) => {
            event.preventDefault();
            verify({ correction });
          }}
        >
          <label for="code-correction">What holds now (replaces this memory)</label>
          <textarea
            id="code-correction"
            required
            rows={4}
            value={correction}
            onInput={(e) => setCorrection((e.target as HTMLTextAreaElement).value)}
          />
          <div class="actions">
            <button type="submit" class="primary" disabled={action.busy}>
              Send correction
            </button>
            <button type="button" onClick={() => setCorrecting(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {outcome && <Outcome answer={outcome} />}
      <ErrorNote error={action.error} />
    </section>
  );
}

function AnchorTable(props: { anchors: readonly CodeAnchor[] }) {
  return (
    <table class="anchors">
      <TableHead columns={['Anchor', 'Repository', 'State']} />
      <tbody>
        {props.anchors.map((a) => (
          <tr key={`${a.repo} ${a.label}`}>
            <td>
              <code>{a.label}</code>
            </td>
            <td>{a.repo}</td>
            <td>
              <Badge tone={a.state === 'current' ? 'ok' : 'warn'}>{a.state}</Badge> {describeChange(a)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function describeChange(anchor: CodeAnchor): string {
  const change = anchor.changed;
  if (anchor.state === 'current') return '';
  if (anchor.state === 'orphaned') return change ? `file deleted ${formatDate(change.at)}` : 'file deleted';
  if (!change) return 'code changed since written';
  const commit = change.commit ? ` · commit ${change.commit.slice(0, 12)}` : '';
  return `code changed since written: ${formatDate(change.at)}${commit}`;
}

function Outcome(props: { answer: VerifyAnswer }) {
  const { answer } = props;
  if (answer.verified) {
    const n = answer.anchors ?? 0;
    return (
      <p role="status">
        Verified: the memory holds for the code as it is ({n} {n === 1 ? 'anchor' : 'anchors'} current).
      </p>
    );
  }
  const by = answer.corrected_by;
  if (!by) return null;
  return (
    <p role="status">
      {by.review_state === 'proposed' ? 'Correction proposed as ' : 'Corrected by '}
      <Link to={`/memories/${by.id}`}>memory {by.id}</Link>
      {by.review_state === 'proposed' && '; it replaces this one once the owner or an admin accepts it'}.
    </p>
  );
}
