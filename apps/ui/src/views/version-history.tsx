import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { Badge, ConfirmDialog, ErrorNote, Loading, TableHead, formatDate } from '../components';
import { useAction, useApi } from '../hooks';
import type { MemoryVersions, VersionDiff } from '../types';

const SIGN = { equal: ' ', insert: '+', delete: '-' } as const;

const shown = (value: unknown): string => (Array.isArray(value) ? value.join(', ') : String(value));

/**
 * A memory's earlier versions (newest first): who changed what and when, a diff of any version
 * with the current state, and a restore (a new change; the state it replaces becomes a version).
 */
export function VersionHistory(props: { memoryId: number; onRestored: () => void }) {
  const versions = useApi<MemoryVersions>(`/api/memories/${props.memoryId}/versions?limit=200`);
  const action = useAction();
  const [diff, setDiff] = useState<VersionDiff | null>(null);
  const [restoring, setRestoring] = useState<number | null>(null);

  const showDiff = (version: number) =>
    void action.run(async () => {
      setDiff(await get<VersionDiff>(`/api/memories/${props.memoryId}/versions/diff?from=${version}`));
    });
  const restore = (version: number) => {
    setRestoring(null);
    void action.run(async () => {
      await post(`/api/memories/${props.memoryId}/versions/${version}/restore`);
      setDiff(null);
      versions.reload();
      props.onRestored();
    });
  };

  if (versions.error) return <ErrorNote error={versions.error} />;
  const list = versions.data?.versions;
  if (!list) return <Loading loading />;
  if (list.length === 0) return <p>No earlier versions: this memory has not been changed.</p>;
  return (
    <>
      <table aria-label="Versions">
        <TableHead columns={['version', 'written', 'by', 'then changed', '']} />
        <tbody>
          {list.map((v) => (
            <tr key={v.version}>
              <td>
                {v.version} {v.is_sensitive && <Badge tone="warn">sensitive</Badge>}
              </td>
              <td>{formatDate(v.created_at)}</td>
              <td>{v.author ?? 'unknown'}</td>
              <td>
                {v.changed_fields.join(', ')} by {v.replaced_by ?? 'unknown'}, {formatDate(v.replaced_at)}
              </td>
              <td>
                <button type="button" onClick={() => showDiff(v.version)}>
                  Diff with current
                </button>{' '}
                <button type="button" onClick={() => setRestoring(v.version)}>
                  Restore
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorNote error={action.error} />
      {diff && (
        <div role="region" aria-label={`Diff of version ${String(diff.from)} with the current state`}>
          <h3>Version {diff.from} → current</h3>
          {diff.changed_fields.length === 0 && <p>No difference.</p>}
          {diff.changed_fields.includes('content') && (
            <pre class="content diff">
              {diff.content_diff.map((line, i) => (
                <span key={i} class={`diff-${line.op}`}>
                  {SIGN[line.op]} {line.text}
                  {'\n'}
                </span>
              ))}
            </pre>
          )}
          {diff.fields.length > 0 && (
            <ul>
              {diff.fields.map((f) => (
                <li key={f.field}>
                  {f.field}: {shown(f.from)} → {shown(f.to)}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <ConfirmDialog
        open={restoring !== null}
        title={`Restore version ${restoring ?? ''}?`}
        confirmLabel="Restore"
        onConfirm={() => restoring !== null && restore(restoring)}
        onCancel={() => setRestoring(null)}
      >
        <p>
          The memory takes that version's text and fields as a new change; its current state stays as a
          version.
        </p>
      </ConfirmDialog>
    </>
  );
}
