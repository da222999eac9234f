// The smallest order a venue takes for a taker leg (an immediate order) of a route or a paired execution: its
// market's minimum size (the book's, else the catalogue's) and its descriptor's minimum order value where it binds
// that leg (Polymarket's $1 binds a marketable buy; Predict.fun's $0.9 every order). A leg below either would be
// refused by the exchange, so it is never planned.
import type { Decimal } from '../../domain/decimal.js';
import { Decimal as D } from '../../domain/decimal.js';
import type { Side } from '../../domain/trading.js';
import type { VenueDescriptor } from '../../venues/port.js';

export interface LegMinimums {
  size: Decimal | null;
  value: Decimal | null;
}

/**
 * The minimums of an immediate `side` order on a market whose minimum size is `minOrderSize` (null: none). A plan
 * keeps the market's minimum size on every leg (`exact` false: a route's legs, a pair's planned size; the router
 * reports that minimum with its books); `exact` drops it where the venue's value rule replaces it (a Polymarket
 * market buy), for a leg sized by what another filled (a pair's second leg), which should not be held back by a
 * rule the venue does not apply.
 */
export function legMinimums(
  descriptor: Pick<VenueDescriptor, 'features'>,
  side: Side,
  minOrderSize: number | null | undefined,
  exact = false,
): LegMinimums {
  const v = descriptor.features.minOrderValue;
  const binds = v !== undefined && (v.orders === 'all' || side === 'buy');
  const sizeRule = !(exact && binds && v.replacesMinSize);
  return {
    size:
      sizeRule && typeof minOrderSize === 'number' && minOrderSize > 0 ? D.fromNumber(minOrderSize) : null,
    value: binds ? D.fromNumber(v.usd) : null,
  };
}
