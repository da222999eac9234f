// Kalshi's WebSocket (trade-api/ws/v2) as MarketStream / UserStream. The handshake is signed like REST
// (GET + /trade-api/ws/v2). Each market gets its own `orderbook_delta` + `trade` subscription; the book channel
// sends a snapshot then deltas numbered per subscription (`seq`). A gap means our copy may be wrong: we emit
// `resync`, drop that subscription and subscribe again for a fresh snapshot. Both outcome books come from one
// Kalshi book (YES bids; NO bids are YES asks at 1 − price). After a reconnect everything is resubscribed.

import type { Market } from '../../domain/market.js';
import type { Instrument, MarketStreamEvent, UserStreamEvent } from '../../domain/stream.js';
import type { MarketStream, StreamContext, StreamTarget, UserStream } from '../port.js';
import { EventChannel } from '../shared/event-channel.js';
import { payloadDecoder } from '../shared/payload.js';
import { ReconnectingSocket } from '../shared/reconnecting-socket.js';
import { authHeaders, kalshiKey } from './auth.js';
import {
  bookFromLadders,
  changeFor,
  contracts,
  type KalshiOutcome,
  ladderMap,
  micros,
  parseWsTrade,
  resolveOutcome,
  tokenId,
} from './parse.js';
import { parseFill, parseOrder } from './parse-trading.js';
import {
  KalshiWsDelta,
  KalshiWsEnvelope,
  KalshiWsFill,
  KalshiWsSnapshot,
  KalshiWsSubscribed,
  KalshiWsTrade,
  KalshiWsUserOrder,
} from './payloads.js';

const decodeEnvelope = payloadDecoder(KalshiWsEnvelope);
const decodeSubscribed = payloadDecoder(KalshiWsSubscribed);
const decodeSnapshot = payloadDecoder(KalshiWsSnapshot);
const decodeDelta = payloadDecoder(KalshiWsDelta);
const decodeTrade = payloadDecoder(KalshiWsTrade);
const decodeFill = payloadDecoder(KalshiWsFill);
const decodeUserOrder = payloadDecoder(KalshiWsUserOrder);

/** The server pings every 10 s; we ping too, and treat 30 s of silence as a dead connection. */
const HEARTBEAT_MS = 10_000;
const heartbeat = (intervalMs = HEARTBEAT_MS) => ({
  heartbeat: { intervalMs },
  staleAfterMs: 3 * intervalMs,
});

export interface StreamCredentials {
  api_key_id: string;
  private_key: string;
}

interface Watched {
  market: Market;
  outcomes: Set<KalshiOutcome>;
  /** YES and NO bid ladders: price (micro-dollars) → contracts. */
  yes: Map<number, number>;
  no: Map<number, number>;
  bookSid: number | null;
  tradeSid: number | null;
  lastSeq: number;
  ready: boolean;
}

function signedSocket(wsUrl: string, credentials: StreamCredentials) {
  const key = kalshiKey({ credentials: { ...credentials } });
  const path = new URL(wsUrl).pathname;
  return { key, headers: () => authHeaders(key, 'GET', path) };
}

export function openKalshiMarketStream(
  ctx: StreamContext,
  wsUrl: string,
  credentials: StreamCredentials,
  heartbeatMs?: number,
): MarketStream {
  const channel = new EventChannel<MarketStreamEvent>();
  const watched = new Map<string, Watched>();
  /**
   * Subscribe command id → the watch it was sent for and how many `subscribed` acks (one per channel) are still
   * due. An ack whose watch is no longer the market's (unsubscribed, or unsubscribed and subscribed again, before
   * the exchange answered) is a subscription nobody holds: it is unsubscribed at once, or it would stay live at the
   * exchange for the life of the connection.
   */
  const pending = new Map<number, { w: Watched; acks: number }>();
  const bySid = new Map<number, string>();
  let nextId = 1;
  let socket: ReconnectingSocket | null = null;
  let connectedOnce = false;
  const { headers } = signedSocket(wsUrl, credentials);

  const instrument = (w: Watched, outcome: KalshiOutcome): Instrument => ({
    market_id: w.market.exchange_market_id,
    outcome,
    token_id: tokenId(w.market.exchange_market_id, outcome),
  });

  const send = (cmd: string, params: Record<string, unknown>): number => {
    const id = nextId++;
    socket?.send(JSON.stringify({ id, cmd, params }));
    return id;
  };

  const subscribeBook = (ticker: string, withTrades: boolean) => {
    const w = watched.get(ticker);
    if (!w) return;
    const channels = withTrades ? ['orderbook_delta', 'trade'] : ['orderbook_delta'];
    const id = send('subscribe', { channels, market_ticker: ticker });
    pending.set(id, { w, acks: channels.length });
  };

  const snapshotOf = (w: Watched, outcome: KalshiOutcome, receivedMs: number) => {
    const ladders = { yes: [...w.yes], no: [...w.no] };
    channel.push({
      type: 'book_snapshot',
      book: bookFromLadders(ladders, w.market, outcome, new Date(receivedMs)),
      exchange_ts_ms: null,
      received_ts_ms: receivedMs,
    });
  };

  /** Our copy of one book is broken: say so, drop its book subscription and ask for a fresh snapshot. */
  const resync = (ticker: string, reason: string) => {
    const w = watched.get(ticker);
    if (!w) return;
    for (const outcome of w.outcomes)
      channel.push({ type: 'resync', instrument: instrument(w, outcome), reason });
    if (w.bookSid !== null) {
      bySid.delete(w.bookSid);
      send('unsubscribe', { sids: [w.bookSid] });
    }
    w.bookSid = null;
    w.ready = false;
    w.lastSeq = 0;
    subscribeBook(ticker, false);
  };

  const handle = (text: string) => {
    const received = Date.now();
    const frame = decodeEnvelope(JSON.parse(text), 'kalshi', 'ws_frame');
    switch (frame.type) {
      case 'subscribed': {
        const ack = decodeSubscribed(frame.msg, 'kalshi', 'ws_subscribed');
        const entry = frame.id === undefined ? undefined : pending.get(frame.id);
        if (!entry || frame.id === undefined) return;
        entry.acks -= 1;
        if (entry.acks <= 0) pending.delete(frame.id);
        const w = entry.w;
        const ticker = w.market.exchange_market_id;
        if (watched.get(ticker) !== w) {
          send('unsubscribe', { sids: [ack.sid] });
          return;
        }
        bySid.set(ack.sid, ticker);
        if (ack.channel === 'orderbook_delta') {
          w.bookSid = ack.sid;
          w.lastSeq = 0;
        } else if (ack.channel === 'trade') w.tradeSid = ack.sid;
        return;
      }
      case 'orderbook_snapshot': {
        const w = current(frame.sid, 'book');
        if (!w) return;
        const snap = decodeSnapshot(frame.msg, 'kalshi', 'ws_orderbook_snapshot');
        w.yes = ladderMap(snap.yes_dollars_fp);
        w.no = ladderMap(snap.no_dollars_fp);
        w.lastSeq = frame.seq ?? 0;
        w.ready = true;
        for (const outcome of w.outcomes) snapshotOf(w, outcome, received);
        return;
      }
      case 'orderbook_delta': {
        const w = current(frame.sid, 'book');
        if (!w?.ready) return;
        const seq = frame.seq ?? 0;
        if (seq !== w.lastSeq + 1) {
          resync(w.market.exchange_market_id, `sequence gap: expected ${w.lastSeq + 1}, got ${seq}`);
          return;
        }
        w.lastSeq = seq;
        const delta = decodeDelta(frame.msg, 'kalshi', 'ws_orderbook_delta');
        const price = micros(delta.price_dollars);
        const change = contracts(delta.delta_fp);
        if (price === null || change === null) throw new Error(`unreadable delta ${text.slice(0, 200)}`);
        const ladder = delta.side === 'yes' ? w.yes : w.no;
        const size = Math.max(0, Math.round(((ladder.get(price) ?? 0) + change) * 100) / 100);
        if (size === 0) ladder.delete(price);
        else ladder.set(price, size);
        for (const outcome of w.outcomes) {
          channel.push({
            type: 'book_delta',
            instrument: instrument(w, outcome),
            changes: [changeFor(outcome, delta.side, price, size)],
            exchange_ts_ms: delta.ts_ms ?? null,
            received_ts_ms: received,
          });
        }
        return;
      }
      case 'trade': {
        const w = current(frame.sid, 'trade');
        if (!w) return;
        const t = decodeTrade(frame.msg, 'kalshi', 'ws_trade');
        for (const outcome of w.outcomes) {
          const trade = parseWsTrade(t, outcome);
          if (trade)
            channel.push({
              type: 'trade',
              instrument: instrument(w, outcome),
              trade,
              source_channel: 'kalshi_ws_trade',
              received_ts_ms: received,
            });
        }
        return;
      }
      case 'error':
        ctx.logger.warn({ venue: 'kalshi', frame: text.slice(0, 300) }, 'kalshi stream command refused');
        return;
      default:
        return;
    }
  };

  /** The watched market a frame belongs to, if it comes from that market's live subscription. */
  const current = (sid: number | undefined, kind: 'book' | 'trade'): Watched | undefined => {
    const ticker = sid === undefined ? undefined : bySid.get(sid);
    const w = ticker === undefined ? undefined : watched.get(ticker);
    if (!w) return undefined;
    return (kind === 'book' ? w.bookSid : w.tradeSid) === sid ? w : undefined;
  };

  const start = () => {
    socket = new ReconnectingSocket({
      venue: 'kalshi',
      url: () => wsUrl,
      headers,
      logger: ctx.logger,
      drift: ctx.drift,
      capture: ctx.capture,
      onOpen: () => {
        // Subscription ids belong to a connection: everything is asked for again, and consumers resync.
        pending.clear();
        bySid.clear();
        for (const [ticker, w] of watched) {
          if (connectedOnce) {
            for (const outcome of w.outcomes) {
              channel.push({ type: 'resync', instrument: instrument(w, outcome), reason: 'reconnected' });
            }
          }
          w.bookSid = null;
          w.tradeSid = null;
          w.ready = false;
          w.lastSeq = 0;
          subscribeBook(ticker, true);
        }
        connectedOnce = true;
      },
      onMessage: handle,
      onState: (state, reason) => channel.push({ type: 'feed_state', state, reason }),
      ...heartbeat(heartbeatMs),
    });
    socket.start();
  };

  const close = async () => {
    await socket?.close();
    channel.end();
  };
  ctx.signal.addEventListener('abort', () => void close(), { once: true });

  return {
    subscribe(targets: readonly StreamTarget[]) {
      const resolved = targets.map((t) => ({
        market: t.market,
        outcome: resolveOutcome(t.market, t.outcome),
      }));
      for (const { market, outcome } of resolved) {
        const ticker = market.exchange_market_id;
        const w = watched.get(ticker);
        if (w) {
          if (w.outcomes.has(outcome)) continue;
          w.outcomes.add(outcome);
          // The book is already live: the new outcome gets its snapshot from our copy at once.
          if (w.ready) snapshotOf(w, outcome, Date.now());
          continue;
        }
        watched.set(ticker, {
          market,
          outcomes: new Set([outcome]),
          yes: new Map(),
          no: new Map(),
          bookSid: null,
          tradeSid: null,
          lastSeq: 0,
          ready: false,
        });
        if (socket) subscribeBook(ticker, true);
      }
      if (!socket && watched.size > 0) start();
    },
    unsubscribe(targets: readonly StreamTarget[]) {
      for (const t of targets) {
        const ticker = t.market.exchange_market_id;
        const w = watched.get(ticker);
        if (!w) continue;
        w.outcomes.delete(resolveOutcome(t.market, t.outcome));
        if (w.outcomes.size > 0) continue;
        watched.delete(ticker);
        const sids = [w.bookSid, w.tradeSid].filter((s): s is number => s !== null);
        for (const sid of sids) bySid.delete(sid);
        if (sids.length > 0) send('unsubscribe', { sids });
      }
    },
    close,
    [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator](),
  };
}

/** The session owner's fills (`fill`) and order updates (`user_orders`), on a connection signed with their key. */
export function openKalshiUserStream(
  ctx: StreamContext,
  wsUrl: string,
  credentials: StreamCredentials,
): UserStream {
  const channel = new EventChannel<UserStreamEvent>();
  const { headers } = signedSocket(wsUrl, credentials);
  let nextId = 1;
  const socket = new ReconnectingSocket({
    venue: 'kalshi',
    url: () => wsUrl,
    headers,
    logger: ctx.logger,
    drift: ctx.drift,
    capture: ctx.capture,
    onOpen: (send) =>
      send(JSON.stringify({ id: nextId++, cmd: 'subscribe', params: { channels: ['fill', 'user_orders'] } })),
    onMessage: (text) => {
      const frame = decodeEnvelope(JSON.parse(text), 'kalshi', 'ws_frame');
      if (frame.type === 'fill') {
        const f = decodeFill(frame.msg, 'kalshi', 'ws_fill');
        channel.push({
          type: 'fill',
          fill: parseFill({
            ...f,
            fill_id: f.trade_id,
            ticker: f.market_ticker,
            created_time: new Date(f.ts_ms ?? (f.ts ?? 0) * 1000).toISOString(),
          }),
        });
      } else if (frame.type === 'user_order') {
        const o = decodeUserOrder(frame.msg, 'kalshi', 'ws_user_order');
        channel.push({ type: 'order', order: parseOrder(o) });
      }
    },
    onState: (state, reason) => channel.push({ type: 'feed_state', state, reason }),
    ...heartbeat(),
  });
  socket.start();
  const close = async () => {
    await socket.close();
    channel.end();
  };
  ctx.signal.addEventListener('abort', () => void close(), { once: true });
  return { close, [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator]() };
}
