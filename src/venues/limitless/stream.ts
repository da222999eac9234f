// Limitless's Socket.IO book feed as a MarketStream. `subscribe_market_prices {marketSlugs}` replaces the socket's
// market set, so the whole set is sent on every change and after every (re)connect (the server forgets it). Each
// `orderbookUpdate` carries a market's whole YES book; we diff it against the last one per outcome (NO mirrored) to
// emit deltas. A snapshot follows every (re)subscription, seeded from REST because the feed only pushes on change,
// and REST is polled every `reconcileMs` so a silent feed cannot leave a book stale.
import { io, type Socket } from 'socket.io-client';
import { diffBookSides } from '../../domain/book-diff.js';
import type { Market } from '../../domain/market.js';
import type { FeedState, Instrument, MarketStreamEvent } from '../../domain/stream.js';
import type { MarketStream, StreamContext, StreamTarget } from '../port.js';
import { EventChannel } from '../shared/event-channel.js';
import { payloadDecoder } from '../shared/payload.js';
import { limitlessOutcome } from './outcomes.js';
import { type BookSides, type LimitlessOutcome, outcomeBook, toNumber, toOrderBook } from './parse.js';
import { type LimitlessOrderbook, LimitlessOrderbookUpdate } from './payloads.js';

const decodeUpdate = payloadDecoder(LimitlessOrderbookUpdate);
const SEED_RETRY_MS = [250, 1_000, 3_000, 5_000];

export interface LimitlessStreamOptions {
  /** Socket.IO base URL; the /markets namespace is appended. */
  wsUrl: string;
  /** REST check of every streamed book; 0 turns it off. */
  reconcileMs: number;
  fetchBook(slug: string, signal: AbortSignal): Promise<LimitlessOrderbook>;
}

interface Watched {
  market: Market;
  instruments: Map<LimitlessOutcome, Instrument>;
  /** What each instrument's subscriber holds now. */
  held: Map<LimitlessOutcome, BookSides>;
  /** Instruments owed a snapshot (new, or after a reconnect). */
  fresh: Set<LimitlessOutcome>;
  last: LimitlessOrderbook | null;
  /** Counts feed updates, so a REST answer older than one of them is not applied over it. */
  version: number;
  seeding: boolean;
}

export function openLimitlessMarketStream(ctx: StreamContext, options: LimitlessStreamOptions): MarketStream {
  const channel = new EventChannel<MarketStreamEvent>();
  const watched = new Map<string, Watched>();
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  let feed: FeedState = 'disconnected';
  let everConnected = false;
  let closed = false;

  const setFeed = (state: FeedState, reason: string) => {
    if (state === feed || closed) return;
    feed = state;
    channel.push({ type: 'feed_state', state, reason });
  };

  const apply = (w: Watched, book: LimitlessOrderbook, exchangeTsMs: number | null) => {
    const received = Date.now();
    w.last = book;
    for (const [outcome, instrument] of w.instruments) {
      const sides = outcomeBook(book, outcome);
      const held = w.held.get(outcome);
      if (w.fresh.has(outcome) || !held) {
        channel.push({
          type: 'book_snapshot',
          book: toOrderBook(w.market, outcome, sides, new Date(received)),
          exchange_ts_ms: exchangeTsMs,
          received_ts_ms: received,
        });
        w.fresh.delete(outcome);
      } else {
        const changes = diffBookSides(held, sides);
        if (changes.length > 0) {
          channel.push({
            type: 'book_delta',
            instrument,
            changes,
            exchange_ts_ms: exchangeTsMs,
            received_ts_ms: received,
          });
        }
      }
      w.held.set(outcome, sides);
    }
  };

  /** Reads the book over REST and applies it, unless the feed delivered a newer one meanwhile. */
  const seed = async (slug: string, attempt = 0): Promise<void> => {
    const w = watched.get(slug);
    if (!w || w.seeding || signal.aborted) return;
    w.seeding = true;
    const version = w.version;
    try {
      const book = await options.fetchBook(slug, signal);
      if (watched.get(slug) === w && w.version === version) apply(w, book, null);
    } catch (error) {
      if (signal.aborted) return;
      ctx.logger.warn({ venue: 'limitless', err: error, market: slug }, 'book read failed');
      if (socket.connected) setFeed('degraded', `book read failed for ${slug}`);
      const delay = SEED_RETRY_MS[Math.min(attempt, SEED_RETRY_MS.length - 1)] as number;
      if (w.fresh.size > 0) setTimeout(() => void seed(slug, attempt + 1), delay).unref();
      return;
    } finally {
      w.seeding = false;
    }
    if (socket.connected) setFeed('healthy', 'books current');
  };

  const sendSubscription = () => {
    if (socket.connected) socket.emit('subscribe_market_prices', { marketSlugs: [...watched.keys()] });
  };

  const socket: Socket = io(`${options.wsUrl.replace(/\/$/, '')}/markets`, {
    transports: ['websocket'],
    autoConnect: false,
    reconnection: true,
    reconnectionDelay: 250,
    reconnectionDelayMax: 5_000,
    randomizationFactor: 0.5,
    timeout: 10_000,
  });
  socket.on('connect', () => {
    if (everConnected) {
      // The server forgot our markets; whatever changed while we were away is unknown.
      for (const w of watched.values()) {
        for (const [outcome, instrument] of w.instruments) {
          if (w.held.has(outcome)) channel.push({ type: 'resync', instrument, reason: 'reconnected' });
          w.fresh.add(outcome);
        }
      }
    }
    everConnected = true;
    setFeed('healthy', 'connected');
    sendSubscription();
    for (const slug of watched.keys()) void seed(slug);
  });
  socket.on('disconnect', (reason) => {
    setFeed('disconnected', reason);
    // A server-side disconnect is not retried by Socket.IO itself.
    if (reason === 'io server disconnect' && !closed) socket.connect();
  });
  socket.on('connect_error', (error: Error) => setFeed('disconnected', `cannot connect: ${error.message}`));
  socket.on('orderbookUpdate', (payload: unknown) => {
    ctx.capture?.({
      venue: 'limitless',
      kind: 'ws',
      operation: 'ws_orderbook_update',
      body: JSON.stringify(payload),
    });
    if (!decodeUpdate.check(payload)) {
      // Decoded once more only to learn which paths failed, for the drift alarm.
      try {
        decodeUpdate(payload, 'limitless', 'ws_orderbook_update');
      } catch (error) {
        ctx.drift?.(error);
      }
      ctx.logger.warn({ venue: 'limitless' }, 'unexpected orderbookUpdate frame');
      return;
    }
    const w = watched.get(payload.marketSlug);
    if (!w) return;
    w.version++;
    const ts = payload.timestamp;
    const ms = typeof ts === 'string' && !/^\d+$/.test(ts) ? Date.parse(ts) : toNumber(ts ?? null);
    apply(w, payload.orderbook, ms === null || Number.isNaN(ms) ? null : ms);
  });
  socket.on('exception', (e: unknown) =>
    ctx.logger.warn({ venue: 'limitless', exception: e }, 'feed refused a request'),
  );
  socket.connect();

  const reconcile =
    options.reconcileMs > 0
      ? setInterval(() => {
          if (socket.connected) for (const slug of watched.keys()) void seed(slug);
        }, options.reconcileMs)
      : null;
  reconcile?.unref();

  const close = async () => {
    if (closed) return;
    closed = true;
    stop.abort();
    if (reconcile) clearInterval(reconcile);
    socket.removeAllListeners();
    socket.disconnect();
    channel.end();
  };
  ctx.signal.addEventListener('abort', () => void close(), { once: true });

  const resolve = (target: StreamTarget) => {
    const outcome = limitlessOutcome(target.market, target.outcome);
    const token = target.market.outcomes.find((o) => o.name === outcome)?.token_id ?? '';
    return { outcome, instrument: { market_id: target.market.exchange_market_id, outcome, token_id: token } };
  };

  return {
    subscribe(targets) {
      const resolved = targets.map((t) => ({ target: t, ...resolve(t) }));
      let added = false;
      const touched = new Set<Watched>();
      for (const { target, outcome, instrument } of resolved) {
        const slug = target.market.exchange_market_id;
        let w = watched.get(slug);
        if (!w) {
          w = {
            market: target.market,
            instruments: new Map(),
            held: new Map(),
            fresh: new Set(),
            last: null,
            version: 0,
            seeding: false,
          };
          watched.set(slug, w);
          added = true;
        }
        if (w.instruments.has(outcome)) continue;
        w.instruments.set(outcome, instrument);
        w.fresh.add(outcome);
        touched.add(w);
      }
      if (added) sendSubscription();
      if (!socket.connected) return;
      for (const w of touched) {
        if (w.last) apply(w, w.last, null);
        else void seed(w.market.exchange_market_id);
      }
    },
    unsubscribe(targets) {
      let removed = false;
      for (const target of targets) {
        const { outcome } = resolve(target);
        const slug = target.market.exchange_market_id;
        const w = watched.get(slug);
        if (!w) continue;
        w.instruments.delete(outcome);
        w.held.delete(outcome);
        w.fresh.delete(outcome);
        if (w.instruments.size === 0) {
          watched.delete(slug);
          removed = true;
        }
      }
      if (removed) sendSubscription();
    },
    close,
    [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
  };
}
