import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get } from './api';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: string | undefined;
  readonly loading: boolean;
  reload(): void;
}

/** GETs `path` (again when it changes, or on reload); null skips the request. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(path !== null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let current = true;
    setLoading(true);
    get<T>(path).then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!current) return;
        setError(describeError(failure));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [path, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, loading, reload };
}

/** Calls `tick` every `ms` while the component is shown. */
export function useInterval(tick: () => void, ms: number | null): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (ms === null) return;
    const timer = setInterval(() => saved.current(), ms);
    return () => clearInterval(timer);
  }, [ms]);
}

export function describeError(failure: unknown): string {
  if (failure instanceof ApiError) return `${failure.message} (${failure.status} ${failure.code})`;
  return failure instanceof Error ? failure.message : String(failure);
}

/** Runs an action, keeping its error message and whether it is running. */
export function useAction() {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (failure) {
      setError(describeError(failure));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run, setError };
}
