// Price-time-priority matching on a YES-side book. A taker crosses the opposite side while the resting price is at
// least as good as its limit, and every fill happens at the resting order's price. Complementary orders meet here
// too: a buy-NO is a YES ask, so it crosses a resting buy-YES when p + q ≥ 1 (a mint), and a sell-YES crosses a
// resting sell-NO when p + q ≤ 1 (a merge). Settlement of what the fills mean for balances lives in settlement.ts.
import type { OrderBook } from './book.js';
import { type PmOrder, remaining } from './order.js';

export interface BookFill {
  maker: PmOrder;
  /** Shares, base units. */
  size: number;
  /** The resting order's price seen from YES, micro. */
  yesPrice: number;
}

/** Fills a taker would get, best price first, without changing anything. */
export function planFills(book: OrderBook, takerIsBid: boolean, limitYes: number, size: number): BookFill[] {
  const levels = takerIsBid ? book.asks : book.bids;
  const fills: BookFill[] = [];
  let left = size;
  for (const level of levels) {
    if (left <= 0) break;
    if (takerIsBid ? level.price > limitYes : level.price < limitYes) break;
    for (const maker of level.orders) {
      if (left <= 0) break;
      const available = remaining(maker);
      if (available <= 0 || maker.status !== 'LIVE') continue;
      const take = Math.min(left, available);
      fills.push({ maker, size: take, yesPrice: level.price });
      left -= take;
    }
  }
  return fills;
}

export function filledSize(fills: readonly BookFill[]): number {
  return fills.reduce((sum, f) => sum + f.size, 0);
}

/** Whether a resting order at this YES price would cross the book immediately. */
export function wouldCross(book: OrderBook, isBid: boolean, limitYes: number): boolean {
  const best = isBid ? book.asks[0] : book.bids[0];
  return best !== undefined && (isBid ? best.price <= limitYes : best.price >= limitYes);
}
