// The simulated exchange's state: books, customer orders, fills, positions and cash, and the matching rules
// (price-time priority, execution at the resting price, self-trade prevention, IOC/FOK, post-only), with the
// cash flows of fully collateralised binary contracts (a YES+NO pair nets out to $1). Requests arrive already
// parsed; errors are thrown as ExchangeError carrying the exchange's own code, which the routes render.
import { randomUUID } from 'node:crypto';
import { type BookSide, type LevelChange, MarketBook, type OutcomeSide } from './book.js';
import type { SimCatalog, SimMarket } from './catalog.js';
import { ONE_DOLLAR } from './fixed.js';
import { HistoricalCutoff } from './historical.js';
import { houseQuote, tapeTrade } from './house.js';
import { crossable, type MatchContext, type MatchResult, take, uncross } from './matching.js';

export type { MatchResult } from './matching.js';

import {
  available,
  collateral,
  type PublicTrade,
  type SelfTradePrevention,
  type SimFill,
  type SimOrder,
  type SimUser,
  type TimeInForce,
} from './ledger.js';

export type {
  PublicTrade,
  SelfTradePrevention,
  SimFill,
  SimOrder,
  SimPosition,
  SimUser,
  TimeInForce,
} from './ledger.js';

export class ExchangeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly details?: string,
  ) {
    super(code);
  }
}

/**
 * An order on a market that is not open for trading (not yet open, or closed): production answers 409
 * `market_closed` (see docs/venues/kalshi.md for the evidence).
 */
function notTrading(): ExchangeError {
  return new ExchangeError(409, 'market_closed');
}

export interface ExchangeListener {
  level(ticker: string, marketId: string, change: LevelChange): void;
  trade(trade: PublicTrade): void;
  fill(userId: string, fill: SimFill, order: SimOrder): void;
  order(order: SimOrder): void;
  ticker(market: SimMarket): void;
}

export interface NewOrder {
  ticker: string;
  clientOrderId: string;
  bookSide: BookSide;
  centis: number;
  yesPrice: number;
  tif: TimeInForce;
  expirationS: number | null;
  postOnly: boolean;
  stp: SelfTradePrevention;
}

export class SimExchange {
  readonly users = new Map<string, SimUser>();
  /** The live/historical boundary (GET /historical/cutoff), moved by `POST /__sim/kalshi/historical-cutoff`. */
  readonly cutoff = new HistoricalCutoff();
  private readonly books = new Map<string, MarketBook>();
  private readonly realTrades = new Map<string, PublicTrade[]>();
  private readonly everyTrade: PublicTrade[] = [];
  private readonly watched = new Map<string, number>();
  private readonly expiring = new Set<SimOrder>();
  /** Time of each advance step (index k-1 for step k); steps ≤ 0 are the opening history a minute apart. */
  readonly stepTimes: number[] = [];
  step = 0;

  constructor(
    readonly catalog: SimCatalog,
    private readonly now: () => number,
    private readonly listener: ExchangeListener,
    private readonly bootMs = now(),
  ) {}

  /** The simulator's clock (wall time plus the offset tests move it by). */
  clockMs(): number {
    return this.now();
  }

  timeOfStep(k: number): number {
    return k >= 1 ? (this.stepTimes[k - 1] ?? this.bootMs) : this.bootMs + (k - 1) * 60_000;
  }

  addUser(cash: number): SimUser {
    const user: SimUser = {
      userId: randomUUID(),
      cash,
      orders: [],
      ordersById: new Map(),
      clientOrderIds: new Set(),
      fills: [],
      positions: new Map(),
      balanceUpdatedMs: this.now(),
    };
    this.users.set(user.userId, user);
    return user;
  }

  /** Cash not set aside for resting orders: what `balance` reports. */
  available(user: SimUser): number {
    return available(user);
  }

  // ---- books ----

  /** The book of a market, requoted by the house up to the current step. */
  book(market: SimMarket): MarketBook {
    let book = this.books.get(market.ticker);
    if (!book) {
      book = new MarketBook((change) => this.listener.level(market.ticker, market.marketId, change));
      this.books.set(market.ticker, book);
    }
    if (book.step !== this.step) {
      const isWatched = (this.watched.get(market.ticker) ?? 0) > 0;
      if (isWatched && market.status === 'active') {
        for (let k = Math.max(book.step + 1, 1); k <= this.step; k++) {
          this.listener.trade(this.tapeTrade(market, k));
        }
      }
      book.step = this.step;
      book.requote(
        market.status === 'active' ? houseQuote(market, this.step) : { yes: new Map(), no: new Map() },
      );
      uncross(this.matchContext(), market, book);
      if (isWatched) this.listener.ticker(market);
    }
    return book;
  }

  watch(ticker: string, delta: 1 | -1): void {
    const n = (this.watched.get(ticker) ?? 0) + delta;
    if (n > 0) this.watched.set(ticker, n);
    else this.watched.delete(ticker);
  }

  /** One advance step: the house requotes and trades on every watched market (others catch up when read). */
  advance(steps: number): number {
    for (let i = 0; i < steps; i++) {
      this.step += 1;
      this.stepTimes.push(this.now());
      for (const ticker of this.watched.keys()) {
        const market = this.catalog.marketByTicker.get(ticker);
        if (market) this.book(market);
      }
    }
    return this.step;
  }

  tapeTrade(market: SimMarket, k: number): PublicTrade {
    const t = tapeTrade(market, k, this.timeOfStep(k));
    return {
      tradeId: t.tradeId,
      ticker: market.ticker,
      yesPrice: t.yesPrice,
      centis: t.centis,
      takerOutcome: t.takerOutcome,
      timeMs: t.timeMs,
    };
  }

  /** Customer trades of every market, oldest first. */
  allTrades(): readonly PublicTrade[] {
    return this.everyTrade;
  }

  /** Customer trades of a market, oldest first. */
  tradesOf(ticker: string): readonly PublicTrade[] {
    return this.realTrades.get(ticker) ?? [];
  }

  /** Last traded YES price: the newest of the customer trades and the house tape. */
  lastPrice(market: SimMarket): number | null {
    if (market.status !== 'active') return null;
    const tape = this.tapeTrade(market, this.step);
    const real = this.tradesOf(market.ticker).at(-1);
    return real && real.timeMs >= tape.timeMs ? real.yesPrice : tape.yesPrice;
  }

  // ---- orders ----

  place(user: SimUser, req: NewOrder): MatchResult {
    this.expire();
    const market = this.catalog.marketByTicker.get(req.ticker);
    if (!market) throw new ExchangeError(404, 'market_not_found');
    if (market.status !== 'active') throw notTrading();
    if (req.clientOrderId !== '' && user.clientOrderIds.has(req.clientOrderId)) {
      throw new ExchangeError(409, 'order_already_exists');
    }
    const book = this.book(market);
    const own = req.bookSide === 'bid' ? 'yes' : 'no';
    const opposite: OutcomeSide = own === 'yes' ? 'no' : 'yes';
    const ownPrice = own === 'yes' ? req.yesPrice : ONE_DOLLAR - req.yesPrice;
    const crosses = (oppositePrice: number) => ownPrice + oppositePrice >= ONE_DOLLAR;
    const bestOpposite = book.best(opposite);
    if (req.postOnly && bestOpposite !== null && crosses(bestOpposite)) {
      throw new ExchangeError(400, 'invalid_order', 'post only cross');
    }
    const required = collateral(user, req.ticker, own, ownPrice, req.centis);
    if (required > this.available(user)) throw new ExchangeError(400, 'insufficient_balance');

    const nowMs = this.now();
    const order: SimOrder = {
      orderId: randomUUID(),
      userId: user.userId,
      clientOrderId: req.clientOrderId,
      ticker: req.ticker,
      bookSide: req.bookSide,
      yesPrice: req.yesPrice,
      remainingCentis: req.centis,
      initialCentis: req.centis,
      filledCentis: 0,
      status: 'resting',
      tif: req.tif,
      expirationS: req.expirationS,
      stp: req.stp,
      createdMs: nowMs,
      lastUpdateMs: nowMs,
      takerFillCost: 0,
      makerFillCost: 0,
      takerFees: 0,
      makerFees: 0,
      reserved: 0,
    };
    user.orders.push(order);
    user.ordersById.set(order.orderId, order);
    if (req.clientOrderId !== '') user.clientOrderIds.add(req.clientOrderId);

    if (req.tif === 'fill_or_kill' && crossable(book, opposite, crosses) < req.centis) {
      this.finish(order, 'canceled');
      return { order, filledCentis: 0, fillCost: 0, fees: 0 };
    }
    const result = take(this.matchContext(), market, book, user, order, opposite, crosses);
    if (order.remainingCentis > 0 && order.status === 'resting') {
      if (req.tif === 'good_till_canceled') {
        order.reserved = collateral(user, req.ticker, own, ownPrice, order.remainingCentis);
        book.add(order);
        if (order.expirationS !== null) this.expiring.add(order);
      } else {
        order.remainingCentis = 0;
        this.finish(order, 'canceled');
      }
    }
    if (order.status === 'resting' && order.remainingCentis === 0) this.finish(order, 'executed');
    this.listener.order(order);
    this.listener.ticker(market);
    return result;
  }

  cancel(user: SimUser, orderId: string): { order: SimOrder; reducedBy: number } {
    this.expire();
    const order = user.ordersById.get(orderId);
    if (order?.status !== 'resting') throw new ExchangeError(404, 'not_found');
    const market = this.catalog.marketByTicker.get(order.ticker);
    if (market && market.status !== 'active') throw notTrading();
    const reducedBy = order.remainingCentis;
    this.reduceResting(order, reducedBy);
    return { order, reducedBy };
  }

  decrease(user: SimUser, orderId: string, target: { by?: number; to?: number }): SimOrder {
    this.expire();
    const order = user.ordersById.get(orderId);
    if (order?.status !== 'resting') throw new ExchangeError(404, 'not_found');
    const by = target.by ?? order.remainingCentis - (target.to ?? order.remainingCentis);
    if (by <= 0) throw new ExchangeError(400, 'invalid_parameters', 'the decrease must reduce the order');
    this.reduceResting(order, Math.min(by, order.remainingCentis));
    return order;
  }

  /** Amend: new YES price and/or new total count (filled + desired remaining); a moved price loses priority. */
  amend(user: SimUser, orderId: string, change: { yesPrice: number; totalCentis: number }): MatchResult {
    this.expire();
    const order = user.ordersById.get(orderId);
    if (order?.status !== 'resting') throw new ExchangeError(404, 'not_found');
    const market = this.catalog.marketByTicker.get(order.ticker);
    if (market?.status !== 'active') throw notTrading();
    const remaining = change.totalCentis - order.filledCentis;
    if (remaining <= 0)
      throw new ExchangeError(400, 'invalid_parameters', 'count must exceed the filled count');
    const book = this.book(market);
    const own: OutcomeSide = order.bookSide === 'bid' ? 'yes' : 'no';
    const ownPrice = own === 'yes' ? change.yesPrice : ONE_DOLLAR - change.yesPrice;
    const oldReserved = order.reserved;
    order.reserved = 0;
    const required = collateral(user, order.ticker, own, ownPrice, remaining);
    if (required > this.available(user)) {
      order.reserved = oldReserved;
      throw new ExchangeError(400, 'insufficient_balance');
    }
    const cause = { userId: user.userId, clientOrderId: order.clientOrderId };
    const before = { filled: order.filledCentis, cost: order.takerFillCost, fees: order.takerFees };
    if (change.yesPrice === order.yesPrice && remaining <= order.remainingCentis) {
      // Size down at the same price keeps the order's place in the queue.
      book.reduce(order, order.remainingCentis - remaining, cause);
      order.reserved = collateral(user, order.ticker, own, ownPrice, remaining);
      order.lastUpdateMs = this.now();
      this.listener.order(order);
      return { order, filledCentis: 0, fillCost: 0, fees: 0 };
    }
    book.reduce(order, order.remainingCentis, cause);
    order.yesPrice = change.yesPrice;
    order.remainingCentis = remaining;
    order.initialCentis = change.totalCentis;
    const opposite: OutcomeSide = own === 'yes' ? 'no' : 'yes';
    take(this.matchContext(), market, book, user, order, opposite, (p) => ownPrice + p >= ONE_DOLLAR);
    if (order.status === 'resting' && order.remainingCentis > 0) {
      order.reserved = collateral(user, order.ticker, own, ownPrice, order.remainingCentis);
      book.add(order);
    } else if (order.status === 'resting') {
      this.finish(order, 'executed');
    }
    order.lastUpdateMs = this.now();
    this.listener.order(order);
    this.listener.ticker(market);
    return {
      order,
      filledCentis: order.filledCentis - before.filled,
      fillCost: order.takerFillCost - before.cost,
      fees: order.takerFees - before.fees,
    };
  }

  /** Cancels resting orders whose expiration time has passed (the exchange's good-till-time orders). */
  expire(): void {
    if (this.expiring.size === 0) return;
    const nowS = this.now() / 1000;
    for (const order of [...this.expiring]) {
      if (order.status !== 'resting') this.expiring.delete(order);
      else if (order.expirationS !== null && order.expirationS <= nowS)
        this.reduceResting(order, order.remainingCentis);
    }
  }

  // ---- internals ----

  private reduceResting(order: SimOrder, centis: number): void {
    const market = this.catalog.marketByTicker.get(order.ticker);
    const book = market ? this.book(market) : undefined;
    if (book) book.reduce(order, centis, { userId: order.userId, clientOrderId: order.clientOrderId });
    else order.remainingCentis -= centis;
    const user = this.users.get(order.userId);
    const own: OutcomeSide = order.bookSide === 'bid' ? 'yes' : 'no';
    const ownPrice = own === 'yes' ? order.yesPrice : ONE_DOLLAR - order.yesPrice;
    order.reserved = user ? collateral(user, order.ticker, own, ownPrice, order.remainingCentis) : 0;
    order.lastUpdateMs = this.now();
    if (order.remainingCentis <= 0) {
      order.remainingCentis = 0;
      this.finish(order, 'canceled');
    }
    this.listener.order(order);
    if (market) this.listener.ticker(market);
  }

  private finish(order: SimOrder, status: 'canceled' | 'executed'): void {
    order.status = status;
    order.reserved = 0;
    order.lastUpdateMs = this.now();
    this.expiring.delete(order);
  }

  /** What the matching functions need from the exchange. */
  private matchContext(): MatchContext {
    return {
      users: this.users,
      now: () => this.now(),
      fill: (user, fill, order) => this.listener.fill(user.userId, fill, order),
      order: (order) => this.listener.order(order),
      trade: (market, yesPrice, centis, takerOutcome) =>
        this.recordTrade(market, yesPrice, centis, takerOutcome),
      finish: (order, status) => this.finish(order, status),
      reduceResting: (order, centis) => this.reduceResting(order, centis),
    };
  }

  private recordTrade(market: SimMarket, yesPrice: number, centis: number, takerOutcome: OutcomeSide): void {
    const trade: PublicTrade = {
      tradeId: randomUUID(),
      ticker: market.ticker,
      yesPrice,
      centis,
      takerOutcome,
      timeMs: this.now(),
    };
    const list = this.realTrades.get(market.ticker);
    if (list) list.push(trade);
    else this.realTrades.set(market.ticker, [trade]);
    this.everyTrade.push(trade);
    this.listener.trade(trade);
  }
}
