// Candle roll-up from price ticks (venues such as Polymarket publish points, not OHLC). Pure: the caller brings
// the ticks and the interval; periods start on multiples of the interval in UTC, and empty periods are skipped
// rather than invented.
import type { Candle, CandleInterval } from './book.js';

export interface PriceTick {
  /** Unix seconds. */
  t: number;
  price: number;
  /** Traded size at this tick when the venue reports it. */
  size?: number;
}

export const INTERVAL_SECONDS: Readonly<Record<Exclude<CandleInterval, 'max'>, number>> = {
  '1m': 60,
  '1h': 3_600,
  '6h': 21_600,
  '1d': 86_400,
  '1w': 604_800,
};

/**
 * Rolls ticks up into candles of `periodSeconds`. Volume is the sum of tick sizes when every tick in a period
 * has one, and null when the venue gave none (a price series without trades has no volume to report).
 */
export function rollUpTicks(ticks: readonly PriceTick[], periodSeconds: number): Candle[] {
  if (!(periodSeconds > 0)) throw new RangeError('period must be positive');
  const sorted = [...ticks].sort((a, b) => a.t - b.t);
  const candles: Candle[] = [];
  let start: number | null = null;
  let current: Candle | null = null;
  for (const tick of sorted) {
    const periodStart = Math.floor(tick.t / periodSeconds) * periodSeconds;
    if (current === null || periodStart !== start) {
      if (current) candles.push(current);
      start = periodStart;
      const p = tick.price;
      const timestamp = new Date(periodStart * 1000).toISOString();
      current = { timestamp, open: p, high: p, low: p, close: p, volume: tick.size ?? null };
      continue;
    }
    current.high = Math.max(current.high, tick.price);
    current.low = Math.min(current.low, tick.price);
    current.close = tick.price;
    current.volume = current.volume !== null && tick.size !== undefined ? current.volume + tick.size : null;
  }
  if (current) candles.push(current);
  return candles;
}
