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
  let current: {
    start: number;
    open: number;
    high: number;
    low: number;
    close: number;
    volume: number | null;
  } | null = null;
  for (const tick of sorted) {
    const start = Math.floor(tick.t / periodSeconds) * periodSeconds;
    if (!current || current.start !== start) {
      if (current) candles.push(toCandle(current));
      current = {
        start,
        open: tick.price,
        high: tick.price,
        low: tick.price,
        close: tick.price,
        volume: tick.size ?? null,
      };
      continue;
    }
    current.high = Math.max(current.high, tick.price);
    current.low = Math.min(current.low, tick.price);
    current.close = tick.price;
    current.volume = current.volume !== null && tick.size !== undefined ? current.volume + tick.size : null;
  }
  if (current) candles.push(toCandle(current));
  return candles;
}

function toCandle(c: {
  start: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number | null;
}) {
  return {
    timestamp: new Date(c.start * 1000).toISOString(),
    open: c.open,
    high: c.high,
    low: c.low,
    close: c.close,
    volume: c.volume,
  };
}
