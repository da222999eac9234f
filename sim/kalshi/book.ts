// One market's order book as the exchange keeps it: bids on YES and bids on NO, each price level a FIFO queue of
// resting customer orders plus the house's quoted size (customers keep time priority over the house, which
// requotes every advance step). A YES bid at p and a NO bid at q cross when p + q ≥ $1; the resting order's price
// is the execution price. Every change of a level's total is reported so streams can publish it as a delta.
import { ONE_DOLLAR } from './fixed.js';

export type BookSide = 'bid' | 'ask';
export type OutcomeSide = 'yes' | 'no';

export interface RestingOrder {
  orderId: string;
  userId: string;
  clientOrderId: string;
  ticker: string;
  bookSide: BookSide;
  /** YES price in micro-dollars (V2 quotes everything on the YES book). */
  yesPrice: number;
  remainingCentis: number;
}

export interface Level {
  house: number;
  orders: RestingOrder[];
}

export interface LevelChange {
  side: OutcomeSide;
  /** Price of that outcome (a NO level is priced in NO dollars), micro-dollars. */
  price: number;
  delta: number;
  /** The order whose entry, fill or cancel caused the change, when a customer caused it. */
  cause: { userId: string; clientOrderId: string } | null;
}

/** The bid of an order on its own outcome: a V2 `ask` at YES price p rests as a NO bid at 1 − p. */
export function restingSide(order: Pick<RestingOrder, 'bookSide' | 'yesPrice'>): {
  side: OutcomeSide;
  price: number;
} {
  return order.bookSide === 'bid'
    ? { side: 'yes', price: order.yesPrice }
    : { side: 'no', price: ONE_DOLLAR - order.yesPrice };
}

export class MarketBook {
  readonly yes = new Map<number, Level>();
  readonly no = new Map<number, Level>();
  /** The advance step the house quote was built for; -1 before the first read. */
  step = -1;

  constructor(private readonly onChange: (change: LevelChange) => void) {}

  side(side: OutcomeSide): Map<number, Level> {
    return side === 'yes' ? this.yes : this.no;
  }

  total(side: OutcomeSide, price: number): number {
    const level = this.side(side).get(price);
    if (!level) return 0;
    return level.house + level.orders.reduce((s, o) => s + o.remainingCentis, 0);
  }

  /** Prices of one side, best (highest) first. */
  prices(side: OutcomeSide): number[] {
    return [...this.side(side).keys()].filter((p) => this.total(side, p) > 0).sort((a, b) => b - a);
  }

  best(side: OutcomeSide): number | null {
    let best: number | null = null;
    for (const [price, level] of this.side(side)) {
      if ((level.house > 0 || level.orders.length > 0) && (best === null || price > best)) best = price;
    }
    return best;
  }

  /** Aggregated levels [price, size], ascending by price as the exchange lists them. */
  levels(side: OutcomeSide): Array<[number, number]> {
    return this.prices(side)
      .reverse()
      .map((p) => [p, this.total(side, p)]);
  }

  setHouse(side: OutcomeSide, price: number, size: number): void {
    const level = this.level(side, price);
    const delta = size - level.house;
    if (delta === 0) return;
    level.house = size;
    this.tidy(side, price);
    this.onChange({ side, price, delta, cause: null });
  }

  /** Replaces the house quote on both sides, reporting only the levels whose totals change. */
  requote(quote: { yes: Map<number, number>; no: Map<number, number> }): void {
    for (const side of ['yes', 'no'] as const) {
      const next = quote[side];
      for (const [price, level] of [...this.side(side)]) {
        if (level.house > 0 && !next.has(price)) this.setHouse(side, price, 0);
      }
      for (const [price, size] of next) this.setHouse(side, price, size);
    }
  }

  add(order: RestingOrder): void {
    const { side, price } = restingSide(order);
    this.level(side, price).orders.push(order);
    this.onChange({
      side,
      price,
      delta: order.remainingCentis,
      cause: { userId: order.userId, clientOrderId: order.clientOrderId },
    });
  }

  /** Takes `centis` off a resting order (fill or cancel); removes it from its queue at zero. */
  reduce(order: RestingOrder, centis: number, cause: LevelChange['cause']): void {
    const { side, price } = restingSide(order);
    const level = this.side(side).get(price);
    order.remainingCentis -= centis;
    if (level && order.remainingCentis <= 0) {
      level.orders = level.orders.filter((o) => o !== order);
      this.tidy(side, price);
    }
    if (centis !== 0) this.onChange({ side, price, delta: -centis, cause });
  }

  takeHouse(side: OutcomeSide, price: number, centis: number, cause: LevelChange['cause']): void {
    const level = this.side(side).get(price);
    if (!level) return;
    level.house -= centis;
    this.tidy(side, price);
    this.onChange({ side, price, delta: -centis, cause });
  }

  private level(side: OutcomeSide, price: number): Level {
    const map = this.side(side);
    let level = map.get(price);
    if (!level) {
      level = { house: 0, orders: [] };
      map.set(price, level);
    }
    return level;
  }

  private tidy(side: OutcomeSide, price: number): void {
    const map = this.side(side);
    const level = map.get(price);
    if (level && level.house <= 0 && level.orders.length === 0) map.delete(price);
  }
}
