// Deterministic Predict.fun order book of one market at one step: quoted for the YES outcome (indexSet 1) as
// `[price, size]` number pairs, prices on the market's decimalPrecision grid, sizes in shares with up to 4
// decimals (as in the recorded GET /v1/markets/{id}/orderbook). A market that is not trading has an empty book.
import { createRng } from '../shared/prng.js';

export type Level = [number, number];

export interface YesBook {
  bids: Level[];
  asks: Level[];
}

export function buildYesBook(
  seed: number,
  marketId: number,
  fairYes: number,
  decimalPrecision: 2 | 3,
  step: number,
  trading: boolean,
): YesBook {
  if (!trading) return { bids: [], asks: [] };
  const scale = 10 ** decimalPrecision;
  const rng = createRng(seed * 7 + marketId * 131 + step * 7_919);
  const drift = (rng() - 0.5) * 0.04;
  const mid = Math.min(0.95, Math.max(0.05, fairYes + drift));
  const ticks = (x: number) => Math.round(x * scale);
  const spread = Math.max(1, Math.round(scale * (0.01 + rng() * 0.02)));
  const bestBid = Math.max(1, ticks(mid) - Math.ceil(spread / 2));
  const bestAsk = Math.min(scale - 1, Math.max(bestBid + 1, ticks(mid) + Math.floor(spread / 2) + 1));
  const depth = 3 + Math.floor(rng() * 4);
  const bids: Level[] = [];
  const asks: Level[] = [];
  let b = bestBid;
  let a = bestAsk;
  for (let i = 0; i < depth; i++) {
    if (b >= 1) bids.push([b / scale, size(rng)]);
    if (a <= scale - 1) asks.push([a / scale, size(rng)]);
    b -= 1 + Math.floor(rng() * 3);
    a += 1 + Math.floor(rng() * 3);
  }
  return { bids, asks };
}

function size(rng: () => number): number {
  return Math.round((1 + rng() * 900) * 10_000) / 10_000;
}

/** The NO outcome's best quotes: a YES bid at p is a NO ask at 1 - p, a YES ask a NO bid (same size). */
export function complement(price: number): number {
  return Number((1 - price).toFixed(6));
}
