import { post } from '../api';
import { ErrorNote, Link, Loading, ViewTitle, formatDate } from '../components';
import { useAction, useApi } from '../hooks';
import type { MemoryItem } from '../types';

/** A proposal as `GET /api/memories/proposals` lists it. */
interface Proposal extends MemoryItem {
  review_state: 'proposed';
  /** The memory it would correct; null for a new team memory waiting for an admin. */
  supersedes: number | null;
}

/**
 * The review queue: corrections teammates proposed for memories they may not change, and new team
 * memories where the tenant reviews them. Recall serves none of them until accepted; the service
 * decides who may accept (403 shows as an error here).
 */
export function ReviewView() {
  const page = useApi<{ proposals: Proposal[] }>('/api/memories/proposals?limit=100');
  const action = useAction();
  const decide = async (id: number, decision: 'accept' | 'reject') => {
    if (await action.run(() => post(`/api/memories/${id}/${decision}`, {}))) page.reload();
  };
  const proposals = page.data?.proposals ?? [];
  return (
    <section>
      <ViewTitle>Review queue</ViewTitle>
      <p>
        Proposed corrections and team memories waiting for review. Recall keeps serving the corrected memory
        until its owner or an admin accepts the proposal.
      </p>
      <Loading loading={page.loading} />
      <ErrorNote error={page.error ?? action.error} />
      {!page.loading && proposals.length === 0 ? <p>No proposals wait for review.</p> : null}
      <ul class="proposals">
        {proposals.map((p) => (
          <li key={p.id} class="proposal">
            <p class="meta">
              <Link to={`/memories/${p.id}`}>#{p.id}</Link> by {p.owner}, {formatDate(p.created_at)} ·{' '}
              {p.supersedes === null ? (
                'new team memory'
              ) : (
                <span>
                  corrects <Link to={`/memories/${p.supersedes}`}>#{p.supersedes}</Link>
                </span>
              )}
            </p>
            <blockquote>{p.content}</blockquote>
            <div class="actions">
              <button type="button" disabled={action.busy} onClick={() => decide(p.id, 'accept')}>
                Accept #{p.id}
              </button>
              <button
                type="button"
                class="danger"
                disabled={action.busy}
                onClick={() => decide(p.id, 'reject')}
              >
                Reject #{p.id}
              </button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
