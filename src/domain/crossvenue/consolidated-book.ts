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
