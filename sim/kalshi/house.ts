// The simulator's deterministic "rest of the market": the liquidity the house quotes at each advance step, the
// public trade tape, and the candlestick history. All are pure functions of (market seed, step or time), so a
// market nobody looked at costs nothing until it is read, and the same seed always shows the same market.
import type { SimMarket } from './catalog.js';
import { ONE_DOLLAR } from './fixed.js';

const CENT = 10_000;

/** Uniform [0, 1) from a market seed and a counter (a 32-bit integer hash; cheap and stateless). */
export function noise(seed: number, n: number): number {
  let x = (seed ^ Math.imul(n + 0x9e3779b9, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) / 4294967296;
}

function clampCents(c: number): number {
  return Math.min(99, Math.max(1, Math.round(c)));
}

/** Probability of YES the house centres on at an advance step: the market's fair value plus a bounded wobble. */
export function fairAtStep(m: SimMarket, step: number): number {
  const wobble = 0.04 * (noise(m.seed, step * 2 + 1) - 0.5) + 0.03 * Math.sin(step / 5 + (m.seed % 97));
  return Math.min(0.96, Math.max(0.04, m.fair + wobble));
}

export interface HouseQuote {
  /** YES bids: YES price (micro-dollars) → size (hundredths of a contract). */
  yes: Map<number, number>;
  /** NO bids: NO price (micro-dollars) → size. Their complements are the YES asks. */
  no: Map<number, number>;
}

/** The house's resting bids on both outcomes at a step: five levels each side, a one-to-three cent spread. */
export function houseQuote(m: SimMarket, step: number): HouseQuote {
  const yes = new Map<number, number>();
  const no = new Map<number, number>();
  const centre = fairAtStep(m, step) * 100;
  const spread = 1 + Math.floor(noise(m.seed, step * 7 + 3) * 3);
  let bid = clampCents(Math.floor(centre - spread / 2));
  let ask = bid + spread;
  if (ask > 99) {
    ask = 99;
    bid = Math.min(bid, 98);
  }
  for (let i = 0; i < 5; i++) {
    const yesBid = bid - i;
    const yesAsk = ask + i;
    const size = (n: number) => (10 + Math.floor(noise(m.seed, step * 31 + n) * 490)) * 100;
    if (yesBid >= 1) yes.set(yesBid * CENT, size(i));
    if (yesAsk <= 99) no.set((100 - yesAsk) * CENT, size(i + 10));
  }
  return { yes, no };
}

export interface TapeTrade {
  tradeId: string;
  /** YES price, micro-dollars. */
  yesPrice: number;
  centis: number;
  takerOutcome: 'yes' | 'no';
  timeMs: number;
}

/** The house's trade at a step (steps ≤ 0 are the history the market opens with). */
export function tapeTrade(m: SimMarket, step: number, timeMs: number): TapeTrade {
  const cents = clampCents(fairAtStep(m, step) * 100 + (noise(m.seed, step * 13 + 5) - 0.5) * 4);
  const n = (k: number) =>
    Math.floor(noise(m.seed, step * 17 + k) * 0xffffffff)
      .toString(16)
      .padStart(8, '0');
  const id = `${n(1)}-${n(2).slice(0, 4)}-${n(3).slice(0, 4)}-${n(4).slice(0, 4)}-${n(5)}${n(6).slice(0, 4)}`;
  return {
    tradeId: id,
    yesPrice: cents * CENT,
    centis: (1 + Math.floor(noise(m.seed, step * 19 + 7) * 99)) * 100,
    takerOutcome: noise(m.seed, step * 23 + 11) < 0.5 ? 'yes' : 'no',
    timeMs,
  };
}

/** YES price (micro-dollars, whole cents) of the candle history at a time: a slow wave plus 15-second jitter. */
function pathAt(m: SimMarket, tSeconds: number): number {
  const slow = 0.06 * Math.sin(tSeconds / 86_400 + (m.seed % 89));
  const fast = 0.02 * (noise(m.seed, Math.floor(tSeconds / 15)) - 0.5);
  return clampCents((m.fair + slow + fast) * 100) * CENT;
}

export interface SimCandle {
  endTs: number;
  /** Trade OHLC; null when the period had no trades. */
  price: { open: number; high: number; low: number; close: number; mean: number } | null;
  previous: number;
  yesBid: { open: number; high: number; low: number; close: number };
  yesAsk: { open: number; high: number; low: number; close: number };
  volumeCentis: number;
  openInterestCentis: number;
}

/** One candle of `periodSeconds` ending at `endTs` (inclusive end, as the exchange stamps them). */
export function candleAt(m: SimMarket, endTs: number, periodSeconds: number): SimCandle {
  const start = endTs - periodSeconds;
  const samples: number[] = [];
  for (let i = 0; i < 8; i++) samples.push(pathAt(m, start + Math.floor((i * periodSeconds) / 8)));
  const ohlc = (shift: number) => {
    const s = samples.map((v) => Math.min(99 * CENT, Math.max(CENT, v + shift)));
    return {
      open: s[0] as number,
      high: Math.max(...s),
      low: Math.min(...s),
      close: s[s.length - 1] as number,
    };
  };
  const traded = noise(m.seed, Math.floor(endTs / 60) * 3 + periodSeconds) >= 0.15;
  const price = ohlc(0);
  const mean = Math.round(samples.reduce((a, b) => a + b, 0) / samples.length / 100) * 100;
  return {
    endTs,
    price: traded ? { ...price, mean } : null,
    previous: pathAt(m, start - 1),
    yesBid: ohlc(-CENT),
    yesAsk: ohlc(CENT),
    volumeCentis: traded ? (1 + Math.floor(noise(m.seed, endTs) * 500)) * 100 : 0,
    openInterestCentis: (m.baseVolume + Math.floor(noise(m.seed, Math.floor(endTs / 86_400)) * 1000)) * 100,
  };
}

export { CENT, ONE_DOLLAR };
