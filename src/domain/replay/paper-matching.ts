// The replay's fill rules (docs/replay.md), as pure functions over exact decimals: an order that crosses the
// recorded book takes its levels one by one; an order that rests waits behind the size recorded ahead of it at its
// price and fills only when recorded trades reach it. Nothing here is random and nothing reads a clock, so the same
// recording and the same orders give the same fills.
import type { BookLevel } from '../book.js';
import { Decimal } from '../decimal.js';

export type PaperSide = 'buy' | 'sell';

/** A price and a size taken from the book, or given to a resting order by a trade. */
export interface PaperFill {
  price: Decimal;
  size: Decimal;
}

/**
 * Liquidity our paper orders took from one recorded book state, by side and price: later orders at the same state
 * do not take it again. Emptied when the next recorded state of that book arrives (the recording is the market
 * without us, so a new state is the best estimate of what is there).
 */
export class TakenLiquidity {
  private readonly taken = new Map<string, Decimal>();

  get(side: 'bid' | 'ask', price: Decimal): Decimal {
    return this.taken.get(`${side}:${price.toString()}`) ?? Decimal.ZERO;
  }

  add(side: 'bid' | 'ask', price: Decimal, size: Decimal): void {
    const key = `${side}:${price.toString()}`;
    this.taken.set(key, (this.taken.get(key) ?? Decimal.ZERO).add(size));
  }

  clear(): void {
    this.taken.clear();
  }
}

/**
 * A crossing order against the book: a buy takes asks priced at or below its limit, cheapest first, a sell takes
 * bids at or above it, dearest first, each at the level's price, until its size is done or the crossing levels run
 * out. Returns the fills (and records them in `taken`).
 */
export function takeLiquidity(
  side: PaperSide,
  limit: Decimal,
  size: Decimal,
  book: { bids: readonly BookLevel[]; asks: readonly BookLevel[] },
  taken: TakenLiquidity,
): PaperFill[] {
  const bookSide = side === 'buy' ? 'ask' : 'bid';
  const levels = side === 'buy' ? book.asks : book.bids;
  const fills: PaperFill[] = [];
  let left = size;
  for (const [p, s] of levels) {
    if (left.isZero()) break;
    const price = Decimal.fromNumber(p);
    if (side === 'buy' ? price.gt(limit) : price.lt(limit)) break;
    const available = Decimal.fromNumber(s).sub(taken.get(bookSide, price));
    if (!available.gt(Decimal.ZERO)) continue;
    const take = Decimal.min(available, left);
    fills.push({ price, size: take });
    taken.add(bookSide, price, take);
    left = left.sub(take);
  }
  return fills;
}

/** The size recorded at exactly `price` on the order's own side (bids for a buy): what is queued ahead of it. */
export function sizeAtPrice(
  side: PaperSide,
  price: Decimal,
  book: { bids: readonly BookLevel[]; asks: readonly BookLevel[] },
): Decimal {
  for (const [p, s] of side === 'buy' ? book.bids : book.asks) {
    if (Decimal.fromNumber(p).eq(price)) return Decimal.fromNumber(s);
  }
  return Decimal.ZERO;
}

/**
 * What is ahead of a resting order after a new recorded state: never more than the size now at its level (what
 * left the level is counted as having been ahead of us: cancellations and fills there move us forward).
 */
export function queueAfterBook(
  side: PaperSide,
  price: Decimal,
  queueAhead: Decimal,
  book: { bids: readonly BookLevel[]; asks: readonly BookLevel[] },
): Decimal {
  return Decimal.min(queueAhead, sizeAtPrice(side, price, book));
}

export interface RestingOrder {
  id: string;
  side: PaperSide;
  price: Decimal;
  remaining: Decimal;
  queueAhead: Decimal;
}

export interface RecordedTradeTerms {
  price: Decimal;
  size: Decimal;
  /** The taker's side when the venue says; null: the trade may have hit either side. */
  aggressor: PaperSide | null;
}

export interface TradeOutcome {
  id: string;
  /** Filled by this trade (zero when the trade only moved the order up its queue). */
  fill: Decimal;
  queueAhead: Decimal;
}

/**
 * One recorded trade against the resting orders of its book. A trade reaches a resting buy at p when its price is
 * at or below p and its taker was not a buyer (a resting sell: at or above p, taker not a seller). A trade through
 * the price (strictly better for the taker than p) has passed everyone queued at p; a trade at p first uses up the
 * size queued ahead. Orders are served best price first, then in the order they were placed (`orders` comes in
 * placement order); each takes from what the trade has left. Fills are at the order's own price (it is the maker).
 */
export function tradeAgainstResting(
  orders: readonly RestingOrder[],
  trade: RecordedTradeTerms,
): TradeOutcome[] {
  const ranked = orders
    .map((o, i) => ({ o, i }))
    .filter(({ o }) => reaches(o, trade))
    .sort((a, b) => {
      const byPrice = a.o.side === 'buy' ? b.o.price.cmp(a.o.price) : a.o.price.cmp(b.o.price);
      return byPrice !== 0 ? byPrice : a.i - b.i;
    });
  const out: TradeOutcome[] = [];
  let left = trade.size;
  for (const { o } of ranked) {
    if (!left.gt(Decimal.ZERO)) break;
    let queue = o.queueAhead;
    if (!trade.price.eq(o.price)) queue = Decimal.ZERO;
    const passQueue = Decimal.min(queue, left);
    queue = queue.sub(passQueue);
    left = left.sub(passQueue);
    const fill = queue.isZero() ? Decimal.min(left, o.remaining) : Decimal.ZERO;
    left = left.sub(fill);
    out.push({ id: o.id, fill, queueAhead: queue });
  }
  return out;
}

function reaches(o: RestingOrder, t: RecordedTradeTerms): boolean {
  if (o.side === 'buy') return t.aggressor !== 'buy' && t.price.lte(o.price);
  return t.aggressor !== 'sell' && t.price.gte(o.price);
}
