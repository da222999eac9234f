// One price-time-priority book per market, kept from the YES token's side: bids are buy-YES and sell-NO orders,
// asks are sell-YES and buy-NO orders (at 1 − their NO price). The NO token's book is rendered as the mirror.
import { isYesBid, type PmOrder, remaining, yesPrice } from './order.js';
import { ONE } from './units.js';

export interface Level {
  price: number;
  orders: PmOrder[];
}

export type BookSide = 'bids' | 'asks';

export class OrderBook {
  /** Best first: bids by descending price, asks by ascending price. */
  readonly bids: Level[] = [];
  readonly asks: Level[] = [];

  sideOf(o: PmOrder): BookSide {
    return isYesBid(o) ? 'bids' : 'asks';
  }

  /** Rests an order at the back of its level. */
  add(o: PmOrder): void {
    const levels = this[this.sideOf(o)];
    const price = yesPrice(o);
    const better = this.sideOf(o) === 'bids' ? (a: number) => a > price : (a: number) => a < price;
    let i = 0;
    while (i < levels.length && better((levels[i] as Level).price)) i++;
    const level = levels[i];
    if (level && level.price === price) level.orders.push(o);
    else levels.splice(i, 0, { price, orders: [o] });
  }

  remove(o: PmOrder): boolean {
    const levels = this[this.sideOf(o)];
    const price = yesPrice(o);
    const i = levels.findIndex((l) => l.price === price);
    const level = levels[i];
    if (!level) return false;
    const j = level.orders.indexOf(o);
    if (j < 0) return false;
    level.orders.splice(j, 1);
    if (level.orders.length === 0) levels.splice(i, 1);
    return true;
  }

  /** Drops filled orders from the front of the best level (after matching). */
  prune(side: BookSide): void {
    const levels = this[side];
    for (let i = 0; i < levels.length; ) {
      const level = levels[i] as Level;
      level.orders = level.orders.filter((o) => remaining(o) > 0 && o.status === 'LIVE');
      if (level.orders.length === 0) levels.splice(i, 1);
      else i++;
    }
  }

  /** [price, size] per level, best first, YES view. */
  depth(side: BookSide): Array<[number, number]> {
    return this[side].map((l) => [l.price, l.orders.reduce((sum, o) => sum + remaining(o), 0)]);
  }

  *orders(): Generator<PmOrder> {
    for (const level of this.bids) yield* level.orders;
    for (const level of this.asks) yield* level.orders;
  }
}

export interface Depth {
  /** Best first. */
  bids: Array<[number, number]>;
  asks: Array<[number, number]>;
}

/** The NO token's book: its bids are YES asks at 1 − p and its asks are YES bids at 1 − p. */
export function mirror(d: Depth): Depth {
  return {
    bids: d.asks.map(([p, s]) => [ONE - p, s]),
    asks: d.bids.map(([p, s]) => [ONE - p, s]),
  };
}
