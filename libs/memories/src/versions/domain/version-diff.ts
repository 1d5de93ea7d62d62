import { createTwoFilesPatch, diffLines, FILE_HEADERS_ONLY } from 'diff';
import { VERSIONED_FIELDS, type MemoryState, type VersionedField } from '../../domain/memory-version';

/** One line of a content diff: kept, added in `to`, or removed from `from`. */
export interface DiffLine {
  readonly op: 'equal' | 'insert' | 'delete';
  readonly text: string;
}

/** A field other than content that differs, with both values. */
export interface FieldChange {
  readonly field: Exclude<VersionedField, 'content'>;
  readonly from: unknown;
  readonly to: unknown;
}

/** What changed between two states of a memory. */
export interface StateDiff {
  readonly changedFields: readonly VersionedField[];
  /** The content line by line (every line, unchanged ones too). */
  readonly lines: readonly DiffLine[];
  /** The content as a unified diff (`--- from` / `+++ to`, 3 lines of context); empty when equal. */
  readonly unified: string;
  readonly fields: readonly FieldChange[];
}

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const withNewline = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);

/** The lines of one diff part (its value ends with a newline except, maybe, the text's last). */
const linesOf = (value: string): string[] => {
  const lines = value.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/** A line diff of the content and the other versioned fields that differ, from `from` to `to`. */
export function diffStates(
  from: MemoryState,
  to: MemoryState,
  labels: { readonly from: string; readonly to: string },
): StateDiff {
  const values = (state: MemoryState): Record<VersionedField, unknown> => ({
    content: state.content,
    tags: [...state.tags],
    category: state.category,
    importance: state.importance,
    project: state.project,
    visibility: state.visibility,
  });
  const a = values(from);
  const b = values(to);
  const changedFields = VERSIONED_FIELDS.filter((field) => !sameValue(a[field], b[field]));
  const lines = diffLines(withNewline(from.content), withNewline(to.content)).flatMap((part) =>
    linesOf(part.value).map((text): DiffLine => ({
      op: part.added ? 'insert' : part.removed ? 'delete' : 'equal',
      text,
    })),
  );
  const unified = changedFields.includes('content')
    ? createTwoFilesPatch(
        labels.from,
        labels.to,
        withNewline(from.content),
        withNewline(to.content),
        '',
        '',
        // `--- from` / `+++ to` and the hunks, without the `Index:` and underline lines.
        { context: 3, headerOptions: FILE_HEADERS_ONLY },
      )
    : '';
  const fields = changedFields
    .filter((field): field is FieldChange['field'] => field !== 'content')
    .map((field) => ({ field, from: a[field], to: b[field] }));
  return { changedFields, lines, unified, fields };
}
