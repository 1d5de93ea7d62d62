import { useState } from 'preact/hooks';
import { query } from '../api';
import { ErrorNote, TableHead, Loading, ViewTitle, formatDate } from '../components';
import { useApi } from '../hooks';
import type { AuditEntry } from '../types';

interface Filters {
  actor: string;
  action: string;
  target: string;
  since: string;
}

/** The tenant's audit log, newest first, filtered by actor, action (prefix with *), target, start. */
export function AuditView() {
  const [filters, setFilters] = useState<Filters>({ actor: '', action: '', target: '', since: '' });
  const [cursors, setCursors] = useState<string[]>([]);
  const since = filters.since ? new Date(filters.since).toISOString() : '';
  const page = useApi<{ entries: AuditEntry[]; next_cursor: string | null }>(
    `/api/admin/audit${query({ ...filters, since, cursor: cursors[cursors.length - 1], limit: 50 })}`,
  );
  const field = (name: keyof Filters, label: string, type = 'search') => (
    <label>
      {label}
      <input
        type={type}
        value={filters[name]}
        onChange={(e) => {
          setFilters({ ...filters, [name]: (e.target as HTMLInputElement).value.trim() });
          setCursors([]);
        }}
      />
    </label>
  );
  return (
    <section>
      <ViewTitle>Audit log</ViewTitle>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        {field('actor', 'Actor')}
        {field('action', 'Action (api_key.* for a prefix)')}
        {field('target', 'Target id')}
        {field('since', 'Since', 'datetime-local')}
      </form>
      <Loading loading={page.loading} />
      <ErrorNote error={page.error} />
      <table>
        <TableHead columns={['When', 'Actor', 'Action', 'Target', 'Details']} />
        <tbody>
          {(page.data?.entries ?? []).map((e) => (
            <tr key={e.id}>
              <td>{formatDate(e.created_at)}</td>
              <td>{e.actor ?? e.via}</td>
              <td>
                <code>{e.action}</code>
              </td>
              <td>
                {e.target_type} {e.target_id}
              </td>
              <td class="details">{e.details ? JSON.stringify(e.details) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="pager">
        <button
          type="button"
          disabled={cursors.length === 0}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          disabled={!page.data?.next_cursor}
          onClick={() => page.data?.next_cursor && setCursors([...cursors, page.data.next_cursor])}
        >
          Older
        </button>
      </div>
    </section>
  );
}
