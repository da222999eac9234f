// Small pieces every page shares: exchange badges, error notes, loading state and a hook for one async read.
import { isOmnibookError } from '@omnibook/client';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export function ExchangeBadge({ exchange }: { exchange: string }) {
  return <span class={`badge ex-${exchange}`}>{exchange}</span>;
}

export function errorText(error: unknown): string {
  if (isOmnibookError(error))
    return `${error.message} (${error.code}${error.retryable ? ', retryable' : ''})`;
  return error instanceof Error ? error.message : String(error);
}

export function ErrorNote({ error }: { error: unknown }) {
  return (
    <p class="error" role="alert">
      {errorText(error)}
    </p>
  );
}

export function Section({
  title,
  children,
  id,
  wide,
}: {
  title: string;
  children: ComponentChildren;
  id?: string;
  /** Spans both columns of a page's grid (wide tables). */
  wide?: boolean;
}) {
  const headingId = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-title`;
  return (
    <section class={wide ? 'panel wide' : 'panel'} aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

export interface AsyncState<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change (the previous run is aborted) and on reload(). */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(abort.signal).then(
      (data) => !abort.signal.aborted && setState({ data, error: null, loading: false }),
      (error: unknown) => !abort.signal.aborted && setState({ data: null, error, loading: false }),
    );
    return () => abort.abort();
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export interface Column {
  label: string;
  /** A numeric column: right-aligned. */
  num?: boolean;
  /** Named for screen readers only (an actions column). */
  hidden?: boolean;
}

/**
 * One async list as a table: its error, its loading note (when `loading` names what loads), an empty message, and
 * the table with a screen-reader caption and column headings; `row` renders one item as a `<tr>`.
 */
export function AsyncTable<T>({
  state,
  columns,
  row,
  caption,
  empty,
  loading,
  testId,
}: {
  state: AsyncState<T[]>;
  columns: readonly Column[];
  row: (item: T) => ComponentChildren;
  caption: string;
  empty: string;
  loading?: string;
  testId?: string;
}) {
  return (
    <>
      {state.error !== null && <ErrorNote error={state.error} />}
      {loading && state.loading && !state.data && <Loading what={loading} />}
      {state.data && state.data.length === 0 && <p class="muted">{empty}</p>}
      {state.data && state.data.length > 0 && (
        <div class="table-wrap">
          <table data-testid={testId}>
            <caption class="sr-only">{caption}</caption>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c.label} scope="col" class={c.num ? 'num' : undefined}>
                    {c.hidden ? <span class="sr-only">{c.label}</span> : c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>{state.data.map(row)}</tbody>
          </table>
        </div>
      )}
    </>
  );
}
