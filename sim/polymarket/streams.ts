// The CLOB WebSocket host: /ws/market (book snapshot per newly subscribed asset, then price_change deltas with the
// NO mirror, last_trade_price, tick_size_change and, with custom_feature_enabled, best_bid_ask) and /ws/user
// (order and trade events for the authenticated key's orders). Text PING gets PONG; silent clients are closed;
// a stalled feed keeps sockets open but sends nothing at all. One market connection is served at most
// `maxAssetsPerConnection` assets: the rest of a subscription is accepted and silently never delivered, as the venue
// does past about 500 (NautilusTrader PR #2915).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { handleControl, type SimControl } from '../shared/control.js';
import { sendJson } from '../shared/http.js';
import { setOwn } from '../shared/own-key.js';
import type { ApiKey } from './accounts.js';
import { type Depth, mirror } from './book.js';
import type { PmMarket } from './catalogue.js';
import { assetDepth, bookEvent, bookSummary } from './clob-payloads.js';
import type { PmContext } from './context.js';
import type { FeedSink } from './exchange.js';
import { orderEventJson, type PmOrder } from './order.js';
import { type TradeRecord, tradeEventJson } from './trade.js';
import { fmtUnits, ONE } from './units.js';

interface Conn {
  ws: WebSocket;
  channel: 'market' | 'user';
  ready: boolean;
  assets: Set<string>;
  custom: boolean;
  key: ApiKey | null;
  /** Condition ids the user channel is filtered to; null = all markets. */
  markets: Set<string> | null;
  lastSeen: number;
}

export class Streams implements FeedSink {
  readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly conns = new Set<Conn>();
  private readonly byAsset = new Map<string, Set<Conn>>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pm: PmContext,
    private readonly control: SimControl,
    private readonly idleMs: number,
    private readonly maxAssetsPerConnection: number,
  ) {
    this.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://sim').pathname;
      handleControl(req, res, path, control)
        .then((handled) => {
          if (!handled) sendJson(res, 404, { error: 'not found' });
        })
        .catch(() => sendJson(res, 400, { error: 'bad request' }));
    });
    this.server.on('upgrade', (req, socket, head) => {
      this.upgrade(req, socket, head).catch(() => socket.destroy());
    });
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(5000, Math.floor(idleMs / 4))));
    this.timer.unref();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    if (path !== '/ws/market' && path !== '/ws/user') {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const fault = await this.control.faults.gate({ method: 'GET', path });
    if (fault) {
      const status = fault.kind === 'rate_limited' ? 429 : fault.status;
      const extra = fault.kind === 'rate_limited' ? `retry-after: ${fault.retryAfterSeconds}\r\n` : '';
      socket.end(`HTTP/1.1 ${status} Error\r\n${extra}content-length: 0\r\n\r\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) =>
      this.open(ws, path === '/ws/market' ? 'market' : 'user'),
    );
  }

  private open(ws: WebSocket, channel: 'market' | 'user'): void {
    const conn: Conn = {
      ws,
      channel,
      ready: false,
      assets: new Set(),
      custom: false,
      key: null,
      markets: null,
      lastSeen: Date.now(),
    };
    this.conns.add(conn);
    ws.on('message', (data) => this.message(conn, data.toString()));
    ws.on('close', () => this.forget(conn));
    ws.on('error', () => this.forget(conn));
  }

  private forget(conn: Conn): void {
    this.conns.delete(conn);
    for (const asset of conn.assets) this.byAsset.get(asset)?.delete(conn);
  }

  private send(conn: Conn, payload: unknown): void {
    if (conn.ws.readyState !== conn.ws.OPEN || this.control.faults.withhold()) return;
    conn.ws.send(typeof payload === 'string' ? payload : JSON.stringify(payload));
  }

  /** Policy-violation close for a first frame the server cannot use. */
  private reject(conn: Conn, reason: string): void {
    conn.ws.close(1008, reason);
    this.forget(conn);
  }

  private message(conn: Conn, text: string): void {
    conn.lastSeen = Date.now();
    if (text === 'PING') {
      this.send(conn, 'PONG');
      return;
    }
    let frame: Record<string, unknown>;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
      frame = parsed as Record<string, unknown>;
    } catch {
      if (!conn.ready) this.reject(conn, 'invalid subscription message');
      return;
    }
    if (!conn.ready && conn.channel === 'market') this.openMarket(conn, frame);
    else if (!conn.ready) this.openUser(conn, frame);
    else if (conn.channel === 'market') this.updateMarket(conn, frame);
    else this.updateUser(conn, frame);
  }

  private openMarket(conn: Conn, frame: Record<string, unknown>): void {
    const type = typeof frame.type === 'string' ? frame.type.toLowerCase() : '';
    if (type !== 'market' || !isStringArray(frame.assets_ids)) {
      this.reject(conn, 'invalid subscription message');
      return;
    }
    conn.ready = true;
    conn.custom = frame.custom_feature_enabled === true;
    const books = this.subscribe(conn, frame.assets_ids);
    if (frame.initial_dump !== false && books.length > 0) this.send(conn, books);
  }

  private updateMarket(conn: Conn, frame: Record<string, unknown>): void {
    if (!isStringArray(frame.assets_ids)) return;
    if (typeof frame.custom_feature_enabled === 'boolean') conn.custom = frame.custom_feature_enabled;
    if (frame.operation === 'unsubscribe') {
      for (const asset of frame.assets_ids) {
        conn.assets.delete(asset);
        this.byAsset.get(asset)?.delete(conn);
      }
    } else if (frame.operation === 'subscribe') {
      const books = this.subscribe(conn, frame.assets_ids);
      this.send(conn, books.length > 0 ? books : 'NO NEW ASSETS');
    }
  }

  /** Adds assets the catalogue knows; returns a book snapshot for each new one that has a book. */
  private subscribe(conn: Conn, assets: string[]): unknown[] {
    const books: unknown[] = [];
    for (const asset of assets) {
      if (conn.assets.has(asset)) continue;
      if (conn.assets.size >= this.maxAssetsPerConnection) break;
      const found = this.pm.cat.byToken(asset);
      if (!found) continue;
      conn.assets.add(asset);
      let set = this.byAsset.get(asset);
      if (!set) {
        set = new Set();
        this.byAsset.set(asset, set);
      }
      set.add(conn);
      this.pm.exchange.touch(found.market);
      const view = this.pm.exchange.view(found.market);
      if (view) books.push(bookEvent(bookSummary(this.pm.cat, found.market, found.outcome, view)));
    }
    return books;
  }

  private openUser(conn: Conn, frame: Record<string, unknown>): void {
    const type = typeof frame.type === 'string' ? frame.type.toLowerCase() : '';
    const auth = frame.auth as Record<string, unknown> | undefined;
    const key = typeof auth?.apiKey === 'string' ? this.pm.accounts.key(auth.apiKey) : undefined;
    if (type !== 'user' || !key || auth?.secret !== key.secret || auth?.passphrase !== key.passphrase) {
      this.reject(conn, 'invalid authentication');
      return;
    }
    conn.ready = true;
    conn.key = key;
    conn.markets = isStringArray(frame.markets) && frame.markets.length > 0 ? lower(frame.markets) : null;
  }

  private updateUser(conn: Conn, frame: Record<string, unknown>): void {
    if (!isStringArray(frame.markets)) return;
    if (frame.operation === 'subscribe') {
      if (conn.markets) for (const m of lower(frame.markets)) conn.markets.add(m);
    } else if (frame.operation === 'unsubscribe') {
      conn.markets ??= new Set();
      for (const m of lower(frame.markets)) conn.markets.delete(m);
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const conn of [...this.conns]) {
      if (now - conn.lastSeen > this.idleMs) {
        conn.ws.terminate();
        this.forget(conn);
      }
    }
  }

  /** Closes every connection abruptly (POST /__sim/ws/drop); returns how many. */
  /** Market-channel connections subscribed to each asset (how many upstream feeds a client runs per book). */
  subscriptions(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [asset, conns] of this.byAsset) {
      if (conns.size > 0) setOwn(out, asset, conns.size);
    }
    return out;
  }

  drop(): number {
    const count = this.conns.size;
    for (const conn of [...this.conns]) {
      conn.ws.terminate();
      this.forget(conn);
    }
    return count;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.drop();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  // ---- FeedSink: what the exchange reports -------------------------------------------------------------------

  private subscribers(m: PmMarket): Array<{ conn: Conn; outcome: 0 | 1 }> {
    const out: Array<{ conn: Conn; outcome: 0 | 1 }> = [];
    const [yes, no] = this.pm.cat.tokenIds(m);
    for (const conn of this.byAsset.get(yes) ?? []) out.push({ conn, outcome: 0 });
    for (const conn of this.byAsset.get(no) ?? []) out.push({ conn, outcome: 1 });
    return out;
  }

  watches(m: PmMarket): boolean {
    const [yes, no] = this.pm.cat.tokenIds(m);
    return (this.byAsset.get(yes)?.size ?? 0) + (this.byAsset.get(no)?.size ?? 0) > 0;
  }

  bookChanged(m: PmMarket, before: Depth, after: Depth, nowMs: number): void {
    const subs = this.subscribers(m);
    if (subs.length === 0) return;
    const view = this.pm.exchange.view(m);
    if (!view) return;
    const { cat } = this.pm;
    const summaries = [bookSummary(cat, m, 0, view), bookSummary(cat, m, 1, view)] as const;
    const best = (outcome: 0 | 1) => {
      const d = assetDepth(view, outcome);
      const bid = d.bids[0]?.[0];
      const ask = d.asks[0]?.[0];
      return {
        best_bid: bid === undefined ? '' : fmtUnits(bid),
        best_ask: ask === undefined ? '' : fmtUnits(ask),
      };
    };
    const bests = [best(0), best(1)] as const;
    const changes: Array<Record<string, string>> = [];
    const entry = (outcome: 0 | 1, price: number, size: number, side: 'BUY' | 'SELL') => ({
      asset_id: summaries[outcome].asset_id,
      price: fmtUnits(price),
      size: fmtUnits(size),
      side,
      hash: summaries[outcome].hash,
      ...bests[outcome],
    });
    for (const [side, yesSide] of [
      ['bids', 'BUY'],
      ['asks', 'SELL'],
    ] as const) {
      for (const [price, size] of diff(before[side], after[side])) {
        changes.push(entry(0, price, size, yesSide));
        changes.push(entry(1, ONE - price, size, yesSide === 'BUY' ? 'SELL' : 'BUY'));
      }
    }
    if (changes.length === 0) return;
    const frame = {
      market: cat.conditionId(m),
      price_changes: changes,
      timestamp: String(nowMs),
      event_type: 'price_change',
    };
    const bestChanged = (outcome: 0 | 1) => {
      const was = outcome === 0 ? before : mirror(before);
      const now = assetDepth(view, outcome);
      return was.bids[0]?.[0] !== now.bids[0]?.[0] || was.asks[0]?.[0] !== now.asks[0]?.[0];
    };
    const sent = new Set<Conn>();
    for (const { conn, outcome } of subs) {
      if (!sent.has(conn)) {
        sent.add(conn);
        this.send(conn, frame);
      }
      if (conn.custom && bestChanged(outcome)) {
        const b = bests[outcome];
        const d = assetDepth(view, outcome);
        const bid = d.bids[0]?.[0];
        const ask = d.asks[0]?.[0];
        const spread = bid !== undefined && ask !== undefined ? fmtUnits(ask - bid) : '';
        this.send(conn, {
          event_type: 'best_bid_ask',
          market: frame.market,
          asset_id: summaries[outcome].asset_id,
          ...b,
          spread,
          timestamp: String(nowMs),
        });
      }
    }
  }

  tickChanged(m: PmMarket, oldTick: number, newTick: number, nowMs: number): void {
    for (const { conn, outcome } of this.subscribers(m)) {
      this.send(conn, {
        asset_id: this.pm.cat.tokenId(m, outcome),
        event_type: 'tick_size_change',
        market: this.pm.cat.conditionId(m),
        new_tick_size: fmtUnits(newTick),
        old_tick_size: fmtUnits(oldTick),
        timestamp: String(nowMs),
      });
    }
  }

  traded(t: TradeRecord, nowMs: number): void {
    const { cat } = this.pm;
    const yes = t.taker.outcome === 0 ? t.price : ONE - t.price;
    const yesSide = (t.taker.outcome === 0) === (t.taker.side === 'BUY') ? 'BUY' : 'SELL';
    for (const { conn, outcome } of this.subscribers(t.market)) {
      this.send(conn, {
        asset_id: cat.tokenId(t.market, outcome),
        event_type: 'last_trade_price',
        fee_rate_bps: String(t.feeRateBps),
        market: cat.conditionId(t.market),
        price: fmtUnits(outcome === 0 ? yes : ONE - yes),
        side: outcome === 0 ? yesSide : yesSide === 'BUY' ? 'SELL' : 'BUY',
        size: fmtUnits(t.size),
        timestamp: String(nowMs),
        // Not known yet for a match whose settlement is still to be mined (the recorded V1 frame has no hash).
        ...(t.chainStatus === 'PENDING' ? {} : { transaction_hash: t.txHash }),
      });
    }
    // A match settled on chain is only MATCHED until its transaction is mined (tradeSettled); one settled in the
    // ledger is final at once.
    const statuses =
      t.chainStatus === 'PENDING' ? (['MATCHED'] as const) : (['MATCHED', 'CONFIRMED'] as const);
    this.toViewers(t, statuses, nowMs);
  }

  /**
   * The user channel's later trade updates (docs.polymarket.com, WebSocket user channel: a `trade` message on match,
   * MATCHED, and on each later status change, MINED, CONFIRMED, RETRYING, FAILED), now with the real hash.
   */
  tradeSettled(t: TradeRecord, nowMs: number): void {
    const statuses = t.chainStatus === 'FAILED' ? (['FAILED'] as const) : (['MINED', 'CONFIRMED'] as const);
    this.toViewers(t, statuses, nowMs);
  }

  /** Sends a trade's status updates to each user in it, once per API key, as that participant sees it. */
  private toViewers(
    t: TradeRecord,
    statuses: ReadonlyArray<'MATCHED' | 'MINED' | 'CONFIRMED' | 'FAILED'>,
    nowMs: number,
  ): void {
    const { cat } = this.pm;
    const viewers = new Map<string, { order: PmOrder; side: 'TAKER' | 'MAKER' }>();
    if (!t.taker.house) viewers.set(t.taker.ownerKey, { order: t.taker, side: 'TAKER' });
    for (const f of t.makers) {
      if (!f.order.house && !viewers.has(f.order.ownerKey))
        viewers.set(f.order.ownerKey, { order: f.order, side: 'MAKER' });
    }
    for (const [key, { order, side }] of viewers) {
      const viewer = { apiKey: key, makerAddress: order.makerAddress, side };
      for (const status of statuses) {
        this.toUser(key, t.market, tradeEventJson(t, cat, viewer, status, nowMs));
      }
    }
  }

  orderEvent(o: PmOrder, type: 'PLACEMENT' | 'UPDATE' | 'CANCELLATION', nowMs: number): void {
    if (!o.house) this.toUser(o.ownerKey, o.market, orderEventJson(o, this.pm.cat, type, nowMs));
  }

  private toUser(apiKey: string, m: PmMarket, event: unknown): void {
    const cid = this.pm.cat.conditionId(m);
    for (const conn of this.conns) {
      if (conn.channel !== 'user' || conn.key?.key !== apiKey) continue;
      if (conn.markets && !conn.markets.has(cid)) continue;
      this.send(conn, event);
    }
  }
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function lower(values: string[]): Set<string> {
  return new Set(values.map((v) => v.toLowerCase()));
}

/** Levels whose size changed between two depths: [price, new size] with 0 for a level that went away. */
function diff(before: Array<[number, number]>, after: Array<[number, number]>): Array<[number, number]> {
  const was = new Map(before);
  const now = new Map(after);
  const out: Array<[number, number]> = [];
  for (const [price, size] of now) if (was.get(price) !== size) out.push([price, size]);
  for (const [price] of was) if (!now.has(price)) out.push([price, 0]);
  return out;
}
