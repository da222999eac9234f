// Deterministic Limitless order book of one market at one tape step. Limitless publishes a single book per
// market, quoted for the YES token (NO liquidity is folded in at 1 - p); prices are 0–1 numbers on a 0.001
// tick and sizes are shares in raw 1e6 units. Knows nothing of HTTP.
import { createRng } from '../shared/prng.js';

export interface LimitlessLevel {
  price: number;
  /** Shares × 1e6. */
  size: number;
  side: 'BUY' | 'SELL';
}

export interface SimBook {
  bids: LimitlessLevel[];
  asks: LimitlessLevel[];
  /** Mid of the best levels, or null for a book with an empty side. */
  mid: number | null;
}

/** `open` false (closed or resolved markets) gives an empty book: nothing rests on a market that cannot trade. */
export function buildBook(seed: number, fairYes: number, step: number, open: boolean): SimBook {
  if (!open) return { bids: [], asks: [], mid: null };
  const rng = createRng((seed ^ Math.imul(step + 1, 0x9e3779b1)) >>> 0);
  const mid = Math.min(960, Math.max(40, Math.round((fairYes + (rng() - 0.5) * 0.03) * 1000)));
  const halfSpread = 2 + Math.floor(rng() * 6);
  const bids: LimitlessLevel[] = [];
  const asks: LimitlessLevel[] = [];
  const depth = 3 + Math.floor(rng() * 5);
  let bid = mid - halfSpread;
  let ask = mid + halfSpread;
  for (let i = 0; i < depth; i++) {
    if (bid >= 1) bids.push({ price: bid / 1000, size: shares(rng), side: 'BUY' });
    if (ask <= 999) asks.push({ price: ask / 1000, size: shares(rng), side: 'SELL' });
    bid -= 1 + Math.floor(rng() * 12);
    ask += 1 + Math.floor(rng() * 12);
  }
  const best = (bids[0]?.price ?? 0) + (asks[0]?.price ?? 0);
  return { bids, asks, mid: bids.length && asks.length ? Math.round(best * 500) / 1000 : null };
}

/** Whole shares, as the recorded books hold (`2000000000` = 2,000 shares). */
function shares(rng: () => number): number {
  return (1 + Math.floor(rng() * 2500)) * 1_000_000;
}

/** Round to the 0.001 tick without float noise (1 - 0.466 = 0.534, not 0.5339999…). */
export function tick(p: number): number {
  return Math.round(p * 1000) / 1000;
}
