// A cross-venue arbitrage between two twins: buy one outcome on one venue and, on the other, the outcome that wins
// exactly when the first loses (Yes here and No there; through an inverted link, Yes and Yes). One contract of
// each pays exactly 1 whichever way the bet settles, so `size` pairs cost the two taker buys plus each venue's
// taker fee and pay `size`. Pure and exact (decimals).
//
// Sizes are whole contracts (both legs the same size). For a size both books hold:
//   cost(s)       = walk(asks_A, s).notional + fee_A(fills_A) + walk(asks_B, s).notional + fee_B(fills_B)
//   net_profit(s) = s − cost(s)
//   edge_bps(s)   = net_profit(s) / s × 10,000   (profit per contract, in basis points of the 1 payout)
// The largest profitable size is the largest whole s ≤ the depth both books hold with net_profit(s) > 0. Each
// extra pair costs the two levels it takes plus their fees, and asks only rise, so net profit is concave in s but
// for the fees' rounding (a Kalshi order's fee is rounded up to the cent, Polymarket's per fill): it is found from
// the level boundaries (where the marginal price changes), by bisection inside the last profitable segment, then
// by a look along the next few contracts for a size the rounding made profitable again (largestProfitable).
import type { WalkFill, WalkLevel } from '../book-walk.js';
import { Decimal } from '../decimal.js';

export interface ArbitrageLeg {
  /** The asks of the outcome bought on this venue, lowest first. */
  asks: readonly WalkLevel[];
  /** This venue's taker fee for one buy order filling exactly `fills` (known: legs without a fee are not priced). */
  fee: (fills: readonly WalkFill[]) => Decimal;
}

export interface LegPrice {
  fills: WalkFill[];
  notional: Decimal;
  fee: Decimal;
  /** notional / size (12 places). */
  avgPrice: Decimal;
  worstPrice: Decimal;
}

export interface PairPrice {
  size: Decimal;
  legs: [LegPrice, LegPrice];
  /** Both legs' notionals and fees. */
  cost: Decimal;
  netProfit: Decimal;
  /** net_profit / size × 10,000, to 4 places. */
  edgeBps: Decimal;
}

export interface ArbitrageEvaluation {
  /** Whole contracts both books hold. */
  depth: Decimal;
  /** One point per size asked for that both books hold, ascending, plus the largest profitable size. */
  curve: PairPrice[];
  /** The largest profitable size, priced; null when no size is profitable. */
  maxProfitable: PairPrice | null;
  /** The curve's point with the best edge (ties: the larger size). */
  best: PairPrice;
}

/** Sizes the edge curve is drawn at (where the books hold them), beside the smallest size asked and the largest profitable. */
export const CURVE_SIZES = [10, 100, 1_000] as const;
/** Contracts looked along past the bisection's answer for a size fee rounding made profitable again. */
export const WINDOW = 100;

const BPS = Decimal.fromInt(10_000);
const EDGE_PLACES = 4;

function depthOf(levels: readonly WalkLevel[]): Decimal {
  let d = Decimal.ZERO;
  for (const l of levels) if (l.size.gt(Decimal.ZERO)) d = d.add(l.size);
  return d;
}

/** Whole contracts both legs' books hold. */
export function commonDepth(legs: readonly [ArbitrageLeg, ArbitrageLeg]): Decimal {
  return Decimal.min(depthOf(legs[0].asks), depthOf(legs[1].asks)).round(0, 'floor');
}

function priceLeg(leg: ArbitrageLeg, size: Decimal): LegPrice {
  const fills: WalkFill[] = [];
  let left = size;
  let notional = Decimal.ZERO;
  let worst = Decimal.ZERO;
  for (const level of leg.asks) {
    if (left.isZero()) break;
    if (!level.size.gt(Decimal.ZERO)) continue;
    const take = Decimal.min(level.size, left);
    fills.push({ price: level.price, size: take });
    notional = notional.add(level.price.mul(take));
    worst = level.price;
    left = left.sub(take);
  }
  if (!left.isZero()) throw new RangeError('size past the depth the book holds');
  const fee = leg.fee(fills);
  return { fills, notional, fee, avgPrice: notional.div(size, 12), worstPrice: worst };
}

/** Both legs bought at `size` (> 0, at most `commonDepth`). */
export function pricePair(legs: readonly [ArbitrageLeg, ArbitrageLeg], size: Decimal): PairPrice {
  if (!size.gt(Decimal.ZERO)) throw new RangeError('size must be positive');
  const a = priceLeg(legs[0], size);
  const b = priceLeg(legs[1], size);
  const cost = a.notional.add(a.fee).add(b.notional).add(b.fee);
  const netProfit = size.sub(cost);
  return { size, legs: [a, b], cost, netProfit, edgeBps: netProfit.mul(BPS).div(size, EDGE_PLACES) };
}

/** Each leg's cumulative depths (whole contracts, rounded down) within `depth`: where the marginal price changes. */
function boundaries(legs: readonly [ArbitrageLeg, ArbitrageLeg], depth: bigint): bigint[] {
  const set = new Set<bigint>([1n, depth]);
  for (const leg of legs) {
    let cum = Decimal.ZERO;
    for (const l of leg.asks) {
      if (!l.size.gt(Decimal.ZERO)) continue;
      cum = cum.add(l.size);
      const whole = BigInt(cum.round(0, 'floor').toString());
      if (whole >= depth) break;
      if (whole >= 1n) set.add(whole);
      // The first contract past a boundary is priced at the next level: its segment starts there.
      if (whole + 1n < depth) set.add(whole + 1n);
    }
  }
  return [...set].filter((s) => s >= 1n && s <= depth).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

/**
 * How far the fee models' rounding moves a pair's net profit from the exact curve at most: a cent per order
 * (Kalshi's ceiling), two orders. Polymarket rounds each match to 1e-5 and Predict.fun to 1e-18, far less.
 */
export const ROUNDING = Decimal.parse('0.02');
const TWICE_ROUNDING = ROUNDING.add(ROUNDING);

/**
 * The largest whole size ≤ `depth` with a positive net profit, or null. The exact curve (fees unrounded) is concave:
 * each extra pair costs its two levels' prices plus their marginal fees, which only rise with the price. So the
 * level boundaries are scanned upwards until the profit is more than twice the rounding below its best and below
 * zero (past the peak, and every later size loses); the last profitable boundary's segment is bisected; then the
 * sizes just past the answer that rounding could still make profitable (within twice the rounding over the
 * segment's slope, at most WINDOW) are looked at.
 */
export function largestProfitable(
  legs: readonly [ArbitrageLeg, ArbitrageLeg],
  depth: Decimal,
): Decimal | null {
  const top = BigInt(depth.round(0, 'floor').toString());
  if (top < 1n) return null;
  const memo = new Map<bigint, Decimal>();
  const profit = (s: bigint): Decimal => {
    let p = memo.get(s);
    if (p === undefined) {
      p = pricePair(legs, Decimal.fromInt(s)).netProfit;
      memo.set(s, p);
    }
    return p;
  };
  const profitable = (s: bigint) => profit(s).gt(Decimal.ZERO);
  const points = boundaries(legs, top);
  let last = -1;
  let best: Decimal | null = null;
  for (let i = 0; i < points.length; i++) {
    const p = profit(points[i] as bigint);
    if (p.gt(Decimal.ZERO)) last = i;
    if (best === null || p.gt(best)) best = p;
    else if (p.lt(best.sub(TWICE_ROUNDING)) && p.lt(TWICE_ROUNDING.neg())) break;
  }
  if (last < 0) return null;
  let lo = points[last] as bigint;
  const start = lo;
  const segmentEnd = points[last + 1];
  if (segmentEnd === undefined) return Decimal.fromInt(lo);
  let hi = segmentEnd;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (profitable(mid)) lo = mid;
    else hi = mid;
  }
  // The segment's slope per pair (its prices are constant there), as far as rounding lets it be read.
  const slope = profit(segmentEnd)
    .sub(profit(start))
    .div(Decimal.fromInt(segmentEnd - start), 12);
  let window = BigInt(WINDOW);
  if (slope.isNegative()) {
    const reach = BigInt(TWICE_ROUNDING.div(slope.neg(), 0, 'ceil').toString()) * 2n + 2n;
    if (reach < window) window = reach;
  }
  let answer = lo;
  const stop = segmentEnd - 1n < lo + window ? segmentEnd - 1n : lo + window;
  for (let s = lo + 1n; s <= stop; s++) if (profitable(s)) answer = s;
  return Decimal.fromInt(answer);
}

/**
 * The edge curve of one pair of legs: at `minSize` (whole contracts, ≥ 1), at each of CURVE_SIZES above it and at
 * the largest profitable size, wherever both books hold them. Null when the books hold fewer than `minSize`.
 */
export function evaluateArbitrage(
  legs: readonly [ArbitrageLeg, ArbitrageLeg],
  minSize = 1,
): ArbitrageEvaluation | null {
  const depth = commonDepth(legs);
  const min = Decimal.fromInt(Math.max(1, Math.ceil(minSize)));
  if (depth.lt(min)) return null;
  const max = largestProfitable(legs, depth);
  const sizes = new Map<string, Decimal>();
  sizes.set(min.toString(), min);
  for (const s of CURVE_SIZES) {
    const d = Decimal.fromInt(s);
    if (d.gt(min) && d.lte(depth)) sizes.set(d.toString(), d);
  }
  if (max?.gte(min)) sizes.set(max.toString(), max);
  const curve = [...sizes.values()].sort((x, y) => x.cmp(y)).map((s) => pricePair(legs, s));
  let best = curve[0] as PairPrice;
  for (const p of curve) if (p.edgeBps.gte(best.edgeBps)) best = p;
  const maxProfitable = max?.gte(min) ? (curve.find((p) => p.size.eq(max)) ?? null) : null;
  return { depth, curve, maxProfitable, best };
}

/**
 * Whether two legs can be profitable at all, before any walk: one contract of each at the best asks already costs
 * at least 1 (fees are never negative), so no size can be profitable.
 */
export function mayProfit(legs: readonly [ArbitrageLeg, ArbitrageLeg]): boolean {
  const a = legs[0].asks.find((l) => l.size.gt(Decimal.ZERO));
  const b = legs[1].asks.find((l) => l.size.gt(Decimal.ZERO));
  return a !== undefined && b !== undefined && a.price.add(b.price).lt(Decimal.ONE);
}
