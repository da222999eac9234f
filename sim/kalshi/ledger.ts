// The money side of the simulated exchange: customer orders, fills, positions and cash of fully collateralised
// binary contracts. A YES and a NO contract of one market pay $1 together, so buying the outcome opposite to a
// holding closes it and releases $1 per pair at once; taker fees follow Kalshi's quadratic schedule.
import { randomUUID } from 'node:crypto';
import type { BookSide, OutcomeSide, RestingOrder } from './book.js';
import type { SimMarket } from './catalog.js';
import { costOf, ONE_DOLLAR, takerFee } from './fixed.js';

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

/** Cash not set aside for resting orders: what `balance` reports. */
export function available(user: SimUser): number {
  let reserved = 0;
  for (const o of user.orders) if (o.status === 'resting') reserved += o.reserved;
  return user.cash - reserved;
}

/**
 * Cash an order needs: what its contracts cost, except those that close an opposite position (a YES+NO pair
 * pays out $1 at once, so closing needs no collateral).
 */
export function collateral(
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

/** Cash, position and order effects of one fill on one side of a trade; returns the fill as the account records it. */
export function settleFill(
  user: SimUser,
  market: SimMarket,
  order: SimOrder,
  trade: { yesPrice: number; qty: number; isTaker: boolean; nowMs: number },
): SimFill {
  const { yesPrice, qty, isTaker, nowMs } = trade;
  const own: OutcomeSide = order.bookSide === 'bid' ? 'yes' : 'no';
  const ownPrice = own === 'yes' ? yesPrice : ONE_DOLLAR - yesPrice;
  const cost = costOf(ownPrice, qty);
  const fee = isTaker ? takerFee(yesPrice, qty) : 0;
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
  return fill;
}
