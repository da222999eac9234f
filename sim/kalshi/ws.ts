// Trade API WebSocket v2 (`/trade-api/ws/v2`): a handshake signed like REST (GET + /trade-api/ws/v2), JSON commands
// (subscribe, unsubscribe, update_subscription, list_subscriptions) with the documented numeric error codes, and
// the channels orderbook_delta (snapshot then deltas), trade, ticker, fill and user_orders. Sequenced channels
// number their messages per subscription (`seq`); ping frames with body `heartbeat` every 10 s. Test-only: a
// subscription can be told to skip a sequence number, and `stall_feed` silences everything.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { SimFaults } from '../shared/faults.js';
import type { KalshiKeys } from './auth.js';
import type { LevelChange } from './book.js';
import type { SimMarket } from './catalog.js';
import type { ExchangeListener, PublicTrade, SimExchange, SimFill, SimOrder } from './exchange.js';
import {
  deltaMsg,
  type Frame,
  fillMsg,
  snapshotMsg,
  tickerMsg,
  tradeMsg,
  userOrderMsg,
} from './ws-frames.js';

export const WS_PATH = '/trade-api/ws/v2';
const CHANNELS = new Set([
  'orderbook_delta',
  'ticker',
  'trade',
  'fill',
  'user_orders',
  'market_positions',
  'market_lifecycle_v2',
]);
const PING_INTERVAL_MS = 10_000;

interface Sub {
  sid: number;
  channel: string;
  /** null = every market. */
  tickers: Set<string> | null;
  seq: number;
  skipNext: boolean;
  useYesPrice: boolean;
}

interface Conn {
  ws: WebSocket;
  userId: string;
  subs: Map<number, Sub>;
  nextSid: number;
}

export class KalshiHub implements ExchangeListener {
  private readonly conns = new Set<Conn>();
  private readonly wss = new WebSocketServer({ noServer: true, autoPong: false });
  private ex: SimExchange | null = null;
  private readonly pinger: NodeJS.Timeout;

  constructor(
    private readonly keys: KalshiKeys,
    private readonly faults: SimFaults,
  ) {
    this.pinger = setInterval(() => {
      if (this.faults.settings.stall_feed) return;
      for (const c of this.conns) c.ws.ping('heartbeat');
    }, PING_INTERVAL_MS);
    this.pinger.unref();
  }

  bind(ex: SimExchange): void {
    this.ex = ex;
  }

  attach(server: Server): void {
    server.on('upgrade', (req, socket, head) => {
      void this.upgrade(req, socket, head);
    });
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    const refuse = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      socket.end(
        `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 429 ? 'Too Many Requests' : 'Error'}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    };
    if (path !== WS_PATH) return refuse(404, { error: { code: 'not_found', message: 'not found' } });
    const fault = await this.faults.gate();
    if (fault?.kind === 'rate_limited') return refuse(429, { error: 'too many requests' });
    if (fault?.kind === 'error')
      return refuse(fault.status, { error: { code: 'internal', message: 'internal' } });
    const auth = this.keys.verify(req.headers, 'GET', WS_PATH);
    if (!auth.ok) return refuse(401, auth.body);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.open(ws, auth.userId));
  }

  private open(ws: WebSocket, userId: string): void {
    const conn: Conn = { ws, userId, subs: new Map(), nextSid: 1 };
    this.conns.add(conn);
    ws.on('ping', (data) => {
      if (!this.faults.withhold()) ws.pong(data);
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      try {
        this.command(conn, String(data));
      } catch (e) {
        const failure =
          e instanceof CommandError ? e : new CommandError(0, 1, 'Unable to process message', {});
        this.send(conn, {
          id: failure.id,
          type: 'error',
          msg: { code: failure.code, msg: failure.text, ...failure.extra },
        });
      }
    });
    ws.on('close', () => {
      for (const sub of conn.subs.values()) this.unwatch(sub);
      this.conns.delete(conn);
    });
    ws.on('error', () => undefined);
  }

  /** Closes every connection; clients must reconnect and resubscribe. */
  dropAll(): number {
    const n = this.conns.size;
    for (const c of this.conns) c.ws.terminate();
    return n;
  }

  /** Test control: every live subscription of every connection (what `list_subscriptions` lists, with tickers). */
  subscriptions(): Array<{ channel: string; sid: number; market_tickers: string[] | null }> {
    return [...this.conns].flatMap((c) =>
      [...c.subs.values()].map((s) => ({
        channel: s.channel,
        sid: s.sid,
        market_tickers: s.tickers === null ? null : [...s.tickers],
      })),
    );
  }

  /** Test control: the next sequenced message of matching book subscriptions skips one sequence number. */
  skipSeq(ticker: string | null): number {
    let n = 0;
    for (const c of this.conns) {
      for (const sub of c.subs.values()) {
        if (sub.channel !== 'orderbook_delta') continue;
        if (ticker !== null && !sub.tickers?.has(ticker)) continue;
        sub.skipNext = true;
        n += 1;
      }
    }
    return n;
  }

  async close(): Promise<void> {
    clearInterval(this.pinger);
    for (const c of this.conns) c.ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  // ---- commands ----

  private command(conn: Conn, text: string): void {
    const frame = JSON.parse(text) as Frame;
    const id = typeof frame.id === 'number' ? frame.id : 0;
    const params = frame.params as Frame | undefined;
    switch (frame.cmd) {
      case 'subscribe': {
        if (!params || typeof params !== 'object') this.fail(id, 2, 'Params required');
        const channels = params.channels;
        if (!Array.isArray(channels) || channels.length === 0) this.fail(id, 3, 'Channels required');
        const tickers = tickerList(params);
        for (const channel of channels) {
          if (typeof channel !== 'string' || !CHANNELS.has(channel)) this.fail(id, 8, 'Unknown channel name');
          if (channel === 'orderbook_delta' && tickers === null) this.fail(id, 14, 'Market Ticker required');
        }
        const unknown = (tickers ?? []).filter((t) => !this.exchange().catalog.marketByTicker.has(t));
        if (unknown.length > 0) this.fail(id, 11, 'Invalid parameter', { market_tickers: unknown });
        for (const channel of channels as string[]) {
          const sub: Sub = {
            sid: conn.nextSid++,
            channel,
            tickers: tickers === null ? null : new Set(tickers),
            seq: 0,
            skipNext: false,
            useYesPrice: params.use_yes_price === true,
          };
          // The book is brought up to date before the subscription exists, so no delta precedes its snapshot.
          this.watch(sub, tickers ?? []);
          conn.subs.set(sub.sid, sub);
          this.send(conn, { type: 'subscribed', id, msg: { channel, sid: sub.sid } });
          if (channel === 'orderbook_delta') for (const t of tickers ?? []) this.snapshot(conn, sub, t, null);
          if (channel === 'ticker' && params.send_initial_snapshot === true) {
            for (const t of tickers ?? []) this.tickerTo(conn, sub, this.market(t));
          }
        }
        return;
      }
      case 'unsubscribe': {
        if (!params || typeof params !== 'object') this.fail(id, 2, 'Params required');
        const sids = params.sids;
        if (!Array.isArray(sids) || sids.length === 0) this.fail(id, 4, 'Subscription IDs required');
        for (const sid of sids) {
          const sub = conn.subs.get(sid as number);
          if (!sub) this.fail(id, 7, 'Unknown subscription ID');
          conn.subs.delete(sub.sid);
          this.unwatch(sub);
          this.send(conn, { id, sid: sub.sid, seq: sub.seq, type: 'unsubscribed' });
        }
        return;
      }
      case 'update_subscription': {
        if (!params || typeof params !== 'object') this.fail(id, 2, 'Params required');
        const sids = Array.isArray(params.sids) ? params.sids : params.sid === undefined ? [] : [params.sid];
        if (sids.length !== 1) this.fail(id, 12, 'Exactly one subscription ID is required');
        const sub = conn.subs.get(sids[0] as number);
        if (!sub) this.fail(id, 7, 'Unknown subscription ID');
        if (typeof params.action !== 'string') this.fail(id, 15, 'Action required');
        const tickers = tickerList(params) ?? [];
        if (tickers.some((t) => !this.exchange().catalog.marketByTicker.has(t)))
          this.fail(id, 11, 'Invalid parameter');
        if (params.action === 'get_snapshot') {
          if (sub.channel !== 'orderbook_delta') this.fail(id, 13, 'Unsupported action');
          for (const t of tickers) this.snapshot(conn, sub, t, id);
          return;
        }
        if (params.action !== 'add_markets' && params.action !== 'delete_markets')
          this.fail(id, 13, 'Unsupported action');
        if (tickers.length === 0) this.fail(id, 14, 'Market Ticker required');
        sub.tickers ??= new Set();
        if (params.action === 'add_markets') {
          const fresh = tickers.filter((t) => !sub.tickers?.has(t));
          this.watch(sub, fresh);
          for (const t of fresh) sub.tickers.add(t);
          if (sub.channel === 'orderbook_delta') for (const t of fresh) this.snapshot(conn, sub, t, null);
        } else {
          const gone = tickers.filter((t) => sub.tickers?.has(t));
          for (const t of gone) sub.tickers.delete(t);
          this.unwatchTickers(sub, gone);
        }
        this.send(conn, {
          id,
          sid: sub.sid,
          seq: sub.seq,
          type: 'ok',
          msg: { market_tickers: [...sub.tickers] },
        });
        return;
      }
      case 'list_subscriptions':
        this.send(conn, {
          id,
          type: 'ok',
          msg: [...conn.subs.values()].map((s) => ({ channel: s.channel, sid: s.sid })),
        });
        return;
      default:
        this.fail(id, 5, 'Unknown command');
    }
  }

  private fail(id: number, code: number, msg: string, extra: Frame = {}): never {
    throw new CommandError(id, code, msg, extra);
  }

  // ---- exchange events ----

  level(ticker: string, marketId: string, change: LevelChange): void {
    const nowMs = Date.now();
    for (const conn of this.conns) {
      for (const sub of conn.subs.values()) {
        if (sub.channel !== 'orderbook_delta' || !sub.tickers?.has(ticker)) continue;
        const msg = deltaMsg(ticker, marketId, change, sub.useYesPrice, nowMs);
        // Only the connection of the order's owner learns which of its orders caused the change.
        if (change.cause && change.cause.userId === conn.userId && change.cause.clientOrderId !== '') {
          msg.client_order_id = change.cause.clientOrderId;
        }
        this.sequenced(conn, sub, 'orderbook_delta', msg);
      }
    }
  }

  trade(t: PublicTrade): void {
    for (const conn of this.conns) {
      for (const sub of conn.subs.values()) {
        if (sub.channel !== 'trade' || (sub.tickers !== null && !sub.tickers.has(t.ticker))) continue;
        this.sequenced(conn, sub, 'trade', tradeMsg(t));
      }
    }
  }

  fill(userId: string, f: SimFill): void {
    this.toUser(userId, 'fill', f.ticker, fillMsg(f));
  }

  order(o: SimOrder): void {
    this.toUser(o.userId, 'user_orders', o.ticker, userOrderMsg(o), 'user_order');
  }

  ticker(m: SimMarket): void {
    for (const conn of this.conns) {
      for (const sub of conn.subs.values()) {
        if (sub.channel === 'ticker' && (sub.tickers === null || sub.tickers.has(m.ticker))) {
          this.tickerTo(conn, sub, m);
        }
      }
    }
  }

  // ---- helpers ----

  private exchange(): SimExchange {
    if (!this.ex) throw new Error('hub not bound to an exchange');
    return this.ex;
  }

  private market(ticker: string): SimMarket {
    const m = this.exchange().catalog.marketByTicker.get(ticker);
    if (!m) throw new Error(`unknown market ${ticker}`);
    return m;
  }

  private watch(sub: Sub, tickers: string[]): void {
    if (!['orderbook_delta', 'trade', 'ticker'].includes(sub.channel)) return;
    for (const t of tickers) {
      this.exchange().watch(t, 1);
      // Bring the book to the current step before anything is published for it.
      this.exchange().book(this.market(t));
    }
  }

  private unwatch(sub: Sub): void {
    this.unwatchTickers(sub, [...(sub.tickers ?? [])]);
  }

  private unwatchTickers(sub: Sub, tickers: string[]): void {
    if (!['orderbook_delta', 'trade', 'ticker'].includes(sub.channel)) return;
    for (const t of tickers) this.exchange().watch(t, -1);
  }

  private snapshot(conn: Conn, sub: Sub, ticker: string, id: number | null): void {
    this.sequenced(
      conn,
      sub,
      'orderbook_snapshot',
      snapshotMsg(this.exchange(), this.market(ticker), sub.useYesPrice),
      id,
    );
  }

  private tickerTo(conn: Conn, sub: Sub, m: SimMarket): void {
    this.send(conn, { type: 'ticker', sid: sub.sid, msg: tickerMsg(this.exchange(), m, Date.now()) });
  }

  private toUser(userId: string, channel: string, ticker: string, msg: Frame, type = channel): void {
    for (const conn of this.conns) {
      if (conn.userId !== userId) continue;
      for (const sub of conn.subs.values()) {
        if (sub.channel === channel && (sub.tickers === null || sub.tickers.has(ticker))) {
          this.send(conn, { type, sid: sub.sid, msg });
        }
      }
    }
  }

  private sequenced(conn: Conn, sub: Sub, type: string, msg: Frame, id: number | null = null): void {
    sub.seq += sub.skipNext ? 2 : 1;
    sub.skipNext = false;
    const frame: Frame =
      id === null ? { type, sid: sub.sid, seq: sub.seq, msg } : { type, id, sid: sub.sid, seq: sub.seq, msg };
    this.send(conn, frame);
  }

  /** A stalled feed produces messages (sequence numbers advance) but delivers none of them. */
  private send(conn: Conn, frame: Frame): void {
    if (conn.ws.readyState !== conn.ws.OPEN || this.faults.withhold()) return;
    conn.ws.send(JSON.stringify(frame));
  }
}

class CommandError extends Error {
  constructor(
    readonly id: number,
    readonly code: number,
    readonly text: string,
    readonly extra: Frame,
  ) {
    super(text);
  }
}

function tickerList(params: Frame): string[] | null {
  if (typeof params.market_ticker === 'string') return [params.market_ticker];
  if (Array.isArray(params.market_tickers))
    return params.market_tickers.filter((t): t is string => typeof t === 'string');
  return null;
}
