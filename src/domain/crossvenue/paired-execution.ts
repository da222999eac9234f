// The arithmetic of a paired (arbitrage) execution: two buys that pay exactly 1 together at resolution (Yes on one
// venue and No on its twin, or both outcomes of one market). Pure and exact. Which leg goes first (the thinner
// book, so the leg most likely to fall short is the one the other is sized to), what a pair costs on the books
// (fees included), and what a finished execution made: the hedged pairs' edge, the unwind's result and what stays
// unhedged.
import { type BookWalk, type WalkFill, type WalkLevel, walkBook } from '../book-walk.js';
import { Decimal } from '../decimal.js';

export interface PairLeg {
  /** The asks a buy of this leg walks, best first. */
  asks: readonly WalkLevel[];
  fee: (fills: readonly WalkFill[]) => Decimal;
  tick: Decimal | null;
}

export interface PricedLeg {
  walk: BookWalk;
  fee: Decimal;
  /** notional + fee */
  cost: Decimal;
  /** The worst price the walk reaches, rounded up to the tick: the leg's limit. */
  limit: Decimal;
}

export function priceBuy(leg: PairLeg, size: Decimal): PricedLeg {
  const walk = walkBook('buy', leg.asks, size);
  const fee = leg.fee(walk.fills);
  const worst = walk.worstPrice ?? Decimal.ZERO;
  const limit = leg.tick?.gt(Decimal.ZERO) ? worst.div(leg.tick, 0, 'ceil').mul(leg.tick) : worst;
  return { walk, fee, cost: walk.notional.add(fee), limit };
}

/** Contracts a book offers at or below `limit`. */
export function depthWithin(asks: readonly WalkLevel[], limit: Decimal): Decimal {
  return asks.filter((l) => l.price.lte(limit)).reduce((s, l) => s.add(l.size), Decimal.ZERO);
}

/**
 * The index (0 or 1) of the leg to send first: the one whose book holds less within its planned limit (ties: the
 * first given).
 */
export function thinnerLeg(
  legs: readonly [PairLeg, PairLeg],
  planned: readonly [PricedLeg, PricedLeg],
): 0 | 1 {
  const a = depthWithin(legs[0].asks, planned[0].limit);
  const b = depthWithin(legs[1].asks, planned[1].limit);
  return b.lt(a) ? 1 : 0;
}

/** Cost per pair of `size` pairs (both legs' notional and fees), or null for no size. */
export function pairCost(a: PricedLeg, b: PricedLeg, size: Decimal): Decimal | null {
  if (size.isZero()) return null;
  return a.cost.add(b.cost).div(size, 12);
}

export interface PairResult {
  /** Pairs held (each pays 1): the second leg's fill. */
  hedged: Decimal;
  /** What the hedged pairs cost: the first leg's average cost per contract × hedged, plus the second leg. */
  hedgedCost: Decimal;
  /** hedged − hedgedCost. */
  edge: Decimal;
  /** Proceeds of the unwind net of its fee, minus what those contracts cost on the first leg. */
  unwindPnl: Decimal;
  /** First-leg contracts neither hedged nor unwound, and what they cost. */
  residual: Decimal;
  residualCost: Decimal;
}

/**
 * `firstFilled` contracts bought first for `firstCost` (notional + fee), `second` (filled, cost) hedging them, and
 * `unwind` (sold, proceeds net of fee) of the excess.
 */
export function pairResult(
  firstFilled: Decimal,
  firstCost: Decimal,
  second: { filled: Decimal; cost: Decimal },
  unwind: { sold: Decimal; netProceeds: Decimal },
): PairResult {
  const perContract = firstFilled.isZero() ? Decimal.ZERO : firstCost.div(firstFilled, 12);
  const hedged = Decimal.min(second.filled, firstFilled);
  const hedgedCost = perContract.mul(hedged).add(second.cost).round(12);
  const unwindPnl = unwind.netProceeds.sub(perContract.mul(unwind.sold)).round(12);
  const residual = firstFilled.sub(hedged).sub(unwind.sold);
  return {
    hedged,
    hedgedCost,
    edge: hedged.sub(hedgedCost),
    unwindPnl,
    residual: residual.isNegative() ? Decimal.ZERO : residual,
    residualCost: perContract.mul(residual.isNegative() ? Decimal.ZERO : residual).round(12),
  };
}
