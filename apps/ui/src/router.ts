import { useEffect, useState } from 'preact/hooks';

// Client routes under /ui (the API answers index.html for any of them), driven by the History API.

export const BASE = '/ui';
const changeListeners = new Set<() => void>();

export function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '/';
  return path === '' ? '/' : path;
}

let focusPending = false;

/** The next view's heading takes the focus (after a navigation, not on the first load). */
export function requestViewFocus(): void {
  focusPending = true;
}

export function takeViewFocus(): boolean {
  const pending = focusPending;
  focusPending = false;
  return pending;
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  requestViewFocus();
  const url = `${BASE}${path}`;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of changeListeners) listener();
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const update = () => setPath(currentPath());
    changeListeners.add(update);
    addEventListener('popstate', update);
    return () => {
      changeListeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** `/memories/:id` against `/memories/12` → `{ id: '12' }`; null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}

/** A same-document link: plain clicks navigate in place, modified clicks open as usual. */
export function onLinkClick(event: MouseEvent, path: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(path);
}
