import { useRef } from 'preact/hooks';
import type { AnchorInput, CodeAnchor } from '../types';

/** One anchor being edited: every field as typed (empty: not given). */
export interface AnchorRow {
  readonly key: number;
  readonly path: string;
  readonly symbol: string;
  readonly line_start: string;
  readonly line_end: string;
  readonly commit: string;
  readonly hash: string;
  readonly repo: string;
}

type Field = Exclude<keyof AnchorRow, 'key'>;

/** The service's limit (docs/api.md, "Code anchors"). */
const MAX_ANCHORS = 20;

let lastKey = 0;
const newRow = (fields: Partial<Omit<AnchorRow, 'key'>> = {}): AnchorRow => ({
  key: ++lastKey,
  path: '',
  symbol: '',
  line_start: '',
  line_end: '',
  commit: '',
  hash: '',
  repo: '',
  ...fields,
});

/** Rows for a memory's anchors as read (repo included, so a save keeps each where it was). */
export function rowsOf(anchors: readonly CodeAnchor[] | undefined): AnchorRow[] {
  return (anchors ?? []).map((a) =>
    newRow({
      path: a.path,
      symbol: a.symbol ?? '',
      line_start: a.line_start === null ? '' : String(a.line_start),
      line_end: a.line_end === null ? '' : String(a.line_end),
      commit: a.commit ?? '',
      hash: a.hash ?? '',
      repo: a.repo,
    }),
  );
}

/** The rows as the API takes them, empty fields left out (the same rows give the same JSON). */
export function anchorInputs(rows: readonly AnchorRow[]): AnchorInput[] {
  return rows.map((row) => {
    const text = (field: Field) => row[field].trim() || undefined;
    const line = (field: 'line_start' | 'line_end') =>
      text(field) === undefined ? undefined : Number(row[field]);
    const input: AnchorInput = {
      path: row.path.trim(),
      repo: text('repo'),
      symbol: text('symbol'),
      line_start: line('line_start'),
      line_end: line('line_end'),
      commit: text('commit'),
      hash: text('hash'),
    };
    return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as AnchorInput;
  });
}

const FIELDS: ReadonlyArray<{ name: Field; label: string; number?: boolean; hint?: string }> = [
  { name: 'path', label: 'Path', hint: 'relative to the repository root' },
  { name: 'symbol', label: 'Symbol', hint: 'function, class or type' },
  { name: 'line_start', label: 'First line', number: true },
  { name: 'line_end', label: 'Last line', number: true },
  { name: 'commit', label: 'Commit', hint: '7–64 hex' },
  { name: 'hash', label: 'Blob hash', hint: 'git hash-object <path>' },
  { name: 'repo', label: 'Repository', hint: 'default: the project' },
];

/** The code a memory speaks of, as rows to add, change and remove. */
export function AnchorEditor(props: {
  rows: readonly AnchorRow[];
  editing: boolean;
  onChange(rows: AnchorRow[]): void;
}) {
  const addButton = useRef<HTMLButtonElement>(null);
  const set = (key: number, field: Field, value: string) =>
    props.onChange(props.rows.map((row) => (row.key === key ? { ...row, [field]: value } : row)));
  const remove = (key: number) => {
    props.onChange(props.rows.filter((row) => row.key !== key));
    // The removed row's button is gone; keep the focus in the editor.
    addButton.current?.focus();
  };

  return (
    <fieldset class="anchor-editor">
      <legend>Anchors</legend>
      <p class="hint">
        The code this memory speaks of: a file path relative to the repository root, optionally a symbol,
        lines, the commit and the file's blob id. The service follows changes to these files and marks the
        memory stale when they change.
        {props.editing &&
          ' Saving a changed list writes every anchor anew, as current; to say whether the memory still holds for changed code, use Verify or Correct… on the memory.'}
      </p>
      {props.rows.map((row, i) => (
        <fieldset key={row.key} class="anchor-row">
          <legend>Anchor {i + 1}</legend>
          {FIELDS.map((f) => (
            <label key={f.name}>
              {f.label}
              <input
                value={row[f.name]}
                required={f.name === 'path'}
                placeholder={f.hint}
                {...(f.number ? { type: 'number', min: '1', step: '1' } : {})}
                onInput={(e) => set(row.key, f.name, (e.target as HTMLInputElement).value)}
              />
            </label>
          ))}
          <button type="button" class="danger" onClick={() => remove(row.key)}>
            Remove anchor {i + 1}
          </button>
        </fieldset>
      ))}
      <button
        ref={addButton}
        type="button"
        disabled={props.rows.length >= MAX_ANCHORS}
        onClick={() => props.onChange([...props.rows, newRow()])}
      >
        Add anchor
      </button>
    </fieldset>
  );
}
