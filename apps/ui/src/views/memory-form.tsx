import { useEffect, useState } from 'preact/hooks';
import { get, post, put } from '../api';
import { ErrorNote, ViewTitle } from '../components';
import { useAction } from '../hooks';
import { navigate } from '../router';
import type { MemoryDetail } from '../types';
import { AnchorEditor, anchorInputs, rowsOf, type AnchorRow } from './anchor-editor';

interface Draft {
  content: string;
  category: string;
  tags: string;
  importance: number;
  project: string;
  visibility: 'team' | 'private';
  force_sensitive: boolean;
}

const EMPTY: Draft = {
  content: '',
  category: 'facts',
  tags: '',
  importance: 0.5,
  project: '',
  visibility: 'team',
  force_sensitive: false,
};

/** Create a memory, or edit one (`id`). */
export function MemoryFormView(props: { id?: number }) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  // The text as loaded: a sensitive memory shows its redacted text, which must not overwrite the original.
  const [loadedContent, setLoadedContent] = useState('');
  const [anchorRows, setAnchorRows] = useState<AnchorRow[]>([]);
  // The anchors as loaded, as the API takes them: an edit sends the list only when it changed.
  const [loadedAnchors, setLoadedAnchors] = useState('[]');
  const action = useAction();
  const editing = props.id !== undefined;

  useEffect(() => {
    if (!editing) return;
    void action.run(async () => {
      const m = await get<MemoryDetail>(`/api/memories/${props.id}`);
      setDraft({ ...EMPTY, ...m, project: m.project ?? '' });
      setLoadedContent(m.content);
      const rows = rowsOf(m.anchors);
      setAnchorRows(rows);
      setLoadedAnchors(JSON.stringify(anchorInputs(rows)));
    });
  }, [props.id]);

  const field = <K extends keyof Draft>(name: K) => ({
    id: `memory-${name}`,
    value: draft[name] as string | number,
    onInput: (e: Event) => {
      const target = e.target as HTMLInputElement;
      setDraft({ ...draft, [name]: target.type === 'number' ? Number(target.value) : target.value });
    },
  });

  const save = (event: Event) => {
    event.preventDefault();
    const anchors = anchorInputs(anchorRows);
    void action.run(async () => {
      if (editing) {
        const { content, category, tags, importance, visibility } = draft;
        const changed = {
          ...(content !== loadedContent ? { content } : {}),
          // The whole list ([] when every row was removed): an update replaces it.
          ...(JSON.stringify(anchors) !== loadedAnchors ? { anchors } : {}),
        };
        await put(`/api/memories/${props.id}`, { ...changed, category, tags, importance, visibility });
        navigate(`/memories/${props.id}`);
      } else {
        const stored = await post<{ id: number }>('/api/memories', {
          ...draft,
          project: draft.project || undefined,
          force_sensitive: draft.force_sensitive || undefined,
          anchors: anchors.length > 0 ? anchors : undefined,
        });
        navigate(`/memories/${stored.id}`);
      }
    });
  };

  return (
    <section>
      <ViewTitle>{editing ? `Edit memory ${props.id}` : 'New memory'}</ViewTitle>
      <form class="stacked" onSubmit={save}>
        <label for="memory-content">Content</label>
        <textarea required rows={6} {...field('content')} />
        <label for="memory-category">Category</label>
        <input required {...field('category')} />
        <label for="memory-tags">Tags (comma-separated)</label>
        <input {...field('tags')} />
        <label for="memory-importance">Importance (0–1)</label>
        <input type="number" min="0" max="1" step="0.05" {...field('importance')} />
        {!editing && (
          <>
            <label for="memory-project">Project</label>
            <input {...field('project')} />
          </>
        )}
        <label for="memory-visibility">Visibility</label>
        <select
          id="memory-visibility"
          value={draft.visibility}
          onChange={(e) =>
            setDraft({ ...draft, visibility: (e.target as HTMLSelectElement).value as Draft['visibility'] })
          }
        >
          <option value="team">team — everyone in the team reads it</option>
          <option value="private">private — you, and whoever you share it with</option>
        </select>
        {!editing && (
          <label class="check">
            <input
              type="checkbox"
              checked={draft.force_sensitive}
              onChange={(e) =>
                setDraft({ ...draft, force_sensitive: (e.target as HTMLInputElement).checked })
              }
            />
            The whole text is secret (kept in the secret store, shown redacted)
          </label>
        )}
        <AnchorEditor rows={anchorRows} editing={editing} onChange={setAnchorRows} />
        <div class="actions">
          <button type="submit" class="primary" disabled={action.busy}>
            {editing ? 'Save' : 'Store memory'}
          </button>
          <button type="button" onClick={() => history.back()}>
            Cancel
          </button>
        </div>
        <ErrorNote error={action.error} />
      </form>
    </section>
  );
}
