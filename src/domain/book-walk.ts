// The execution estimate's book walk: a hypothetical taker order of `amount` contracts consumes the best levels of
// one side of a book (asks for a buy, bids for a sell) until it is filled or the side runs out. Pure and exact:
// levels arrive as decimals (each JSON number converted once, `levelsFromBook`), and nothing is rounded except the
// average price, which is a quotient.
import type { BookLevel } from './book.js';
import { Decimal } from './decimal.js';

export type WalkSide = 'buy' | 'sell';

export interface WalkLevel {
  price: Decimal;
  size: Decimal;
}

/** One level's share of the walk: the price it filled at and how much of it was taken. */
export type WalkFill = WalkLevel;

export interface BookWalk {
  side: WalkSide;
  amount: Decimal;
  fills: WalkFill[];
  filled: Decimal;
  /** Σ price × size of the fills: paid on a buy, received on a sell (always ≥ 0 here). */
  notional: Decimal;
  fullyFilled: boolean;
  levelsConsumed: number;
  /** Null when nothing filled. */
  avgPrice: Decimal | null;
  bestPrice: Decimal | null;
  worstPrice: Decimal | null;
  /** How far the average is from the best price, against the taker (≥ 0); null when nothing filled. */
  slippage: Decimal | null;
}

/** Decimal places of the average price (a quotient of decimals); far below any venue's tick. */
export const AVG_PRICE_PLACES = 12;

/** A book side's [price, size] JSON numbers as exact decimals, dropping empty levels. */
export function levelsFromBook(levels: readonly BookLevel[]): WalkLevel[] {
  const out: WalkLevel[] = [];
  for (const [price, size] of levels) {
    if (size > 0) out.push({ price: Decimal.fromNumber(price), size: Decimal.fromNumber(size) });
  }
  return out;
}

/**
 * Walks `levels` (best first: asks ascending for a buy, bids descending for a sell) for `amount` contracts (> 0).
 */
export function walkBook(side: WalkSide, levels: readonly WalkLevel[], amount: Decimal): BookWalk {
  if (!amount.gt(Decimal.ZERO)) throw new RangeError('amount must be positive');
  const fills: WalkFill[] = [];
  let remaining = amount;
  let notional = Decimal.ZERO;
  for (const level of levels) {
    if (remaining.isZero()) break;
    if (!level.size.gt(Decimal.ZERO)) continue;
    const take = Decimal.min(level.size, remaining);
    fills.push({ price: level.price, size: take });
    notional = notional.add(level.price.mul(take));
    remaining = remaining.sub(take);
  }
  const filled = amount.sub(remaining);
  const best = fills[0]?.price ?? null;
  const worst = fills.at(-1)?.price ?? null;
  const avg = filled.isZero() ? null : notional.div(filled, AVG_PRICE_PLACES);
  let slippage: Decimal | null = null;
  if (avg !== null && best !== null) slippage = side === 'buy' ? avg.sub(best) : best.sub(avg);
  return {
    side,
    amount,
    fills,
    filled,
    notional,
    fullyFilled: remaining.isZero(),
    levelsConsumed: fills.length,
    avgPrice: avg,
    bestPrice: best,
    worstPrice: worst,
    slippage,
  };
}
