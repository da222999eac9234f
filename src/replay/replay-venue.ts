// One recorded exchange as a venue adapter (the VenueAdapter port): its catalogue is the recorded markets, its
// books and trades are the recording as of the replay clock, its market stream is fed by the replay driver, and its
// trading facet is a paper exchange that fills orders against the recording by the rules of
// src/domain/replay/paper-matching.ts (docs/replay.md). Everything is in memory and advanced only by the driver.
import type { OrderBook, Trade } from '../domain/book.js';
import { Decimal } from '../domain/decimal.js';
import type { ExchangeId } from '../domain/exchanges.js';
import { feeFor } from '../domain/fees/fee-for.js';
import type { FeeSchedule } from '../domain/fees/schedule.js';
import type { TakerFeeModel } from '../domain/fees/taker-fee-model.js';
import type { Market } from '../domain/market.js';
import {
  type PaperFill,
  queueAfterBook,
  type RestingOrder,
  sizeAtPrice,
  TakenLiquidity,
  takeLiquidity,
  tradeAgainstResting,
} from '../domain/replay/paper-matching.js';
import type { MarketStreamEvent } from '../domain/stream.js';
import type { Balance, Fill, Order, OrderRequest, OrderStatus, Position } from '../domain/trading.js';
import { AppError } from '../errors/app-error.js';
import type { RecordedBook } from '../store/book-snapshot-codec.js';
import type { RecordedTradeRow } from '../store/recorded-trades-repo.js';
import type {
  MarketStream,
  OrderRef,
  SendHooks,
  StreamContext,
  StreamTarget,
  TradesPage,
  TradesQuery,
  VenueAdapter,
  VenueDescriptor,
  VenueSession,
} from '../venues/port.js';
import type { WindowBook } from './recorded-window.js';
import { ReplayMarketStream } from './replay-market-stream.js';
import { ReplayUserStream } from './replay-user-stream.js';

/** Reads the replay clock (Unix ms). */
export type ClockRead = () => number;

const NAMES = new Map<ExchangeId, string>([
  ['polymarket', 'Polymarket'],
  ['kalshi', 'Kalshi'],
  ['limitless', 'Limitless'],
  ['opinion', 'Opinion'],
  ['predictfun', 'Predict.fun'],
]);

/**
 * The taker fee parameters a replay charges (they are not recorded): each venue's published general schedule,
 * priced by its own fee model in src/domain/fees/. Makers pay nothing. Documented in docs/replay.md.
 */
/** The fee module pricing each venue's replay schedule above (limitless and opinion: none, as live). */
const REPLAY_TAKER_FEE_MODELS = new Map<ExchangeId, TakerFeeModel>([
  ['polymarket', 'polymarket_fee_curve'],
  ['kalshi', 'kalshi_fee_multiplier'],
  ['predictfun', 'predictfun_fee_rate_bps'],
]);

export const REPLAY_FEE_SCHEDULES = new Map<ExchangeId, FeeSchedule>([
  ['polymarket', { venue: 'polymarket', rate: '0.02', exponent: 1 }],
  ['kalshi', { venue: 'kalshi', feeType: 'quadratic', multiplier: '0.07' }],
  ['predictfun', { venue: 'predictfun', feeRateBps: '200' }],
  ['limitless', { venue: 'limitless' }],
  ['opinion', { venue: 'opinion' }],
]);

export interface ReplayVenueOptions {
  exchange: ExchangeId;
  books: readonly WindowBook[];
  clock: ClockRead;
  /** Names order ids (nothing in the fill rules is random). */
  seed: number;
  /** Paper cash each account starts with, USD. */
  startingCash: string;
}

interface BookState {
  window: WindowBook;
  key: string;
  tokenId: string;
  outcome: string;
  book: RecordedBook | null;
  bookTsMs: number | null;
  taken: TakenLiquidity;
  trades: Trade[];
  resting: PaperOrder[];
}

interface PaperOrder {
  order: Order;
  account: Account;
  book: BookState;
  remaining: Decimal;
  queueAhead: Decimal;
  expiresAtMs: number | null;
}

interface Account {
  name: string;
  cash: Decimal;
  positions: Map<
    string,
    { marketId: string; outcome: string; book: BookState; size: Decimal; cost: Decimal }
  >;
  orders: PaperOrder[];
  byClientId: Map<string, PaperOrder>;
  fills: Fill[];
}

/** One fill as the report and the stream of own fills see it. */
export interface PaperFillRecord {
  exchange: ExchangeId;
  account: string;
  fill: Fill;
}

export class ReplayVenue implements VenueAdapter {
  readonly descriptor: VenueDescriptor;
  readonly catalog: VenueAdapter['catalog'];
  readonly marketData: VenueAdapter['marketData'];
  readonly trading: VenueAdapter['trading'];
  private readonly books = new Map<string, BookState>();
  private readonly byIndex = new Map<number, BookState>();
  private readonly markets = new Map<string, Market>();
  private readonly accounts = new Map<string, Account>();
  private readonly streams = new Set<ReplayMarketStream>();
  private readonly userStreams = new Set<ReplayUserStream>();
  private readonly fee: FeeSchedule;
  private orderSeq = 0;
  /** Every paper fill in the order it happened (the backtest report reads it). */
  readonly fillLog: PaperFillRecord[] = [];

  constructor(private readonly options: ReplayVenueOptions) {
    const id = options.exchange;
    this.fee = REPLAY_FEE_SCHEDULES.get(id) ?? { venue: 'opinion' };
    for (const w of options.books) {
      const outcome = w.market.outcomes.find((o) => o.token_id === w.instrument.token_id);
      const state: BookState = {
        window: w,
        key: bookKey(w.instrument.market_id, w.instrument.token_id),
        tokenId: w.instrument.token_id,
        outcome: outcome?.name ?? w.instrument.outcome,
        book: w.initial?.book ?? null,
        bookTsMs: w.initial?.tsMs ?? null,
        taken: new TakenLiquidity(),
        trades: [],
        resting: [],
      };
      this.books.set(state.key, state);
      this.byIndex.set(w.index, state);
      this.markets.set(w.market.exchange_market_id, w.market);
    }
    this.descriptor = Object.freeze({
      id,
      name: `${NAMES.get(id) ?? id} (replay)`,
      has: Object.freeze({
        fetch_markets: 'supported',
        fetch_events: 'unsupported',
        fetch_orderbook: 'supported',
        fetch_orderbook_history: 'unsupported',
        // Candles of the recorded trades up to the clock.
        fetch_price_history: 'supported',
        fetch_trades: 'supported',
        fetch_user_activity: 'unsupported',
        fetch_execution_price: 'supported',
        // Arbitrage prices taker legs net of fees: only where the venue's fee model is known (features below).
        fetch_arbitrage: REPLAY_TAKER_FEE_MODELS.get(id) ? 'supported' : 'unsupported',
        create_order: 'supported',
        cancel_order: 'supported',
        fetch_order_history: 'supported',
        fetch_fills: 'supported',
        fetch_positions: 'supported',
        fetch_balance: 'supported',
        refresh_balance: 'unsupported',
        watch_address: 'unsupported',
        websocket: 'supported',
      }),
      features: Object.freeze({
        orderTypes: Object.freeze(['gtc', 'ioc', 'fok', 'gtd'] as const),
        gtdMinLeadSeconds: 0,
        maxBookDepth: 1000,
        // The replay stream carries the recorded trades.
        streamTrades: true,
        takerFeeModel: REPLAY_TAKER_FEE_MODELS.get(id) ?? null,
        candleIntervals: Object.freeze(['1m', '1h', '6h', '1d', '1w', 'max'] as const),
      }),
      credentials: Object.freeze([
        {
          name: 'account',
          required: true,
          secret: false,
          description: 'A paper account name of the replay; opened with its starting cash on first use',
        },
      ]),
      onboarding: Object.freeze(['self'] as const),
      balanceUnit: 'USD decimal strings (`cash`, `available`)',
      rateLimit: Object.freeze({ requestsPerSecond: 1_000_000, burst: 1_000_000 }),
    }) as VenueDescriptor;

    this.catalog = {
      fetchMarketsPage: async () => ({ items: [...this.markets.values()], cursor: null }),
      fetchMarket: async (_ctx, nativeId) => this.markets.get(nativeId) ?? null,
    };
    this.marketData = {
      fetchOrderBook: async (_ctx, market, outcome) =>
        this.orderBook(this.bookFor(market.exchange_market_id, outcome)),
      fetchTrades: async (_ctx, market, outcome, query) =>
        this.tradesPage(this.bookFor(market.exchange_market_id, outcome), query),
      fetchFeeSchedule: async () => this.fee,
      fetchPriceHistory: async (_ctx, market, outcome, query) => ({
        kind: 'ticks',
        ticks: this.bookFor(market.exchange_market_id, outcome)
          .trades.map((t) => ({
            t: Math.floor(Date.parse(t.timestamp) / 1000),
            price: t.price,
            size: t.size,
          }))
          .filter((t) => t.t >= query.startTs && t.t <= query.endTs),
      }),
      openMarketStream: (ctx: StreamContext): MarketStream => {
        const stream = new ReplayMarketStream(
          {
            keyOf: (t: StreamTarget) => this.bookFor(t.market.exchange_market_id, t.outcome).key,
            snapshotOf: (key) => {
              const state = this.books.get(key);
              return state?.book ? this.snapshotEvent(state) : null;
            },
          },
          ctx.signal,
          (s) => this.streams.delete(s),
        );
        this.streams.add(stream);
        return stream;
      },
    };
    this.trading = {
      createOrder: (_ctx, session, order, hooks) => this.place(session, order, hooks),
      lookupOrder: async (_ctx, session, ref: OrderRef) =>
        this.account(session).byClientId.get(ref.clientOrderId)?.order ?? null,
      getOrder: async (_ctx, session, orderId) => this.findOrder(session, orderId).order,
      listOpenOrders: async (_ctx, session, marketId) =>
        this.account(session)
          .orders.filter((o) => isOpen(o.order.status))
          .filter((o) => marketId === null || o.order.market_id === marketId)
          .map((o) => o.order),
      cancelOrder: async (_ctx, session, orderId) => {
        const paper = this.findOrder(session, orderId);
        if (!isOpen(paper.order.status))
          throw new AppError('conflict', `order ${orderId} is ${paper.order.status}`);
        this.end(paper, 'cancelled');
        return paper.order;
      },
      fetchOrderHistory: async (_ctx, session, marketId) =>
        this.account(session)
          .orders.filter((o) => marketId === null || o.order.market_id === marketId)
          .map((o) => o.order)
          .reverse(),
      fetchFills: async (_ctx, session, marketId, limit) =>
        this.account(session)
          .fills.filter((f) => marketId === null || f.market_id === marketId)
          .slice(-limit)
          .reverse(),
      fetchPositions: async (_ctx, session, marketId) => this.positions(session, marketId),
      // The account's own fills, as a venue's user channel carries them in the sandbox (replay-user-stream.ts).
      openUserStream: (ctx, session) => {
        const stream = new ReplayUserStream(this.account(session).name, ctx.signal, (s) =>
          this.userStreams.delete(s),
        );
        this.userStreams.add(stream);
        return stream;
      },
      fetchBalance: async (_ctx, session): Promise<Balance> => {
        const account = this.account(session);
        return {
          raw: {
            account: account.name,
            cash: account.cash.toString(),
            available: account.cash.sub(this.reservedCash(account)).toString(),
            currency: 'USD',
          },
        };
      },
    };
  }

  async ping(): Promise<{ reachable: boolean; authenticated: boolean; message: string }> {
    return {
      reachable: true,
      authenticated: true,
      message: `replay of the recording at ${new Date(this.options.clock()).toISOString()}`,
    };
  }

  // ── driven by the replay driver ──

  /** A recorded trade of one of this venue's books: resting paper orders it reaches fill, and it is streamed. */
  applyTrade(index: number, row: RecordedTradeRow): void {
    const state = this.byIndex.get(index);
    if (!state) return;
    const trade: Trade = {
      id: row.tradeId,
      price: Number(row.price),
      size: Number(row.size),
      side: row.side,
      aggressor_side: row.aggressorSide,
      timestamp: new Date(row.tsMs).toISOString(),
      outcome: state.outcome,
    };
    state.trades.push(trade);
    const resting: RestingOrder[] = state.resting.map((p) => ({
      id: p.order.id,
      side: p.order.side,
      price: Decimal.fromNumber(p.order.price),
      remaining: p.remaining,
      queueAhead: p.queueAhead,
    }));
    const outcomes = tradeAgainstResting(resting, {
      price: Decimal.parse(row.price),
      size: Decimal.parse(row.size),
      aggressor: row.aggressorSide,
    });
    for (const o of outcomes) {
      const paper = state.resting.find((p) => p.order.id === o.id);
      if (!paper) continue;
      paper.queueAhead = o.queueAhead;
      if (o.fill.gt(Decimal.ZERO)) {
        this.filled(paper, [{ price: Decimal.fromNumber(paper.order.price), size: o.fill }], false);
      }
    }
    const event: MarketStreamEvent = {
      type: 'trade',
      instrument: {
        market_id: state.window.instrument.market_id,
        outcome: state.outcome,
        token_id: state.tokenId,
      },
      trade,
      source_channel: row.sourceChannel,
      received_ts_ms: this.options.clock(),
    };
    for (const s of this.streams) s.offer(state.key, event);
  }

  /** A recorded book state: it replaces the book, frees the liquidity paper orders took, and moves queues up. */
  applyBook(index: number, tsMs: number, book: RecordedBook): void {
    const state = this.byIndex.get(index);
    if (!state) return;
    state.book = book;
    state.bookTsMs = tsMs;
    state.taken.clear();
    for (const p of state.resting) {
      p.queueAhead = queueAfterBook(p.order.side, Decimal.fromNumber(p.order.price), p.queueAhead, book);
    }
    const event = this.snapshotEvent(state);
    for (const s of this.streams) s.offer(state.key, event);
  }

  /** Ends every gtd order whose expiration the clock has reached. */
  expire(nowMs: number): void {
    for (const state of this.books.values()) {
      for (const p of [...state.resting]) {
        if (p.expiresAtMs !== null && p.expiresAtMs <= nowMs) this.end(p, 'expired');
      }
    }
  }

  /** Waits until every open stream's consumer (market and user streams) has taken what was pushed. */
  async idle(): Promise<void> {
    await Promise.all([...this.streams, ...this.userStreams].map((s) => s.idle()));
  }

  /** The mark of an outcome: the midpoint of its current recorded book, or null without both sides. */
  markOf(marketId: string, outcome: string): Decimal | null {
    return midOf(this.bookFor(marketId, outcome).book);
  }

  /**
   * An account's equity: cash plus each position at its mark (at its cost while its book has no midpoint); an
   * account that never traded is worth its starting cash.
   */
  equityOf(name: string, startingCash: string): Decimal {
    const account = this.accounts.get(name);
    if (!account) return Decimal.parse(startingCash);
    let total = account.cash;
    for (const p of account.positions.values()) {
      const mid = midOf(p.book.book);
      total = total.add(mid === null ? p.cost : p.size.mul(mid));
    }
    return total;
  }

  async close(): Promise<void> {
    await Promise.all([...this.streams, ...this.userStreams].map((s) => s.close()));
  }

  // ── paper trading ──

  private async place(session: VenueSession, request: OrderRequest, hooks?: SendHooks): Promise<Order> {
    const account = this.account(session);
    const state = this.bookFor(request.market_id, request.outcome);
    const price = Decimal.fromNumber(request.price);
    const size = Decimal.fromNumber(request.size);
    if (request.side === 'buy') {
      const available = account.cash.sub(this.reservedCash(account));
      if (available.lt(price.mul(size))) {
        throw new AppError(
          'insufficient_funds',
          `paper account ${account.name} has ${available} USD available`,
        );
      }
    } else {
      const held = account.positions.get(state.key)?.size ?? Decimal.ZERO;
      const available = held.sub(this.reservedShares(account, state));
      if (available.lt(size)) {
        throw new AppError('insufficient_funds', `paper account ${account.name} holds ${available} to sell`);
      }
    }
    const id = `${this.descriptor.id}-${this.options.seed}-${++this.orderSeq}`;
    await hooks?.beforeSend({ orderId: id });
    const now = new Date(this.options.clock()).toISOString();
    const paper: PaperOrder = {
      order: {
        id,
        market_id: request.market_id,
        outcome: state.outcome,
        side: request.side,
        price: request.price,
        size: request.size,
        filled: 0,
        status: 'open',
        created_at: now,
        updated_at: null,
        client_order_id: request.client_order_id,
      },
      account,
      book: state,
      remaining: size,
      queueAhead: Decimal.ZERO,
      expiresAtMs:
        request.order_type === 'gtd' && request.expiration !== undefined ? request.expiration * 1000 : null,
    };
    account.orders.push(paper);
    account.byClientId.set(request.client_order_id, paper);
    const book = state.book ?? { bids: [], asks: [], tick_size: null };
    if (request.order_type === 'fok' && crossingSize(request.side, price, book, state.taken).lt(size)) {
      this.end(paper, 'cancelled');
      return { ...paper.order };
    }
    const fills = takeLiquidity(request.side, price, size, book, state.taken);
    if (fills.length > 0) this.filled(paper, fills, true);
    if (paper.remaining.gt(Decimal.ZERO)) {
      if (request.order_type === 'ioc' || request.order_type === 'fok') {
        this.end(paper, 'cancelled');
      } else {
        paper.queueAhead = sizeAtPrice(request.side, price, book);
        state.resting.push(paper);
        if (paper.expiresAtMs !== null && paper.expiresAtMs <= this.options.clock())
          this.end(paper, 'expired');
      }
    }
    return { ...paper.order };
  }

  private filled(paper: PaperOrder, fills: readonly PaperFill[], taker: boolean): void {
    const { order, account, book } = paper;
    const now = new Date(this.options.clock()).toISOString();
    const fee = taker ? (feeFor(this.fee, { side: order.side, fills }).fee ?? Decimal.ZERO) : Decimal.ZERO;
    const total = fills.reduce((sum, f) => sum.add(f.size), Decimal.ZERO);
    let feeLeft = fee;
    fills.forEach((f, i) => {
      // The order's fee is charged on its fills in proportion to size; the last fill takes the remainder exactly.
      const share = i === fills.length - 1 ? feeLeft : fee.mul(f.size).div(total, 6, 'half_up');
      feeLeft = feeLeft.sub(share);
      const notional = f.price.mul(f.size);
      const position = account.positions.get(book.key) ?? {
        marketId: order.market_id,
        outcome: order.outcome,
        book,
        size: Decimal.ZERO,
        cost: Decimal.ZERO,
      };
      if (order.side === 'buy') {
        account.cash = account.cash.sub(notional).sub(share);
        position.size = position.size.add(f.size);
        position.cost = position.cost.add(notional);
      } else {
        account.cash = account.cash.add(notional).sub(share);
        const average = position.size.isZero() ? Decimal.ZERO : position.cost.div(position.size, 12);
        position.cost = position.cost.sub(average.mul(f.size));
        position.size = position.size.sub(f.size);
        if (position.size.isZero()) position.cost = Decimal.ZERO;
      }
      account.positions.set(book.key, position);
      const fill: Fill = {
        fill_id: `${order.id}-${account.fills.length + 1}`,
        order_id: order.id,
        market_id: order.market_id,
        outcome: order.outcome,
        side: order.side,
        price: f.price.toNumber(),
        size: f.size.toNumber(),
        is_taker: taker,
        fee: share.toNumber(),
        created_at: now,
      };
      account.fills.push(fill);
      this.fillLog.push({ exchange: this.descriptor.id, account: account.name, fill });
      for (const u of this.userStreams)
        if (u.account === account.name) u.push({ type: 'fill', fill: { ...fill } });
      paper.remaining = paper.remaining.sub(f.size);
    });
    order.filled = Decimal.fromNumber(order.size).sub(paper.remaining).toNumber();
    order.status = paper.remaining.isZero() ? 'filled' : 'partially_filled';
    order.updated_at = now;
    if (paper.remaining.isZero()) this.unrest(paper);
  }

  private end(paper: PaperOrder, status: Extract<OrderStatus, 'cancelled' | 'expired'>): void {
    paper.order.status = status;
    paper.order.updated_at = new Date(this.options.clock()).toISOString();
    this.unrest(paper);
  }

  private unrest(paper: PaperOrder): void {
    const list = paper.book.resting;
    const at = list.indexOf(paper);
    if (at >= 0) list.splice(at, 1);
  }

  private reservedCash(account: Account): Decimal {
    let sum = Decimal.ZERO;
    for (const p of account.orders) {
      if (isOpen(p.order.status) && p.order.side === 'buy') {
        sum = sum.add(Decimal.fromNumber(p.order.price).mul(p.remaining));
      }
    }
    return sum;
  }

  private reservedShares(account: Account, book: BookState): Decimal {
    let sum = Decimal.ZERO;
    for (const p of account.orders) {
      if (isOpen(p.order.status) && p.order.side === 'sell' && p.book === book) sum = sum.add(p.remaining);
    }
    return sum;
  }

  private positions(session: VenueSession, marketId: string | null): Position[] {
    const out: Position[] = [];
    for (const p of this.account(session).positions.values()) {
      if (p.size.isZero() || (marketId !== null && p.marketId !== marketId)) continue;
      const mid = midOf(p.book.book);
      out.push({
        market_id: p.marketId,
        outcome: p.outcome,
        size: p.size.toNumber(),
        average_price: p.cost.div(p.size, 12).toNumber(),
        current_price: mid === null ? null : mid.toNumber(),
      });
    }
    return out;
  }

  private account(session: VenueSession): Account {
    const name = session.credentials.account;
    if (!name) throw new AppError('validation_error', 'replay credentials need an account name');
    let account = this.accounts.get(name);
    if (!account) {
      account = {
        name,
        cash: Decimal.parse(this.options.startingCash),
        positions: new Map(),
        orders: [],
        byClientId: new Map(),
        fills: [],
      };
      this.accounts.set(name, account);
    }
    return account;
  }

  private findOrder(session: VenueSession, orderId: string): PaperOrder {
    const found = this.account(session).orders.find((o) => o.order.id === orderId);
    if (!found) throw new AppError('order_not_found', `no order ${orderId} on this paper account`);
    return found;
  }

  private bookFor(marketId: string, outcome: string): BookState {
    const market = this.markets.get(marketId);
    if (!market) throw new AppError('market_not_found', `${marketId} is not in the recording`);
    const wanted = outcome.toLowerCase();
    const o = market.outcomes.find((x) => x.name.toLowerCase() === wanted || x.token_id === outcome);
    const state = o?.token_id ? this.books.get(bookKey(marketId, o.token_id)) : undefined;
    if (!state) throw new AppError('validation_error', `outcome ${outcome} of ${marketId} was not recorded`);
    return state;
  }

  private orderBook(state: BookState): OrderBook {
    if (!state.book || state.bookTsMs === null) {
      throw new AppError(
        'not_found',
        `no state of this book was recorded at or before the replay clock (${new Date(this.options.clock()).toISOString()})`,
      );
    }
    return {
      exchange: this.descriptor.id,
      market_id: state.window.instrument.market_id,
      outcome: state.outcome,
      token_id: state.tokenId,
      bids: state.book.bids,
      asks: state.book.asks,
      timestamp: new Date(state.bookTsMs).toISOString(),
      tick_size: state.book.tick_size,
      min_order_size: state.window.market.min_order_size,
    };
  }

  private snapshotEvent(state: BookState): MarketStreamEvent {
    return {
      type: 'book_snapshot',
      book: this.orderBook(state),
      exchange_ts_ms: state.bookTsMs,
      received_ts_ms: this.options.clock(),
    };
  }

  private tradesPage(state: BookState, query: TradesQuery): TradesPage {
    const offset = query.cursor === null ? 0 : Number(query.cursor);
    const inWindow = state.trades
      .filter((t) => {
        const s = Date.parse(t.timestamp) / 1000;
        return (query.startTs === null || s >= query.startTs) && (query.endTs === null || s <= query.endTs);
      })
      .reverse();
    const page = inWindow.slice(offset, offset + query.limit);
    const next = offset + page.length;
    return {
      trades: page,
      cursor: next < inWindow.length ? String(next) : null,
      sourceChannel: `${this.descriptor.id}_replay`,
    };
  }
}

function isOpen(status: OrderStatus): boolean {
  return status === 'open' || status === 'partially_filled';
}

function bookKey(marketId: string, tokenId: string): string {
  return `${marketId}\u0000${tokenId}`;
}

function crossingSize(
  side: 'buy' | 'sell',
  limit: Decimal,
  book: RecordedBook,
  taken: TakenLiquidity,
): Decimal {
  let sum = Decimal.ZERO;
  for (const [p, s] of side === 'buy' ? book.asks : book.bids) {
    const price = Decimal.fromNumber(p);
    if (side === 'buy' ? price.gt(limit) : price.lt(limit)) break;
    sum = sum.add(Decimal.fromNumber(s).sub(taken.get(side === 'buy' ? 'ask' : 'bid', price)));
  }
  return sum;
}

function midOf(book: RecordedBook | null): Decimal | null {
  const bid = book?.bids[0];
  const ask = book?.asks[0];
  if (!bid || !ask) return null;
  return Decimal.fromNumber(bid[0]).add(Decimal.fromNumber(ask[0])).div(Decimal.fromInt(2), 12);
}
