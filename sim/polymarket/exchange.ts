// The live CLOB: which books are materialized, the step counter the house quotes from, order placement, cancels,
// GTD expiry and advancing the house. Untouched books are rendered from house.ts at the current step; a book is
// materialized (house ladder + the step's house print) the first time an order or a stream needs it, and from then
// on every change goes through the same matching, so both renderings agree.
import type { Accounts } from './accounts.js';
import { type Depth, OrderBook } from './book.js';
import { type Catalogue, HOUSE_ADDRESS, type PmMarket } from './catalogue.js';
import { CLOB_ERRORS } from './errors.js';
import { houseLadder, houseTrade, houseVolume } from './house.js';
import { bytes32For } from './ids.js';
import { filledSize, planFills, wouldCross } from './matching.js';
import { isYesBid, newOrder, type PmOrder, remaining, yesPrice } from './order.js';
import { revertSettlement, settle } from './settlement.js';
import type { TradeRecord } from './trade.js';
import { ONE } from './units.js';

export const HOUSE_KEY = '00000000-0000-4000-8000-00000000c10b';

/** Trades kept per live book for the public tape; long benchmark runs must not grow memory without bound. */
const TAPE_LIMIT = 2000;

export interface LastTrade {
  /** YES price, micro. */
  price: number;
  /** Taker side seen from YES. */
  takerSide: 'BUY' | 'SELL';
}

export interface BookView {
  depth: Depth;
  tick: number;
  last: LastTrade | null;
  ms: number;
}

/** What the streams need to hear about; implemented by the WebSocket server. */
export interface FeedSink {
  watches(m: PmMarket): boolean;
  bookChanged(m: PmMarket, before: Depth, after: Depth, nowMs: number): void;
  tickChanged(m: PmMarket, oldTick: number, newTick: number, nowMs: number): void;
  traded(t: TradeRecord, nowMs: number): void;
  /** A trade's on-chain settlement was mined (chainStatus CONFIRMED) or failed (FAILED, the ledger reverted). */
  tradeSettled(t: TradeRecord, nowMs: number): void;
  orderEvent(o: PmOrder, type: 'PLACEMENT' | 'UPDATE' | 'CANCELLATION', nowMs: number): void;
}

const SILENT: FeedSink = {
  watches: () => false,
  bookChanged: () => {},
  tickChanged: () => {},
  traded: () => {},
  tradeSettled: () => {},
  orderEvent: () => {},
};

interface LiveBook {
  book: OrderBook;
  tick: number;
  last: LastTrade | null;
  ms: number;
  /** Trades since materialization (house prints and user matches), oldest first. */
  tape: TradeRecord[];
  since: number;
}

/** A house print on a book nobody materialized: YES-side taker side, YES price, shares. */
export interface HousePrint {
  ms: number;
  side: 'BUY' | 'SELL';
  price: number;
  size: number;
}

export type SubmitResult = { ok: true; trade: TradeRecord | null } | { ok: false; error: string };

export class Exchange {
  step = 0;
  /** Bumped on every book change, so caches of derived figures know when to recompute. */
  version = 0;
  feed: FeedSink = SILENT;
  /**
   * Settles a user's match on the sandbox chain (trade-chain.ts), when the simulator runs with one. Called once
   * per trade with a user in it, right after the ledger moved; its promise, followed by the ledger's answer to
   * the outcome (`afterSettlement`), is kept on the trade as `settled`.
   */
  settler: ((t: TradeRecord) => Promise<void>) | null = null;
  private readonly stepMs: number[];
  private readonly live = new Map<number, LiveBook>();
  private readonly orders = new Map<string, PmOrder>();
  private readonly gtd = new Set<PmOrder>();
  private readonly userVolume = new Map<number, number>();
  /** Trades a user took part in, by id (house-only prints are kept on their book's tape only). */
  private readonly trades = new Map<string, TradeRecord>();
  private seq = 0;

  constructor(
    private readonly cat: Catalogue,
    private readonly accounts: Accounts,
    private readonly now: () => number,
  ) {
    this.stepMs = [now()];
  }

  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  stepTime(step: number): number {
    return this.stepMs[Math.max(0, Math.min(step, this.stepMs.length - 1))] ?? 0;
  }

  order(id: string): PmOrder | undefined {
    return this.orders.get(id.toLowerCase());
  }

  trade(id: string): TradeRecord | undefined {
    return this.trades.get(id);
  }

  isLive(m: PmMarket): boolean {
    return this.live.has(m.index);
  }

  /** Current YES-side book of an active market, materialized or not; null when the market has no book. */
  view(m: PmMarket): BookView | null {
    if (m.status !== 'active') return null;
    const lb = this.live.get(m.index);
    if (lb) return { depth: depthOf(lb.book), tick: lb.tick, last: lb.last, ms: lb.ms };
    const ladder = houseLadder(m, this.step);
    const depth: Depth = {
      bids: ladder.bids.map(([p, s]) => [p, s]),
      asks: ladder.asks.map(([p, s]) => [p, s]),
    };
    const print = houseTrade(m, this.step);
    const level = print.takerSide === 'BUY' ? depth.asks[0] : depth.bids[0];
    if (level) level[1] -= print.size;
    const last = level ? { price: level[0], takerSide: print.takerSide } : null;
    return { depth, tick: ladder.tick, last, ms: this.stepTime(this.step) };
  }

  private materialize(m: PmMarket): LiveBook {
    let lb = this.live.get(m.index);
    if (lb) return lb;
    const ladder = houseLadder(m, this.step);
    lb = {
      book: new OrderBook(),
      tick: ladder.tick,
      last: null,
      ms: this.stepTime(this.step),
      tape: [],
      since: this.step,
    };
    this.live.set(m.index, lb);
    for (const [k, [p, s]] of ladder.bids.entries()) lb.book.add(this.houseOrder(m, 'BUY', p, s, `b${k}`));
    for (const [k, [p, s]] of ladder.asks.entries()) lb.book.add(this.houseOrder(m, 'SELL', p, s, `a${k}`));
    this.housePrint(m, lb, this.stepTime(this.step));
    return lb;
  }

  /** Makes sure a market's book is live so streams see every later change (called on subscribe). */
  touch(m: PmMarket): void {
    if (m.status === 'active') this.materialize(m);
  }

  private houseOrder(m: PmMarket, side: 'BUY' | 'SELL', price: number, size: number, tag: string): PmOrder {
    return newOrder({
      id: bytes32For(`polymarket-sim|house|${m.index}|${this.step}|${tag}`),
      seq: this.nextSeq(),
      house: true,
      ownerKey: HOUSE_KEY,
      makerAddress: HOUSE_ADDRESS,
      account: HOUSE_ADDRESS,
      market: m,
      outcome: 0,
      side,
      price,
      size,
      createdAt: Math.floor(this.now() / 1000),
    });
  }

  /** Runs an order through matching; rests what is left when `rest`. Returns the trade, if any. */
  private execute(lb: LiveBook, o: PmOrder, rest: boolean, nowMs: number): TradeRecord | null {
    const isBid = isYesBid(o);
    const fills = planFills(lb.book, isBid, yesPrice(o), remaining(o));
    let trade: TradeRecord | null = null;
    if (fills.length > 0) {
      trade = settle(this.accounts, this.cat, o, fills, nowMs);
      const t = trade;
      if (this.settler && (!o.house || t.makers.some((f) => !f.order.house)))
        t.settled = this.settler(t).then(() => this.afterSettlement(t));
      // A match that never goes on chain cannot fail: nothing to take back.
      else t.ledger.length = 0;
      lb.book.prune(isBid ? 'asks' : 'bids');
      const lastFill = fills[fills.length - 1];
      if (lastFill) lb.last = { price: lastFill.yesPrice, takerSide: isBid ? 'BUY' : 'SELL' };
      lb.tape.push(trade);
      if (lb.tape.length > TAPE_LIMIT) lb.tape.splice(0, lb.tape.length - TAPE_LIMIT);
      if (!o.house || trade.makers.some((f) => !f.order.house)) this.trades.set(trade.id, trade);
      if (!o.house) {
        const volume = this.userVolume.get(o.market.index) ?? 0;
        this.userVolume.set(o.market.index, volume + trade.usdc);
      }
    }
    if (rest && remaining(o) > 0) lb.book.add(o);
    lb.ms = nowMs;
    this.version += 1;
    return trade;
  }

  private housePrint(m: PmMarket, lb: LiveBook, nowMs: number): TradeRecord | null {
    const print = houseTrade(m, this.step);
    const best = print.takerSide === 'BUY' ? lb.book.asks[0] : lb.book.bids[0];
    if (!best) return null;
    const taker = this.houseOrder(m, print.takerSide, best.price, print.size, 'print');
    return this.execute(lb, taker, false, nowMs);
  }

  /** Places a validated user order. Refusals here (FOK/FAK/post-only) leave the book and balances untouched. */
  submit(o: PmOrder, postOnly: boolean): SubmitResult {
    const lb = this.materialize(o.market);
    const nowMs = this.now();
    const isBid = isYesBid(o);
    if (postOnly && wouldCross(lb.book, isBid, yesPrice(o)))
      return { ok: false, error: CLOB_ERRORS.postOnlyCrosses };
    const planned = filledSize(planFills(lb.book, isBid, yesPrice(o), o.size));
    if (o.orderType === 'FOK' && planned < o.size) return { ok: false, error: CLOB_ERRORS.fokNotFilled };
    if (o.orderType === 'FAK' && planned === 0) return { ok: false, error: CLOB_ERRORS.fakNotFilled };
    const watched = this.feed.watches(o.market);
    const before = watched ? depthOf(lb.book) : null;
    const wallet = this.accounts.wallet(o.account);
    this.orders.set(o.id, o);
    wallet.open.add(o);
    this.feed.orderEvent(o, 'PLACEMENT', nowMs);
    const rests = o.orderType === 'GTC' || o.orderType === 'GTD';
    const trade = this.execute(lb, o, rests, nowMs);
    if (remaining(o) <= 0) o.status = 'MATCHED';
    else if (!rests) o.status = 'CANCELED';
    if (o.status !== 'LIVE') wallet.open.delete(o);
    else if (o.orderType === 'GTD') this.gtd.add(o);
    if (before) this.feed.bookChanged(o.market, before, depthOf(lb.book), nowMs);
    if (trade) this.announce(trade, nowMs);
    if (o.status === 'CANCELED') this.feed.orderEvent(o, 'CANCELLATION', nowMs);
    return { ok: true, trade };
  }

  /**
   * The ledger follows the chain: a mined settlement is final (the sandbox chain has no reorgs), a failed one is
   * taken back out of the ledger — balances, positions, fees and matched sizes — so that nothing moved anywhere.
   * An order the failed match had completed is not put back on the book: it ends CANCELED with what it matched
   * before; an order still resting keeps resting with its size given back. Polymarket does not publish what its
   * CLOB does with such orders (py-clob-client-v2 issue #34 reports it keeping size_matched of settlements that
   * never happened, as a bug); the simulator keeps the ledger true to the chain instead.
   */
  private afterSettlement(t: TradeRecord): void {
    if (t.chainStatus === undefined || t.chainStatus === 'PENDING') {
      t.ledger.length = 0;
      return;
    }
    const nowMs = this.now();
    if (t.chainStatus === 'CONFIRMED') {
      t.ledger.length = 0;
      this.feed.tradeSettled(t, nowMs);
      return;
    }
    const lb = this.live.get(t.market.index);
    const before = lb && this.feed.watches(t.market) ? depthOf(lb.book) : null;
    revertSettlement(this.accounts, t);
    if (!t.taker.house) {
      const volume = this.userVolume.get(t.market.index) ?? 0;
      this.userVolume.set(t.market.index, volume - t.usdc);
    }
    const orders = new Set([t.taker, ...t.makers.map((f) => f.order)]);
    const canceled = new Set<PmOrder>();
    for (const o of orders) {
      if (o.status !== 'MATCHED') continue;
      o.status = 'CANCELED';
      this.gtd.delete(o);
      canceled.add(o);
    }
    if (lb) lb.ms = nowMs;
    this.version += 1;
    if (lb && before) this.feed.bookChanged(t.market, before, depthOf(lb.book), nowMs);
    this.feed.tradeSettled(t, nowMs);
    for (const o of orders) this.feed.orderEvent(o, canceled.has(o) ? 'CANCELLATION' : 'UPDATE', nowMs);
  }

  private announce(trade: TradeRecord, nowMs: number): void {
    this.feed.traded(trade, nowMs);
    if (!trade.taker.house) this.feed.orderEvent(trade.taker, 'UPDATE', nowMs);
    for (const m of trade.makers) if (!m.order.house) this.feed.orderEvent(m.order, 'UPDATE', nowMs);
  }

  cancel(o: PmOrder): boolean {
    if (o.status !== 'LIVE') return false;
    const lb = this.live.get(o.market.index);
    const nowMs = this.now();
    const before = lb && this.feed.watches(o.market) ? depthOf(lb.book) : null;
    lb?.book.remove(o);
    o.status = 'CANCELED';
    this.accounts.wallet(o.account).open.delete(o);
    this.gtd.delete(o);
    if (lb) lb.ms = nowMs;
    this.version += 1;
    if (lb && before) this.feed.bookChanged(o.market, before, depthOf(lb.book), nowMs);
    this.feed.orderEvent(o, 'CANCELLATION', nowMs);
    return true;
  }

  /** GTD orders leave the book one minute before their expiration (the exchange's security threshold). */
  expire(nowMs: number): number {
    let count = 0;
    for (const o of [...this.gtd]) {
      if ((o.expiration - 60) * 1000 <= nowMs && this.cancel(o)) count += 1;
    }
    return count;
  }

  /** Moves every live book `steps` house steps: re-quote around the new fair price, then the house print. */
  advance(steps: number): number {
    for (let i = 0; i < steps; i++) {
      this.step += 1;
      const nowMs = this.now();
      this.stepMs.push(nowMs);
      for (const [index, lb] of this.live) {
        const m = this.cat.markets[index];
        if (m) this.requote(m, lb, nowMs);
      }
    }
    return this.step;
  }

  private requote(m: PmMarket, lb: LiveBook, nowMs: number): void {
    const watched = this.feed.watches(m);
    const before = watched ? depthOf(lb.book) : null;
    for (const o of [...lb.book.orders()]) if (o.house) lb.book.remove(o);
    const ladder = houseLadder(m, this.step);
    const oldTick = lb.tick;
    lb.tick = ladder.tick;
    const trades: TradeRecord[] = [];
    const place = (o: PmOrder) => {
      const t = this.execute(lb, o, true, nowMs);
      if (t) trades.push(t);
    };
    for (const [k, [p, s]] of ladder.bids.entries()) place(this.houseOrder(m, 'BUY', p, s, `b${k}`));
    for (const [k, [p, s]] of ladder.asks.entries()) place(this.houseOrder(m, 'SELL', p, s, `a${k}`));
    const print = this.housePrint(m, lb, nowMs);
    if (print) trades.push(print);
    if (oldTick !== lb.tick) this.feed.tickChanged(m, oldTick, lb.tick, nowMs);
    if (before) this.feed.bookChanged(m, before, depthOf(lb.book), nowMs);
    for (const t of trades) this.announce(t, nowMs);
  }

  /** Trades of a market for the public tape, newest first: house prints before materialization, then recorded. */
  tape(m: PmMarket, limit: number): Array<TradeRecord | HousePrint> {
    const lb = this.live.get(m.index);
    const recorded = lb ? [...lb.tape].reverse().slice(0, limit) : [];
    const synthetic: HousePrint[] = [];
    if (m.status === 'active') {
      const first = (lb ? lb.since : this.step + 1) - 1;
      for (let s = first; s >= 0 && recorded.length + synthetic.length < limit; s--) {
        const ladder = houseLadder(m, s);
        const print = houseTrade(m, s);
        const level = print.takerSide === 'BUY' ? ladder.asks[0] : ladder.bids[0];
        if (level)
          synthetic.push({ ms: this.stepTime(s), side: print.takerSide, price: level[0], size: print.size });
      }
    }
    return [...recorded, ...synthetic];
  }

  /** All recorded trades across live books, newest first (the global tape). */
  recordedTape(): TradeRecord[] {
    const all: TradeRecord[] = [];
    for (const lb of this.live.values()) all.push(...lb.tape);
    return all.sort((a, b) => b.ms - a.ms);
  }

  /** USD volume: pre-simulation volume, the house's prints and user matches. */
  volume(m: PmMarket): number {
    return m.baseVolume + houseVolume(m, this.step) + (this.userVolume.get(m.index) ?? 0) / ONE;
  }
}

export function depthOf(book: OrderBook): Depth {
  return { bids: book.depth('bids'), asks: book.depth('asks') };
}
