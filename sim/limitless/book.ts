// Deterministic Limitless orderbook for one market: prices are 0–1 strings at tick 0.001 and sizes are raw
// 1e6 share units as strings (ccxt recording of GET /markets/{slug}/orderbook). Knows nothing of HTTP.
import { createRng } from '../shared/prng.js';

export interface LimitlessLevel {
  price: string;
  size: string;
  side: 'BUY' | 'SELL';
}
export interface LimitlessBook {
  bids: LimitlessLevel[];
  asks: LimitlessLevel[];
  tokenId: string;
  adjustedMidpoint: string;
  midpoint: string;
  maxSpread: string;
  minSize: string;
  lastTradePrice: string;
}

/** `fairYes` centres the book; `step` (from POST /__sim/advance) moves it deterministically. */
export function buildBook(seed: number, tokenId: string, fairYes: number, step: number): LimitlessBook {
  const rng = createRng(seed + step * 7919);
  const mid = Math.min(950, Math.max(50, Math.round((fairYes + (rng() - 0.5) * 0.02) * 1000)));
  const bids: LimitlessLevel[] = [];
  const asks: LimitlessLevel[] = [];
  for (let i = 0; i < 5; i += 1) {
    const size = String((1 + Math.floor(rng() * 2000)) * 1_000_000);
    bids.push({ price: ((mid - 5 - i * 7) / 1000).toFixed(3), size, side: 'BUY' });
    asks.push({ price: ((mid + 5 + i * 7) / 1000).toFixed(3), size, side: 'SELL' });
  }
  const m = (mid / 1000).toFixed(3);
  return {
    bids,
    asks,
    tokenId,
    adjustedMidpoint: m,
    midpoint: m,
    maxSpread: '0.035',
    minSize: '100000000',
    lastTradePrice: m,
  };
}
