// The house market maker as pure functions of (market, step): a deterministic fair YES price, the tick that price
// implies, the ladder the house quotes around it and the small self-trade it prints each step. Because nothing here
// is stateful, a book nobody has touched is rendered straight from these functions without being materialized.
import type { PmMarket } from './catalogue.js';
import { ONE } from './units.js';

export const HOUSE_LEVELS = 6;
const FINE_TICK = 1000;

function logit(p: number): number {
  return Math.log(p / (1 - p));
}

/** 32-bit integer mix of (market bits, step, salt): deterministic and allocation-free, called per book level. */
function mix(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul((b + 0x7f4a7c15) | 0, 0xc2b2ae35);
  h ^= Math.imul((c + 0x165667b1) | 0, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

function unit(h: number): number {
  return (h >>> 0) / 4294967296;
}

/** YES fair value at a step: the initial fair moved by two slow sine waves in log-odds space (O(1) per call). */
export function fairAt(m: PmMarket, step: number): number {
  const a = unit(Math.imul(m.h, 0x9e3779b1));
  const b = unit(m.h ^ 0x9e3779b9);
  const amplitude = 0.15 + 0.35 * a;
  const w1 = 0.04 + 0.1 * b;
  const w2 = 0.17 + 0.2 * a;
  const phase = 6.283 * b;
  const x =
    logit(m.f0) +
    amplitude * (Math.sin(w1 * step + phase) - Math.sin(phase)) +
    0.3 * amplitude * Math.sin(w2 * step);
  const p = 1 / (1 + Math.exp(-x));
  return Math.min(0.995, Math.max(0.005, p));
}

/** Markets quoted in cents switch to tenths of a cent near 0 and 1, as Polymarket does (tick_size_change). */
export function tickFor(m: PmMarket, fair: number): number {
  return fair < 0.04 || fair > 0.96 ? FINE_TICK : m.baseTick;
}

export interface HouseLadder {
  tick: number;
  /** [price micro, size base units], best first. */
  bids: Array<[number, number]>;
  asks: Array<[number, number]>;
}

function levelSize(m: PmMarket, step: number, side: number, level: number): number {
  const h = mix(m.h, step, side * 16 + level);
  // Whole shares with an occasional 2-decimal tail, like real resting liquidity.
  const shares = 20 + (h % 480) * (1 + level);
  const cents = (h >>> 12) % 4 === 0 ? (h >>> 16) % 100 : 0;
  return shares * ONE + cents * 10_000;
}

export function houseLadder(m: PmMarket, step: number): HouseLadder {
  const fair = fairAt(m, step);
  const tick = tickFor(m, fair);
  const fairMicro = Math.round(fair * ONE);
  const half = 1 + (m.h % 2);
  let bestBid = Math.floor((fairMicro - half * tick) / tick) * tick;
  let bestAsk = Math.ceil((fairMicro + half * tick) / tick) * tick;
  bestBid = Math.max(tick, Math.min(bestBid, ONE - 2 * tick));
  bestAsk = Math.min(ONE - tick, Math.max(bestAsk, bestBid + tick));
  const bids: Array<[number, number]> = [];
  const asks: Array<[number, number]> = [];
  for (let k = 0; k < HOUSE_LEVELS; k++) {
    const bid = bestBid - k * tick;
    const ask = bestAsk + k * tick;
    if (bid >= tick) bids.push([bid, levelSize(m, step, 1, k)]);
    if (ask <= ONE - tick) asks.push([ask, levelSize(m, step, 2, k)]);
  }
  return { tick, bids, asks };
}

/** The house's own print each step: it lifts its best ask or hits its best bid for a few shares. */
export function houseTrade(m: PmMarket, step: number): { takerSide: 'BUY' | 'SELL'; size: number } {
  const h = mix(m.h, step, 99);
  // Always smaller than the smallest house level (20 shares), so it never sweeps a level on an untouched book.
  return { takerSide: h % 2 === 0 ? 'BUY' : 'SELL', size: (5 + ((h >>> 3) % 10)) * ONE };
}

/** Approximate house notional printed up to a step, closed-form so volume sorts stay O(1) per market. */
export function houseVolume(m: PmMarket, step: number): number {
  const sizeShares = 5 + (mix(m.h, 0, 98) % 10);
  return (step + 1) * sizeShares * m.f0;
}
