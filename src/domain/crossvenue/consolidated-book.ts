// One side of a consolidated book: the levels of several venues' books for the same bet, best first, each with its
// price net of that venue's taker fee. Pure and exact: levels and fees are decimals.
//
// `net_price` is what one contract of the level costs (asks) or brings (bids) once the venue's taker fee for taking
// the whole level as one order is added (asks) or taken off (bids): (price × size ± fee) / size. Null where the
// venue does not publish its fee. A venue that rounds its fee per order (Kalshi, up to the cent) makes a small
// level's net price worse than a large one's at the same price; that is the fee the level would really cost.
import type { WalkFill, WalkLevel, WalkSide } from '../book-walk.js';
import { AVG_PRICE_PLACES } from '../book-walk.js';
import { Decimal } from '../decimal.js';
import type { ExchangeId } from '../exchanges.js';

export interface VenueSide {
  exchange: ExchangeId;
  /** One side of the venue's book, best first (asks ascending for a buy, bids descending for a sell). */
  levels: readonly WalkLevel[];
  /** The venue's taker fee for one order filling exactly these fills; null when the venue does not publish it. */
  fee: (fills: readonly WalkFill[]) => Decimal | null;
}

export interface ConsolidatedLevel {
  price: Decimal;
  size: Decimal;
  exchange: ExchangeId;
  netPrice: Decimal | null;
}

/** The net price of one level: price plus (buy) or minus (sell) the fee per contract of taking all of it. */
export function netPrice(side: WalkSide, level: WalkLevel, fee: Decimal | null): Decimal | null {
  if (fee === null) return null;
  const notional = level.price.mul(level.size);
  return (side === 'buy' ? notional.add(fee) : notional.sub(fee)).div(level.size, AVG_PRICE_PLACES);
}

/**
 * The best `limit` levels across `venues` for a taker on `side` (buy: asks, lowest first; sell: bids, highest
 * first). Ties on price put the better net price first (unknown last), then the exchange id.
 */
export function consolidateSide(
  side: WalkSide,
  venues: readonly VenueSide[],
  limit: number,
): ConsolidatedLevel[] {
  const all: ConsolidatedLevel[] = [];
  for (const venue of venues) {
    // The best `limit` merged levels hold at most `limit` of any one venue's.
    for (const level of venue.levels.slice(0, limit)) {
      if (!level.size.gt(Decimal.ZERO)) continue;
      const fee = venue.fee([{ price: level.price, size: level.size }]);
      all.push({
        price: level.price,
        size: level.size,
        exchange: venue.exchange,
        netPrice: netPrice(side, level, fee),
      });
    }
  }
  const better = side === 'buy' ? 1 : -1;
  all.sort((a, b) => {
    const byPrice = a.price.cmp(b.price) * better;
    if (byPrice !== 0) return byPrice;
    if (a.netPrice !== null && b.netPrice !== null) {
      const byNet = a.netPrice.cmp(b.netPrice) * better;
      if (byNet !== 0) return byNet;
    } else if (a.netPrice !== b.netPrice) {
      return a.netPrice === null ? 1 : -1;
    }
    return a.exchange < b.exchange ? -1 : a.exchange > b.exchange ? 1 : 0;
  });
  return all.slice(0, limit);
}

/** One changed level of a consolidated side on the wire: a level is its price on one exchange; size 0 removes it. */
export interface ConsolidatedChange {
  side: 'bid' | 'ask';
  price: number;
  size: number;
  exchange: ExchangeId;
}

type WireLevel = readonly [price: number, size: number, exchange: ExchangeId];

/** The changes that turn `previous` into `next` (both cut to the same depth), bids then asks. */
export function diffConsolidated(
  previous: { bids: readonly WireLevel[]; asks: readonly WireLevel[] },
  next: { bids: readonly WireLevel[]; asks: readonly WireLevel[] },
): ConsolidatedChange[] {
  const side = (name: 'bid' | 'ask', before: readonly WireLevel[], after: readonly WireLevel[]) => {
    const key = (l: WireLevel) => `${l[2]}\u0000${l[0]}`;
    const old = new Map(before.map((l) => [key(l), l]));
    const out: ConsolidatedChange[] = [];
    for (const l of after) {
      const was = old.get(key(l));
      if (!was || was[1] !== l[1]) out.push({ side: name, price: l[0], size: l[1], exchange: l[2] });
      old.delete(key(l));
    }
    for (const l of old.values()) out.push({ side: name, price: l[0], size: 0, exchange: l[2] });
    return out;
  };
  return [...side('bid', previous.bids, next.bids), ...side('ask', previous.asks, next.asks)];
}
