// One book from the WebSocket (the SDK's LiveBook): its view after every snapshot and delta, why it went stale, and
// the trades the stream carries. Unsubscribes when the page leaves the book.
import type { Activity, BookView, OmnibookClient, StaleEvent } from '@omnibook/client';
import { useEffect, useState } from 'preact/hooks';

export interface LiveBookState {
  view: BookView | null;
  /** The last reason the book was not fresh, until it is again. */
  stale: StaleEvent['reason'] | null;
  error: unknown;
  trades: Activity[];
  /** Updates applied since the subscription. */
  updates: number;
}

const EMPTY: LiveBookState = { view: null, stale: null, error: null, trades: [], updates: 0 };

export function useLiveBook(
  client: OmnibookClient,
  svcId: string | null,
  outcome: string | null,
  depth = 15,
): LiveBookState {
  const [state, setState] = useState<LiveBookState>(EMPTY);
  useEffect(() => {
    setState(EMPTY);
    if (!svcId || !outcome) return;
    let cancelled = false;
    let release: (() => void) | null = null;
    client
      .stream()
      .subscribeBook({ svc_id: svcId, outcome, depth })
      .then(
        (book) => {
          if (cancelled) {
            void book.unsubscribe();
            return;
          }
          setState((s) => ({ ...s, view: book.view(), updates: s.updates + 1 }));
          const offs = [
            book.on('update', (view) =>
              setState((s) => ({
                ...s,
                view,
                stale: view.state === 'fresh' ? null : s.stale,
                updates: s.updates + 1,
              })),
            ),
            book.on('stale', (event) =>
              setState((s) => ({
                ...s,
                stale: event.reason,
                view: s.view && { ...s.view, state: event.state },
              })),
            ),
            book.on('gap', () => setState((s) => ({ ...s, stale: 'gap' }))),
            book.on('trade', (trade) =>
              setState((s) => ({ ...s, trades: [trade, ...s.trades].slice(0, 50) })),
            ),
            book.on('error', (error) => setState((s) => ({ ...s, error }))),
          ];
          release = () => {
            for (const off of offs) off();
            void book.unsubscribe().catch(() => {});
          };
        },
        (error: unknown) => !cancelled && setState((s) => ({ ...s, error })),
      );
    return () => {
      cancelled = true;
      release?.();
    };
  }, [client, svcId, outcome, depth]);
  return state;
}

export function stateLabel(state: LiveBookState): { text: string; tone: 'ok' | 'warn' | 'bad' } {
  const view = state.view;
  if (state.error) return { text: 'unavailable', tone: 'bad' };
  if (!view || view.state === 'pending') return { text: 'connecting', tone: 'warn' };
  if (view.state === 'fresh') return { text: 'live', tone: 'ok' };
  if (view.state === 'needs_refresh') return { text: `resyncing (${state.stale ?? 'gap'})`, tone: 'warn' };
  if (view.state === 'stale') return { text: `stale (${state.stale ?? 'venue'})`, tone: 'bad' };
  return { text: view.state, tone: 'bad' };
}
