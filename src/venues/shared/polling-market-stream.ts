// A MarketStream for venues without a native book stream: polls each subscribed book every `intervalMs` and
// emits a snapshot first, then only the levels that changed, so subscribers see the same snapshot/delta protocol
// as on streaming venues. A failed poll marks the feed degraded and is retried on the next tick; nothing is invented:
// the book whose poll failed is no longer known to be current, so it gets a `resync` (held books go stale) and the next
// good poll sends a fresh snapshot.

import type { OrderBook } from '../../domain/book.js';
import { diffBookSides } from '../../domain/book-diff.js';
import type { ExchangeId } from '../../domain/exchanges.js';
import type { FeedState, Instrument, MarketStreamEvent } from '../../domain/stream.js';
import type { MarketStream, StreamContext, StreamTarget } from '../port.js';
import { EventChannel } from './event-channel.js';

export interface PollingStreamOptions {
  venue: ExchangeId;
  intervalMs: number;
  /** Resolves a target to its instrument; throws AppError (400) for an unknown outcome. */
  instrument(target: StreamTarget): Instrument;
  fetchBook(target: StreamTarget, signal: AbortSignal): Promise<OrderBook>;
  /** Books fetched at once per tick. */
  concurrency?: number;
}

interface Watched {
  target: StreamTarget;
  instrument: Instrument;
  last: OrderBook | null;
}

export function pollingMarketStream(ctx: StreamContext, options: PollingStreamOptions): MarketStream {
  const channel = new EventChannel<MarketStreamEvent>();
  const watched = new Map<string, Watched>();
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  let feed: FeedState = 'healthy';
  let timer: NodeJS.Timeout | null = null;
  let polling: Promise<void> | null = null;

  const keyOf = (i: Instrument) => `${i.market_id}\u0000${i.outcome}`;
  const setFeed = (state: FeedState, reason: string) => {
    if (state === feed) return;
    feed = state;
    channel.push({ type: 'feed_state', state, reason });
  };

  async function pollOne(entry: Watched): Promise<boolean> {
    try {
      const book = await options.fetchBook(entry.target, signal);
      const received = Date.now();
      const exchangeTs = Date.parse(book.timestamp);
      const exchangeTsMs = Number.isNaN(exchangeTs) ? null : exchangeTs;
      if (!watched.has(keyOf(entry.instrument))) return true;
      if (entry.last === null) {
        channel.push({ type: 'book_snapshot', book, exchange_ts_ms: exchangeTsMs, received_ts_ms: received });
      } else {
        const changes = diffBookSides(entry.last, book);
        if (changes.length > 0) {
          channel.push({
            type: 'book_delta',
            instrument: entry.instrument,
            changes,
            exchange_ts_ms: exchangeTsMs,
            received_ts_ms: received,
          });
        }
      }
      entry.last = book;
      return true;
    } catch (error) {
      if (!signal.aborted) {
        ctx.drift?.(error);
        ctx.logger.warn(
          { venue: options.venue, err: error, market: entry.instrument.market_id },
          'book poll failed',
        );
        if (entry.last !== null && watched.has(keyOf(entry.instrument))) {
          entry.last = null;
          channel.push({ type: 'resync', instrument: entry.instrument, reason: 'book poll failed' });
        }
      }
      return false;
    }
  }

  async function tick(): Promise<void> {
    const entries = [...watched.values()];
    const width = Math.max(1, options.concurrency ?? 4);
    let failed = 0;
    for (let i = 0; i < entries.length && !signal.aborted; i += width) {
      const results = await Promise.all(entries.slice(i, i + width).map(pollOne));
      failed += results.filter((ok) => !ok).length;
    }
    if (signal.aborted) return;
    if (failed > 0) setFeed('degraded', `${failed} of ${entries.length} book polls failed`);
    else setFeed('healthy', 'polls succeed');
  }

  function schedule(): void {
    if (signal.aborted || timer) return;
    timer = setTimeout(() => {
      timer = null;
      polling = tick().finally(() => {
        polling = null;
        schedule();
      });
    }, options.intervalMs);
  }

  signal.addEventListener('abort', () => channel.end(), { once: true });

  return {
    subscribe(targets) {
      const fresh: Watched[] = [];
      for (const target of targets) {
        const instrument = options.instrument(target);
        const key = keyOf(instrument);
        if (watched.has(key)) continue;
        const entry: Watched = { target, instrument, last: null };
        watched.set(key, entry);
        fresh.push(entry);
      }
      // New subscribers get their snapshot at once rather than one interval later.
      for (const entry of fresh) void pollOne(entry);
      schedule();
    },
    unsubscribe(targets) {
      for (const target of targets) watched.delete(keyOf(options.instrument(target)));
    },
    async close() {
      stop.abort();
      if (timer) clearTimeout(timer);
      timer = null;
      await polling;
      channel.end();
    },
    [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
  };
}
