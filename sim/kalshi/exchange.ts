// The simulated exchange's state: books, customer orders, fills, positions and cash, and the matching rules
// (price-time priority, execution at the resting price, self-trade prevention, IOC/FOK, post-only), with the
// cash flows of fully collateralised binary contracts (a YES+NO pair nets out to $1). Requests arrive already
// parsed; errors are thrown as ExchangeError carrying the exchange's own code, which the routes render.
import { randomUUID } from 'node:crypto';
import { type BookSide, type LevelChange, MarketBook, type OutcomeSide, type RestingOrder } from './book.js';
import type { SimCatalog, SimMarket } from './catalog.js';
import { costOf, ONE_DOLLAR, takerFee } from './fixed.js';
import { houseQuote, tapeTrade } from './house.js';

export class ExchangeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly details?: string,
  ) {
    super(code);
  }
}

export type TimeInForce = 'good_till_canceled' | 'immediate_or_cancel' | 'fill_or_kill';
export type SelfTradePrevention = 'taker_at_cross' | 'maker';

export interface SimOrder extends RestingOrder {
  initialCentis: number;
  filledCentis: number;
  status: 'resting' | 'canceled' | 'executed';
  tif: TimeInForce;
  expirationS: number | null;
  stp: SelfTradePrevention;
  createdMs: number;
  lastUpdateMs: number;
  takerFillCost: number;
  makerFillCost: number;
  takerFees: number;
  makerFees: number;
  /** Cash set aside for the resting remainder. */
  reserved: number;
}

export interface SimFill {
  fillId: string;
  orderId: string;
  clientOrderId: string;
  ticker: string;
  bookSide: BookSide;
  yesPrice: number;
  centis: number;
  isTaker: boolean;
  fee: number;
  timeMs: number;
  postPositionCentis: number;
}

export interface SimPosition {
  ticker: string;
  eventTicker: string;
  /** Signed hundredths of a contract: positive holds YES, negative holds NO. */
  centis: number;
  exposure: number;
  realizedPnl: number;
  feesPaid: number;
  totalTraded: number;
  lastUpdatedMs: number;
}

export interface SimUser {
  userId: string;
  cash: number;
  orders: SimOrder[];
  ordersById: Map<string, SimOrder>;
  clientOrderIds: Set<string>;
  fills: SimFill[];
  positions: Map<string, SimPosition>;
  balanceUpdatedMs: number;
}

export interface PublicTrade {
  tradeId: string;
  ticker: string;
  yesPrice: number;
  centis: number;
  takerOutcome: OutcomeSide;
  timeMs: number;
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

export interface MatchResult {
  order: SimOrder;
  filledCentis: number;
  fillCost: number;
  fees: number;
}

export class SimExchange {
  readonly users = new Map<string, SimUser>();
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
    let reserved = 0;
    for (const o of user.orders) if (o.status === 'resting') reserved += o.reserved;
    return user.cash - reserved;
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
      this.uncross(market, book);
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
    if (market.status !== 'active') throw new ExchangeError(400, 'market_inactive');
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
    const required = this.collateral(user, req.ticker, own, ownPrice, req.centis);
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

    if (req.tif === 'fill_or_kill' && this.crossable(book, opposite, crosses) < req.centis) {
      this.finish(order, 'canceled');
      return { order, filledCentis: 0, fillCost: 0, fees: 0 };
    }
    const result = this.take(market, book, user, order, opposite, crosses);
    if (order.remainingCentis > 0 && order.status === 'resting') {
      if (req.tif === 'good_till_canceled') {
        order.reserved = this.collateral(user, req.ticker, own, ownPrice, order.remainingCentis);
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
    if (market && market.status !== 'active') throw new ExchangeError(400, 'market_inactive');
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
    if (market?.status !== 'active') throw new ExchangeError(400, 'market_inactive');
    const remaining = change.totalCentis - order.filledCentis;
    if (remaining <= 0)
      throw new ExchangeError(400, 'invalid_parameters', 'count must exceed the filled count');
    const book = this.book(market);
    const own: OutcomeSide = order.bookSide === 'bid' ? 'yes' : 'no';
    const ownPrice = own === 'yes' ? change.yesPrice : ONE_DOLLAR - change.yesPrice;
    const oldReserved = order.reserved;
    order.reserved = 0;
    const required = this.collateral(user, order.ticker, own, ownPrice, remaining);
    if (required > this.available(user)) {
      order.reserved = oldReserved;
      throw new ExchangeError(400, 'insufficient_balance');
    }
    const cause = { userId: user.userId, clientOrderId: order.clientOrderId };
    const before = { filled: order.filledCentis, cost: order.takerFillCost, fees: order.takerFees };
    if (change.yesPrice === order.yesPrice && remaining <= order.remainingCentis) {
      // Size down at the same price keeps the order's place in the queue.
      book.reduce(order, order.remainingCentis - remaining, cause);
      order.reserved = this.collateral(user, order.ticker, own, ownPrice, remaining);
      order.lastUpdateMs = this.now();
      this.listener.order(order);
      return { order, filledCentis: 0, fillCost: 0, fees: 0 };
    }
    book.reduce(order, order.remainingCentis, cause);
    order.yesPrice = change.yesPrice;
    order.remainingCentis = remaining;
    order.initialCentis = change.totalCentis;
    const opposite: OutcomeSide = own === 'yes' ? 'no' : 'yes';
    this.take(market, book, user, order, opposite, (p) => ownPrice + p >= ONE_DOLLAR);
    if (order.status === 'resting' && order.remainingCentis > 0) {
      order.reserved = this.collateral(user, order.ticker, own, ownPrice, order.remainingCentis);
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
    order.reserved = user ? this.collateral(user, order.ticker, own, ownPrice, order.remainingCentis) : 0;
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

  /**
   * Cash an order needs: what its contracts cost, except those that close an opposite position (a YES+NO pair
   * pays out $1 at once, so closing needs no collateral).
   */
  private collateral(
    user: SimUser,
    ticker: string,
    own: OutcomeSide,
    ownPrice: number,
    centis: number,
  ): number {
    const held = user.positions.get(ticker)?.centis ?? 0;
    const closable = own === 'yes' ? Math.max(0, -held) : Math.max(0, held);
    return costOf(ownPrice, Math.max(0, centis - closable));
  }

  private crossable(book: MarketBook, opposite: OutcomeSide, crosses: (p: number) => boolean): number {
    let total = 0;
    for (const price of book.prices(opposite)) {
      if (!crosses(price)) break;
      total += book.total(opposite, price);
    }
    return total;
  }

  /** Matches a taker order against the opposite side, best price first, customers before the house. */
  private take(
    market: SimMarket,
    book: MarketBook,
    user: SimUser,
    order: SimOrder,
    opposite: OutcomeSide,
    crosses: (p: number) => boolean,
  ): MatchResult {
    const start = { filled: order.filledCentis, cost: order.takerFillCost, fees: order.takerFees };
    const cause = { userId: user.userId, clientOrderId: order.clientOrderId };
    outer: for (const price of book.prices(opposite)) {
      if (order.remainingCentis <= 0 || !crosses(price)) break;
      const level = book.side(opposite).get(price);
      if (!level) continue;
      // The resting side's price is the execution price, expressed as a YES price.
      const yesPrice = opposite === 'no' ? ONE_DOLLAR - price : price;
      for (const maker of [...level.orders]) {
        if (order.remainingCentis <= 0) break outer;
        const makerOrder = maker as SimOrder;
        if (makerOrder.userId === user.userId) {
          if (order.stp === 'taker_at_cross') {
            order.remainingCentis = 0;
            this.finish(order, 'canceled');
            break outer;
          }
          this.reduceResting(makerOrder, makerOrder.remainingCentis);
          continue;
        }
        const qty = Math.min(order.remainingCentis, makerOrder.remainingCentis);
        this.execute(market, book, order, makerOrder, yesPrice, qty, cause);
      }
      if (order.remainingCentis > 0 && level.house > 0) {
        const qty = Math.min(order.remainingCentis, level.house);
        book.takeHouse(opposite, price, qty, cause);
        this.fillTaker(market, order, yesPrice, qty);
        this.recordTrade(market, yesPrice, qty, order.bookSide === 'bid' ? 'yes' : 'no');
      }
    }
    return {
      order,
      filledCentis: order.filledCentis - start.filled,
      fillCost: order.takerFillCost - start.cost,
      fees: order.takerFees - start.fees,
    };
  }

  private execute(
    market: SimMarket,
    book: MarketBook,
    taker: SimOrder,
    maker: SimOrder,
    yesPrice: number,
    qty: number,
    cause: LevelChange['cause'],
  ): void {
    book.reduce(maker, qty, cause);
    const makerUser = this.users.get(maker.userId);
    if (makerUser) {
      const own: OutcomeSide = maker.bookSide === 'bid' ? 'yes' : 'no';
      const ownPrice = own === 'yes' ? maker.yesPrice : ONE_DOLLAR - maker.yesPrice;
      this.applyFill(makerUser, market, maker, yesPrice, qty, false);
      maker.reserved = this.collateral(makerUser, maker.ticker, own, ownPrice, maker.remainingCentis);
      if (maker.remainingCentis <= 0) this.finish(maker, 'executed');
      this.listener.order(maker);
    }
    this.fillTaker(market, taker, yesPrice, qty);
    this.recordTrade(market, yesPrice, qty, taker.bookSide === 'bid' ? 'yes' : 'no');
  }

  private fillTaker(market: SimMarket, order: SimOrder, yesPrice: number, qty: number): void {
    const user = this.users.get(order.userId);
    if (user) this.applyFill(user, market, order, yesPrice, qty, true);
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

  /** Cash and position effects of one fill on one side of a trade. */
  private applyFill(
    user: SimUser,
    market: SimMarket,
    order: SimOrder,
    yesPrice: number,
    qty: number,
    isTaker: boolean,
  ): void {
    const own: OutcomeSide = order.bookSide === 'bid' ? 'yes' : 'no';
    const ownPrice = own === 'yes' ? yesPrice : ONE_DOLLAR - yesPrice;
    const cost = costOf(ownPrice, qty);
    const fee = isTaker ? takerFee(yesPrice, qty) : 0;
    const nowMs = this.now();
    let position = user.positions.get(market.ticker);
    if (!position) {
      position = {
        ticker: market.ticker,
        eventTicker: market.eventTicker,
        centis: 0,
        exposure: 0,
        realizedPnl: 0,
        feesPaid: 0,
        totalTraded: 0,
        lastUpdatedMs: nowMs,
      };
      user.positions.set(market.ticker, position);
    }
    const signed = own === 'yes' ? qty : -qty;
    const held = position.centis;
    const closing = Math.sign(held) === -Math.sign(signed) ? Math.min(Math.abs(held), qty) : 0;
    if (closing > 0) {
      // Closing contracts pair up with held ones: each pair pays $1 now; their cost basis leaves the exposure.
      const basis = Math.round((position.exposure * closing) / Math.abs(held));
      position.exposure -= basis;
      position.realizedPnl += costOf(ONE_DOLLAR, closing) - costOf(ownPrice, closing) - basis;
      user.cash += costOf(ONE_DOLLAR, closing);
    }
    position.exposure += costOf(ownPrice, qty - closing);
    position.centis = held + signed;
    position.feesPaid += fee;
    position.realizedPnl -= fee;
    position.totalTraded += cost;
    position.lastUpdatedMs = nowMs;
    user.cash -= cost + fee;
    user.balanceUpdatedMs = nowMs;

    order.filledCentis += qty;
    if (isTaker) {
      order.remainingCentis -= qty;
      order.takerFillCost += cost;
      order.takerFees += fee;
    } else {
      order.makerFillCost += cost;
      order.makerFees += fee;
    }
    order.lastUpdateMs = nowMs;
    const fill: SimFill = {
      fillId: randomUUID(),
      orderId: order.orderId,
      clientOrderId: order.clientOrderId,
      ticker: market.ticker,
      bookSide: order.bookSide,
      yesPrice,
      centis: qty,
      isTaker,
      fee,
      timeMs: nowMs,
      postPositionCentis: position.centis,
    };
    user.fills.push(fill);
    this.listener.fill(user.userId, fill, order);
  }

  /** After a requote, customer orders the house now crosses trade against it (the house takes). */
  private uncross(market: SimMarket, book: MarketBook): void {
    for (let guard = 0; guard < 1000; guard++) {
      const yes = book.best('yes');
      const no = book.best('no');
      if (yes === null || no === null || yes + no < ONE_DOLLAR) return;
      const yesLevel = book.yes.get(yes);
      const noLevel = book.no.get(no);
      if (!yesLevel || !noLevel) return;
      // The customer order rests; the house quote is the newcomer and takes at the customer's price.
      const [makerSide, makerLevel, houseLevel, makerPrice] =
        yesLevel.orders.length > 0 && noLevel.house > 0
          ? (['yes', yesLevel, noLevel, yes] as const)
          : noLevel.orders.length > 0 && yesLevel.house > 0
            ? (['no', noLevel, yesLevel, no] as const)
            : [null, null, null, 0];
      if (!makerSide || !makerLevel || !houseLevel) return;
      const maker = makerLevel.orders[0] as SimOrder;
      const qty = Math.min(maker.remainingCentis, houseLevel.house);
      const yesPrice = makerSide === 'yes' ? makerPrice : ONE_DOLLAR - makerPrice;
      book.takeHouse(makerSide === 'yes' ? 'no' : 'yes', makerSide === 'yes' ? no : yes, qty, null);
      book.reduce(maker, qty, null);
      const user = this.users.get(maker.userId);
      if (user) {
        this.applyFill(user, market, maker, yesPrice, qty, false);
        const own: OutcomeSide = maker.bookSide === 'bid' ? 'yes' : 'no';
        const ownPrice = own === 'yes' ? maker.yesPrice : ONE_DOLLAR - maker.yesPrice;
        maker.reserved = this.collateral(user, maker.ticker, own, ownPrice, maker.remainingCentis);
      }
      if (maker.remainingCentis <= 0) this.finish(maker, 'executed');
      this.listener.order(maker);
      this.recordTrade(market, yesPrice, qty, makerSide === 'yes' ? 'no' : 'yes');
    }
  }
}
