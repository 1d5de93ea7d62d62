import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { BASE, onLinkClick, takeViewFocus } from './router';

export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a
      href={`${BASE}${props.to}`}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => onLinkClick(event, props.to)}
    >
      {props.children}
    </a>
  );
}

/**
 * A view's heading; it takes the focus when a navigation opens the view, so screen readers announce
 * it and Tab continues from there. On the first load the focus stays at the top (skip link first).
 * Taken before the view is painted, so a key pressed once the view shows goes on from the heading.
 */
export function ViewTitle(props: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => {
    if (takeViewFocus()) ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {props.children}
    </h1>
  );
}

export function ErrorNote(props: { error: string | undefined }) {
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {props.error}
    </p>
  );
}

export function Loading(props: { loading: boolean }) {
  return props.loading ? <p aria-live="polite">Loading…</p> : null;
}

/** A modal question (native <dialog>: focus stays inside, Escape cancels). */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onCancel={props.onCancel}>
      <h2 id="confirm-title">{props.title}</h2>
      {props.children}
      <div class="actions">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class="primary" onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function Badge(props: { children: ComponentChildren; tone?: 'warn' | 'ok' | 'muted' }) {
  return <span class={`badge ${props.tone ?? ''}`}>{props.children}</span>;
}

/** A job's progress as a bar with its numbers, for a job whose `progress` has total and done. */
export function ProgressBar(props: { label: string; done: number; total: number }) {
  const max = Math.max(props.total, 1);
  return (
    <div class="progress">
      <progress aria-label={props.label} max={max} value={Math.min(props.done, max)} />
      <span>
        {props.done} / {props.total}
      </span>
    </div>
  );
}

/** A table's column headers. */
export function TableHead(props: { columns: readonly string[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((name) => (
          <th key={name} scope="col">
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}
