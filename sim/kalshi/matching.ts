// Matching on one market's book: a taker order against the opposite bids, best price first, customers ahead of
// the house at a level, the resting price as execution price, self-trade prevention; and, after the house
// requotes, customer orders its new quote crosses trade against it (the house takes at the customer's price).
import type { LevelChange, MarketBook, OutcomeSide } from './book.js';
import type { SimMarket } from './catalog.js';
import { ONE_DOLLAR } from './fixed.js';
import { collateral, type SimFill, type SimOrder, type SimUser, settleFill } from './ledger.js';

export interface MatchResult {
  order: SimOrder;
  filledCentis: number;
  fillCost: number;
  fees: number;
}

export interface MatchContext {
  users: Map<string, SimUser>;
  now(): number;
  fill(user: SimUser, fill: SimFill, order: SimOrder): void;
  order(order: SimOrder): void;
  trade(market: SimMarket, yesPrice: number, centis: number, takerOutcome: OutcomeSide): void;
  finish(order: SimOrder, status: 'canceled' | 'executed'): void;
  reduceResting(order: SimOrder, centis: number): void;
}

export function crossable(book: MarketBook, opposite: OutcomeSide, crosses: (p: number) => boolean): number {
  let total = 0;
  for (const price of book.prices(opposite)) {
    if (!crosses(price)) break;
    total += book.total(opposite, price);
  }
  return total;
}

/** Matches a taker order against the opposite side, best price first, customers before the house. */
export function take(
  ctx: MatchContext,
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
          ctx.finish(order, 'canceled');
          break outer;
        }
        ctx.reduceResting(makerOrder, makerOrder.remainingCentis);
        continue;
      }
      const qty = Math.min(order.remainingCentis, makerOrder.remainingCentis);
      execute(ctx, market, book, order, makerOrder, yesPrice, qty, cause);
    }
    if (order.remainingCentis > 0 && level.house > 0) {
      const qty = Math.min(order.remainingCentis, level.house);
      book.takeHouse(opposite, price, qty, cause);
      fillTaker(ctx, market, order, yesPrice, qty);
      ctx.trade(market, yesPrice, qty, order.bookSide === 'bid' ? 'yes' : 'no');
    }
  }
  return {
    order,
    filledCentis: order.filledCentis - start.filled,
    fillCost: order.takerFillCost - start.cost,
    fees: order.takerFees - start.fees,
  };
}

function execute(
  ctx: MatchContext,
  market: SimMarket,
  book: MarketBook,
  taker: SimOrder,
  maker: SimOrder,
  yesPrice: number,
  qty: number,
  cause: LevelChange['cause'],
): void {
  book.reduce(maker, qty, cause);
  const makerUser = ctx.users.get(maker.userId);
  if (makerUser) {
    const own: OutcomeSide = maker.bookSide === 'bid' ? 'yes' : 'no';
    const ownPrice = own === 'yes' ? maker.yesPrice : ONE_DOLLAR - maker.yesPrice;
    applyFill(ctx, makerUser, market, maker, yesPrice, qty, false);
    maker.reserved = collateral(makerUser, maker.ticker, own, ownPrice, maker.remainingCentis);
    if (maker.remainingCentis <= 0) ctx.finish(maker, 'executed');
    ctx.order(maker);
  }
  fillTaker(ctx, market, taker, yesPrice, qty);
  ctx.trade(market, yesPrice, qty, taker.bookSide === 'bid' ? 'yes' : 'no');
}

function fillTaker(
  ctx: MatchContext,
  market: SimMarket,
  order: SimOrder,
  yesPrice: number,
  qty: number,
): void {
  const user = ctx.users.get(order.userId);
  if (user) applyFill(ctx, user, market, order, yesPrice, qty, true);
}

/** Settles one fill on one side of a trade and tells the streams. */
function applyFill(
  ctx: MatchContext,
  user: SimUser,
  market: SimMarket,
  order: SimOrder,
  yesPrice: number,
  qty: number,
  isTaker: boolean,
): void {
  ctx.fill(user, settleFill(user, market, order, { yesPrice, qty, isTaker, nowMs: ctx.now() }), order);
}

/** After a requote, customer orders the house now crosses trade against it (the house takes). */
export function uncross(ctx: MatchContext, market: SimMarket, book: MarketBook): void {
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
    const user = ctx.users.get(maker.userId);
    if (user) {
      applyFill(ctx, user, market, maker, yesPrice, qty, false);
      const own: OutcomeSide = maker.bookSide === 'bid' ? 'yes' : 'no';
      const ownPrice = own === 'yes' ? maker.yesPrice : ONE_DOLLAR - maker.yesPrice;
      maker.reserved = collateral(user, maker.ticker, own, ownPrice, maker.remainingCentis);
    }
    if (maker.remainingCentis <= 0) ctx.finish(maker, 'executed');
    ctx.order(maker);
    ctx.trade(market, yesPrice, qty, makerSide === 'yes' ? 'no' : 'yes');
  }
}
