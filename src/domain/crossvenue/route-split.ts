// The cheapest split of one taker order across the venues that list the same bet, net of each venue's fee. Pure
// and exact (decimals). For every set of venues of at most `maxLegs` (five venues: at most 31 sets), the order is
// allocated greedily by each level's fee-net price, each venue's share is cut to its lot and topped up lot by lot,
// and then priced exactly: each leg walks its own book (`walkBook`) and its fee is the venue's fee model on those
// fills. A set whose share on some venue falls below that venue's minimum order is not proposed (the set without
// that venue is tried too), and so is one whose leg is worth less than the venue's minimum order value. Fee
// rounding (Kalshi's cent ceiling per order, Polymarket's per match) can make the
// greedy order wrong by a cent or so, so the allocation is then refined by moving whole lots between venues while
// the exact total falls (a window of 100 lots, and the jumps that bring a venue to its minimum), for the three best
// greedy plans of more than one venue. The answer is the
// set that fills the most, then costs the least; the single venues are among the sets, so a split never costs more
// than the best single venue for the same fill.
//
// Cost has one sign convention on both sides, as GET /execution-price: a buy's net cost is what is paid plus the
// fee (> 0), a sell's is minus what is received plus the fee (< 0); lower is better either way.
import { type BookWalk, type WalkFill, type WalkLevel, type WalkSide, walkBook } from '../book-walk.js';
import { Decimal } from '../decimal.js';

export interface RouteVenue {
  /** Identifies the venue in the answer (an exchange id). */
  id: string;
  /** The side a taker walks, best first (asks ascending for a buy, bids descending for a sell). */
  levels: readonly WalkLevel[];
  /** The venue's taker fee for one order filling `fills` (known: venues without a published fee are not routed). */
  fee: (fills: readonly WalkFill[]) => Decimal;
  /** Sizes are multiples of this (> 0). */
  lot: Decimal;
  /** Smallest order the venue takes; null: none stated. */
  minSize: Decimal | null;
  /**
   * Smallest value (size × limit price, rounded down to whole cents) of this leg's order the venue takes, e.g.
   * Polymarket's $1 on a marketable buy; null or absent: none.
   */
  minValue?: Decimal | null;
  /** The market's tick; a leg's limit price is on it. Null: prices are taken as they are. */
  tick: Decimal | null;
}

export interface RouteLeg {
  id: string;
  size: Decimal;
  /** The worst price the leg's walk reaches, on the tick (rounded against the taker when the book is off it). */
  limitPrice: Decimal;
  walk: BookWalk;
  fee: Decimal;
  /** notional (buy) or −notional (sell), plus the fee. */
  netCost: Decimal;
}

export interface RoutePlan {
  legs: RouteLeg[];
  filled: Decimal;
  netCost: Decimal;
}

export interface RouteSplit {
  plan: RoutePlan;
  /** The best plan that uses one venue only, or null when no venue alone can take any of the order. */
  bestSingle: RoutePlan | null;
}

/** Net price of taking a whole level: price ± fee per contract. */
function levelNet(side: WalkSide, venue: RouteVenue, level: WalkLevel): Decimal {
  const fee = venue.fee([{ price: level.price, size: level.size }]);
  const notional = level.price.mul(level.size);
  return (side === 'buy' ? notional.add(fee) : notional.sub(fee)).div(level.size, 12);
}

/** Each venue's non-empty levels with their net prices, computed once per venue and side (not per venue set). */
const NET_LEVELS = new WeakMap<RouteVenue, Map<WalkSide, Array<{ size: Decimal; net: Decimal }>>>();
function netLevels(side: WalkSide, venue: RouteVenue): Array<{ size: Decimal; net: Decimal }> {
  let bySide = NET_LEVELS.get(venue);
  if (!bySide) {
    bySide = new Map();
    NET_LEVELS.set(venue, bySide);
  }
  let out = bySide.get(side);
  if (!out) {
    out = venue.levels
      .filter((l) => l.size.gt(Decimal.ZERO))
      .map((l) => ({ size: l.size, net: levelNet(side, venue, l) }));
    bySide.set(side, out);
  }
  return out;
}

const floorTo = (x: Decimal, step: Decimal) => x.div(step, 0, 'floor').mul(step);

function depthOf(levels: readonly WalkLevel[]): Decimal {
  return levels.reduce((sum, l) => sum.add(l.size), Decimal.ZERO);
}

/** The greedy allocation of `amount` over `venues` by level net price, each share a multiple of its lot. */
function allocate(side: WalkSide, venues: readonly RouteVenue[], amount: Decimal): Decimal[] {
  const better = side === 'buy' ? 1 : -1;
  const queue: Array<{ v: number; size: Decimal; net: Decimal }> = [];
  venues.forEach((venue, v) => {
    for (const { size, net } of netLevels(side, venue)) queue.push({ v, size, net });
  });
  queue.sort((a, b) => a.net.cmp(b.net) * better || a.v - b.v);
  const shares = venues.map(() => Decimal.ZERO);
  let remaining = amount;
  for (const q of queue) {
    if (remaining.isZero()) break;
    const take = Decimal.min(q.size, remaining);
    shares[q.v] = (shares[q.v] as Decimal).add(take);
    remaining = remaining.sub(take);
  }
  // Cut each share to its lot, then give the shortfall back a lot at a time where the next lot is cheapest.
  const depths = venues.map((v) => depthOf(v.levels));
  const cut = shares.map((s, v) => floorTo(s, (venues[v] as RouteVenue).lot));
  let short = amount.sub(cut.reduce((a, b) => a.add(b), Decimal.ZERO));
  for (;;) {
    let best: { v: number; net: Decimal } | null = null;
    venues.forEach((venue, v) => {
      const now = cut[v] as Decimal;
      const next = now.add(venue.lot);
      if (venue.lot.gt(short) || next.gt(depths[v] as Decimal)) return;
      const net = marginal(side, venue, now, next);
      if (!best || net.cmp(best.net) * better < 0) best = { v, net };
    });
    if (!best) break;
    const { v } = best as { v: number };
    cut[v] = (cut[v] as Decimal).add((venues[v] as RouteVenue).lot);
    short = short.sub((venues[v] as RouteVenue).lot);
  }
  return cut;
}

/** What going from `from` to `to` contracts on one venue adds to the net cost. */
function marginal(side: WalkSide, venue: RouteVenue, from: Decimal, to: Decimal): Decimal {
  const cost = (size: Decimal) => (size.isZero() ? Decimal.ZERO : price(side, venue, size).netCost);
  return cost(to).sub(cost(from));
}

/** One venue's leg of `size` contracts, priced exactly. */
function price(side: WalkSide, venue: RouteVenue, size: Decimal): RouteLeg {
  const walk = walkBook(side, venue.levels, size);
  const fee = venue.fee(walk.fills);
  const netCost = (side === 'buy' ? walk.notional : walk.notional.neg()).add(fee);
  const worst = walk.worstPrice ?? Decimal.ZERO;
  let limitPrice = worst;
  if (venue.tick?.gt(Decimal.ZERO)) {
    const steps = worst.div(venue.tick, 0, side === 'buy' ? 'ceil' : 'floor');
    limitPrice = steps.mul(venue.tick);
  }
  return { id: venue.id, size: walk.filled, limitPrice, walk, fee, netCost };
}

/** Lots moved between two venues in one step of the refinement: up to this many, and the jumps to a minimum. */
const WINDOW_LOTS = 100;
const MAX_REFINE_STEPS = 20;
/** Only the best greedy plans are refined (rounding moves a total by cents, never past a much better plan). */
const REFINE_TOP = 3;

/**
 * Improves a greedy allocation where fee rounding makes the greedy order wrong (Kalshi's cent ceiling per order,
 * Polymarket's rounding per match): moves whole lots from one venue to another while the exact total falls,
 * keeping every share at zero or at least its venue's minimum and within its book.
 */
function refine(side: WalkSide, venues: readonly RouteVenue[], shares: Decimal[]): Decimal[] {
  const depths = venues.map((v) => depthOf(v.levels));
  const memo = venues.map(() => new Map<string, Decimal>());
  const cost = (v: number, size: Decimal): Decimal => {
    if (size.isZero()) return Decimal.ZERO;
    const key = size.toString();
    const cache = memo[v] as Map<string, Decimal>;
    let c = cache.get(key);
    if (c === undefined) {
      c = price(side, venues[v] as RouteVenue, size).netCost;
      cache.set(key, c);
    }
    return c;
  };
  const allowed = (v: number, size: Decimal) => {
    const venue = venues[v] as RouteVenue;
    if (size.isNegative() || size.gt(depths[v] as Decimal)) return false;
    if (size.isZero()) return true;
    if (venue.minSize && size.lt(venue.minSize)) return false;
    return !venue.minValue || !belowMinValue(venue, price(side, venue, size));
  };
  const out = [...shares];
  for (let step = 0; step < MAX_REFINE_STEPS; step++) {
    let best: { from: number; to: number; amount: Decimal; gain: Decimal } | null = null;
    for (let from = 0; from < venues.length; from++) {
      const have = out[from] as Decimal;
      if (have.isZero()) continue;
      for (let to = 0; to < venues.length; to++) {
        if (to === from) continue;
        const fromLot = (venues[from] as RouteVenue).lot;
        const toLot = (venues[to] as RouteVenue).lot;
        // Move in units both venues' lots divide (the coarser lot, when one divides the other).
        const unit = Decimal.max(fromLot, toLot);
        const candidates = new Set<string>();
        for (let k = 1; k <= WINDOW_LOTS; k++) candidates.add(unit.mul(Decimal.fromInt(k)).toString());
        candidates.add(have.toString());
        const min = leastOrder(venues[to] as RouteVenue);
        if (min && (out[to] as Decimal).isZero()) {
          const first = min.div(unit, 0, 'ceil').mul(unit);
          for (let k = 0; k <= WINDOW_LOTS; k++)
            candidates.add(first.add(unit.mul(Decimal.fromInt(k))).toString());
        }
        const before = cost(from, have).add(cost(to, out[to] as Decimal));
        for (const raw of candidates) {
          const move = Decimal.parse(raw);
          const a = have.sub(move);
          const b = (out[to] as Decimal).add(move);
          if (!allowed(from, a) || !allowed(to, b)) continue;
          if (!floorTo(a, fromLot).eq(a) || !floorTo(b, toLot).eq(b)) continue;
          const gain = before.sub(cost(from, a).add(cost(to, b)));
          if (gain.gt(Decimal.ZERO) && (!best || gain.gt(best.gain))) best = { from, to, amount: move, gain };
        }
      }
    }
    if (!best) break;
    out[best.from] = (out[best.from] as Decimal).sub(best.amount);
    out[best.to] = (out[best.to] as Decimal).add(best.amount);
  }
  return out;
}

function plan(
  side: WalkSide,
  venues: readonly RouteVenue[],
  amount: Decimal,
  refined: boolean,
): RoutePlan | null {
  let shares = allocate(side, venues, amount);
  // A greedy share below a venue's minimum: that venue's part goes back to the others first (the set without it
  // is tried on its own as well).
  if (shares.some((x, v) => !x.isZero() && (venues[v] as RouteVenue).minSize?.gt(x))) return null;
  if (refined && venues.length > 1) shares = refine(side, venues, shares);
  const legs: RouteLeg[] = [];
  for (const [v, share] of shares.entries()) {
    const venue = venues[v] as RouteVenue;
    if (share.isZero()) continue;
    if (venue.minSize && share.lt(venue.minSize)) return null;
    const leg = price(side, venue, share);
    if (belowMinValue(venue, leg)) return null;
    legs.push(leg);
  }
  if (legs.length === 0) return null;
  const filled = legs.reduce((s, l) => s.add(l.size), Decimal.ZERO);
  const netCost = legs.reduce((s, l) => s.add(l.netCost), Decimal.ZERO);
  return { legs, filled, netCost };
}

/** Fills more, then costs less. */
function beats(a: RoutePlan, b: RoutePlan | null): boolean {
  if (!b) return true;
  const byFill = a.filled.cmp(b.filled);
  if (byFill !== 0) return byFill > 0;
  const byCost = a.netCost.cmp(b.netCost);
  if (byCost !== 0) return byCost < 0;
  return a.legs.length < b.legs.length;
}

const CENT = Decimal.parse('0.01');

/**
 * The fewest contracts a venue's order may have from its minimum size and value (the value at its best level's
 * price: a walk deeper only raises the limit), or null when it states neither: where the refinement jumps to.
 */
function leastOrder(venue: RouteVenue): Decimal | null {
  const top = venue.levels.find((l) => l.size.gt(Decimal.ZERO))?.price;
  const byValue = venue.minValue && top?.gt(Decimal.ZERO) ? venue.minValue.div(top, 2, 'ceil') : null;
  if (!venue.minSize) return byValue;
  return byValue ? Decimal.max(venue.minSize, byValue) : venue.minSize;
}

/** Whether the leg's order is worth less than its venue's minimum (the set is then not proposed). */
export function belowMinValue(
  venue: Pick<RouteVenue, 'minValue'>,
  leg: Pick<RouteLeg, 'size' | 'limitPrice'>,
) {
  if (!venue.minValue) return false;
  return floorTo(leg.size.mul(leg.limitPrice), CENT).lt(venue.minValue);
}

export function splitRoute(
  side: WalkSide,
  venues: readonly RouteVenue[],
  amount: Decimal,
  maxLegs: number,
): RouteSplit {
  if (!amount.gt(Decimal.ZERO)) throw new RangeError('amount must be positive');
  if (venues.length > 10) throw new RangeError('at most 10 venues');
  let best: RoutePlan | null = null;
  let bestSingle: RoutePlan | null = null;
  const greedy: Array<{ subset: RouteVenue[]; plan: RoutePlan }> = [];
  for (let mask = 1; mask < 1 << venues.length; mask++) {
    const subset = venues.filter((_, i) => mask & (1 << i));
    if (subset.length > maxLegs) continue;
    const p = plan(side, subset, amount, false);
    if (!p) continue;
    greedy.push({ subset, plan: p });
    if (beats(p, best)) best = p;
    if (subset.length === 1 && beats(p, bestSingle)) bestSingle = p;
  }
  greedy.sort((a, b) => (beats(a.plan, b.plan) ? -1 : beats(b.plan, a.plan) ? 1 : 0));
  for (const { subset } of greedy.filter((g) => g.subset.length > 1).slice(0, REFINE_TOP)) {
    const p = plan(side, subset, amount, true);
    if (p && beats(p, best)) best = p;
  }
  return { plan: best ?? { legs: [], filled: Decimal.ZERO, netCost: Decimal.ZERO }, bestSingle };
}

/**
 * The best fee-net price per contract on any venue's top level (the level taken whole, as GET
 * /orderbook/consolidated prices `net_price`): what a routed order's slippage is measured from. Null: no level.
 */
export function bestNetPrice(side: WalkSide, venues: readonly RouteVenue[]): Decimal | null {
  let best: Decimal | null = null;
  for (const venue of venues) {
    const top = netLevels(side, venue)[0];
    if (!top) continue;
    if (!best || (side === 'buy' ? top.net.lt(best) : top.net.gt(best))) best = top.net;
  }
  return best;
}

/**
 * How much worse per contract the plan's average fee-net price is than `reference` (buy: it pays more; sell: it
 * receives less); null when the plan fills nothing. Can be slightly negative when fee rounding favours a split.
 */
export function planSlippage(side: WalkSide, plan: RoutePlan, reference: Decimal): Decimal | null {
  if (plan.filled.isZero()) return null;
  const perContract = plan.netCost.div(plan.filled, 12);
  return side === 'buy' ? perContract.sub(reference) : reference.add(perContract);
}
