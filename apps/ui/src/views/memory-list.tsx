import { useState } from 'preact/hooks';
import { query } from '../api';
import { Badge, TableHead, ErrorNote, Link, Loading, ViewTitle, formatDate } from '../components';
import { useApi } from '../hooks';
import type { ExportedMemory, Me, MemoryItem } from '../types';
import { BranchBadge, CodeStateBadge } from './code-section';

interface Filters {
  category: string;
  tag: string;
  project: string;
  visibility: '' | 'team' | 'private';
  owner: string;
  deleted: boolean;
}

const PAGE = 50;

/**
 * The memories the key can read, filtered on the server. "Deleted" lists your own deleted memories
 * (from the export, which keeps them), filtered here.
 */
export function MemoryListView(props: { me: Me }) {
  const [filters, setFilters] = useState<Filters>({
    category: '',
    tag: '',
    project: '',
    visibility: '',
    owner: '',
    deleted: false,
  });
  const [offset, setOffset] = useState(0);
  const live = useApi<{ memories: MemoryItem[]; total: number }>(
    filters.deleted
      ? null
      : `/api/memories${query({ category: filters.category, tag: filters.tag, project: filters.project, visibility: filters.visibility, author: filters.owner, limit: PAGE, offset })}`,
  );
  const deleted = useApi<ExportedMemory[]>(
    filters.deleted
      ? `/api/memories/export${query({ format: 'json', include_deleted: true, project: filters.project })}`
      : null,
  );
  const categories = useApi<{ categories: string[] }>('/api/categories');

  const set = <K extends keyof Filters>(name: K, value: Filters[K]) => {
    setFilters({ ...filters, [name]: value });
    setOffset(0);
  };
  const rows: MemoryItem[] = filters.deleted
    ? (deleted.data ?? [])
        .filter((m) => m.deleted_at !== null)
        .filter((m) => !filters.category || m.category === filters.category)
        .filter((m) => !filters.tag || m.tags.includes(filters.tag))
        .map((m) => ({
          ...m,
          tags: m.tags.join(','),
          owner: props.me.userId,
          shared_by: null,
          updated_at: m.deleted_at!,
          expires_at: null,
        }))
    : (live.data?.memories ?? []);
  const shown = filters.deleted
    ? rows.filter((m) => !filters.visibility || m.visibility === filters.visibility)
    : rows;
  const loaded = filters.deleted ? deleted : live;

  return (
    <section aria-labelledby="list-title">
      <div class="title-row">
        <ViewTitle>Memories</ViewTitle>
        <Link to="/memories/new" class="button primary">
          New memory
        </Link>
      </div>
      <form class="filters" aria-label="Filter memories" onSubmit={(e) => e.preventDefault()}>
        <label>
          Category
          <select
            value={filters.category}
            onChange={(e) => set('category', (e.target as HTMLSelectElement).value)}
          >
            <option value="">any</option>
            {(categories.data?.categories ?? []).map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        <TextFilter label="Tag" value={filters.tag} onChange={(v) => set('tag', v)} />
        <TextFilter label="Project" value={filters.project} onChange={(v) => set('project', v)} />
        <label>
          Visibility
          <select
            value={filters.visibility}
            onChange={(e) =>
              set('visibility', (e.target as HTMLSelectElement).value as Filters['visibility'])
            }
          >
            <option value="">any</option>
            <option value="team">team</option>
            <option value="private">private</option>
          </select>
        </label>
        <TextFilter label="Owner" value={filters.owner} onChange={(v) => set('owner', v)} />
        <label class="check">
          <input
            type="checkbox"
            checked={filters.deleted}
            onChange={(e) => set('deleted', (e.target as HTMLInputElement).checked)}
          />
          Deleted (mine)
        </label>
      </form>
      <Loading loading={loaded.loading} />
      <ErrorNote error={loaded.error} />
      {loaded.data !== undefined && (
        <>
          <p class="count" aria-live="polite">
            {filters.deleted
              ? `${shown.length} deleted`
              : `${shown.length} shown of ${live.data?.total ?? 0}`}
          </p>
          <MemoryTable rows={shown} />
        </>
      )}
      {!filters.deleted && (
        <div class="pager">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous
          </button>
          <button
            type="button"
            disabled={offset + PAGE >= (live.data?.total ?? 0)}
            onClick={() => setOffset(offset + PAGE)}
          >
            Next
          </button>
        </div>
      )}
    </section>
  );
}

function TextFilter(props: { label: string; value: string; onChange(value: string): void }) {
  return (
    <label>
      {props.label}
      <input
        type="search"
        value={props.value}
        onChange={(e) => props.onChange((e.target as HTMLInputElement).value.trim())}
      />
    </label>
  );
}

export function MemoryTable(props: {
  rows: readonly MemoryItem[];
  extra?: (m: MemoryItem) => preact.ComponentChildren;
}) {
  if (props.rows.length === 0) return <p>No memories.</p>;
  return (
    <table class="memories">
      <TableHead
        columns={['Memory', 'Category', 'Owner', 'Visibility', 'Updated', ...(props.extra ? ['Scores'] : [])]}
      />
      <tbody>
        {props.rows.map((m) => (
          <tr key={m.id}>
            <td>
              <Link to={`/memories/${m.id}`}>{preview(m.content)}</Link>{' '}
              {m.is_sensitive && <Badge tone="warn">sensitive</Badge>} <CodeStateBadge state={m.code_state} />{' '}
              <BranchBadge branch={m.branch} />
              {m.tags && <span class="tags">{m.tags}</span>}
            </td>
            <td>{m.category}</td>
            <td>
              {m.owner}
              {m.shared_by && <Badge>shared</Badge>}
            </td>
            <td>{m.visibility}</td>
            <td>{formatDate(m.updated_at)}</td>
            {props.extra && <td>{props.extra(m)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function preview(text: string, length = 120): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
