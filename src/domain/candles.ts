// Candle roll-up: the one place candles are built, from price points (Polymarket, Limitless and Opinion publish
// points, not OHLC) or from shorter candles (Kalshi's native 1 h and 1 d candles make our 6 h and 1 w). Pure:
// periods start at `anchor + k·seconds` in UTC, empty periods are skipped rather than invented, and volumes are
// added exactly (as decimals, not as floats).
import type { Candle, CandleInterval } from './book.js';

export interface PriceTick {
  /** Unix seconds. */
  t: number;
  price: number;
  /** Traded size at this tick when the venue reports it. */
  size?: number;
}

/** A venue's price history as it gives it: price points, or its own candles of one period. */
export type PriceSeries =
  | { kind: 'ticks'; ticks: PriceTick[] }
  | { kind: 'candles'; periodSeconds: number; candles: Candle[] };

/** Candle periods: each starts at `anchor + k·seconds` (Unix seconds, UTC) and lasts `seconds`. */
export interface CandlePeriod {
  seconds: number;
  anchor: number;
}

export const INTERVAL_SECONDS: Readonly<Record<Exclude<CandleInterval, 'max'>, number>> = {
  '1m': 60,
  '1h': 3_600,
  '6h': 21_600,
  '1d': 86_400,
  '1w': 604_800,
};

/** 1970-01-05T00:00Z, the first Monday of the Unix epoch: weeks start on Monday (ISO 8601), not on Thursday. */
export const WEEK_ANCHOR = 4 * 86_400;

/** The periods of a fixed interval: minutes, hours and days on UTC boundaries, weeks from Monday 00:00 UTC. */
export function intervalPeriod(interval: Exclude<CandleInterval, 'max'>): CandlePeriod {
  return { seconds: INTERVAL_SECONDS[interval], anchor: interval === '1w' ? WEEK_ANCHOR : 0 };
}

/** The start of the period holding `t`. */
export function periodStart(t: number, period: CandlePeriod): number {
  return period.anchor + Math.floor((t - period.anchor) / period.seconds) * period.seconds;
}

/**
 * The single period of the `max` interval: the whole window [startTs, endTs] as one candle. From points it
 * starts at startTs itself; from candles of `sourceSeconds` it starts at the first source period beginning at or
 * after startTs and runs through the source period holding endTs, so no source candle is split.
 */
export function windowPeriod(startTs: number, endTs: number, sourceSeconds: number | null): CandlePeriod {
  if (sourceSeconds === null) return { seconds: Math.max(1, endTs - startTs + 1), anchor: startTs };
  const anchor = Math.ceil(startTs / sourceSeconds) * sourceSeconds;
  const end = (Math.floor(endTs / sourceSeconds) + 1) * sourceSeconds;
  return { seconds: Math.max(sourceSeconds, end - anchor), anchor };
}

/** Candles of `period` from a venue's series, whichever form it came in. */
export function rollUpSeries(series: PriceSeries, period: CandlePeriod): Candle[] {
  return series.kind === 'ticks'
    ? rollUpTicks(series.ticks, period)
    : rollUpCandles(series.candles, series.periodSeconds, period);
}

function checkPeriod(period: CandlePeriod): void {
  if (!(period.seconds > 0) || !Number.isInteger(period.seconds) || !Number.isInteger(period.anchor)) {
    throw new RangeError(`invalid candle period ${period.seconds}s from ${period.anchor}`);
  }
}

/**
 * Rolls ticks up into one candle per period that has ticks. Volume is the sum of tick sizes when every tick in
 * the period has one, and null when the venue gave none (a price series without trades has no volume to report).
 */
export function rollUpTicks(ticks: readonly PriceTick[], period: CandlePeriod): Candle[] {
  checkPeriod(period);
  return rollUp(
    [...ticks]
      .sort((a, b) => a.t - b.t)
      .map((k) => ({
        start: periodStart(k.t, period),
        open: k.price,
        high: k.price,
        low: k.price,
        close: k.price,
        volume: k.size ?? null,
      })),
  );
}

/**
 * Rolls candles of `sourceSeconds` up into longer periods (1 h → 6 h, 1 d → 1 w): first open, last close,
 * extremes, and volume added up (null when any part has none). Every source candle must lie inside one target
 * period: its start on a multiple of `sourceSeconds`, and the target period a whole number of source periods
 * on a source boundary; anything else would split a candle between two periods, so it throws.
 */
export function rollUpCandles(
  candles: readonly Candle[],
  sourceSeconds: number,
  period: CandlePeriod,
): Candle[] {
  checkPeriod(period);
  if (period.seconds % sourceSeconds !== 0 || period.anchor % sourceSeconds !== 0) {
    throw new RangeError(`${sourceSeconds}s candles do not nest in ${period.seconds}s periods`);
  }
  const parts = candles
    .map((c) => ({ c, t: Date.parse(c.timestamp) / 1000 }))
    .sort((a, b) => a.t - b.t)
    .map(({ c, t }) => {
      if (!Number.isInteger(t) || t % sourceSeconds !== 0) {
        throw new RangeError(`candle at ${c.timestamp} is not on a ${sourceSeconds}s boundary`);
      }
      return {
        start: periodStart(t, period),
        open: c.open,
        high: c.high,
        low: c.low,
        close: c.close,
        volume: c.volume,
      };
    });
  return rollUp(parts);
}

interface Part {
  start: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number | null;
}

/** Parts in time order, each already labelled with its period's start, merged one candle per period. */
function rollUp(parts: readonly Part[]): Candle[] {
  const candles: Candle[] = [];
  let current: (Part & { volumes: number[] | null }) | null = null;
  const flush = () => {
    if (!current) return;
    candles.push({
      timestamp: new Date(current.start * 1000).toISOString(),
      open: current.open,
      high: current.high,
      low: current.low,
      close: current.close,
      volume: current.volumes === null ? null : sumDecimals(current.volumes),
    });
  };
  for (const p of parts) {
    if (current === null || p.start !== current.start) {
      flush();
      current = { ...p, volumes: p.volume === null ? null : [p.volume] };
      continue;
    }
    current.high = Math.max(current.high, p.high);
    current.low = Math.min(current.low, p.low);
    current.close = p.close;
    if (current.volumes !== null && p.volume !== null) current.volumes.push(p.volume);
    else current.volumes = null;
  }
  flush();
  return candles;
}

/**
 * The exact sum of numbers as the decimals they print as: 0.1 + 0.2 is 0.3, not 0.30000000000000004. Sizes
 * arrive as JSON numbers with a few decimals; adding them as floats would put float noise into volumes.
 */
export function sumDecimals(values: readonly number[]): number {
  let scale = 0;
  const parts = values.map((v) => {
    if (!Number.isFinite(v)) throw new RangeError(`cannot add ${v}`);
    const text = plainDecimal(v);
    const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
    scale = Math.max(scale, fraction.length);
    return { negative: text.startsWith('-'), whole, fraction };
  });
  let total = 0n;
  for (const p of parts) {
    const units = BigInt(p.whole + p.fraction.padEnd(scale, '0'));
    total += p.negative ? -units : units;
  }
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return Number(`${negative ? '-' : ''}${text}`);
}

/** A number's shortest decimal form without exponent (1e-7 → "0.0000001"). */
function plainDecimal(v: number): string {
  const text = String(v);
  if (!/e/i.test(text)) return text;
  const [mantissa = '0', exp = '0'] = text.toLowerCase().split('e');
  const e = Number(exp);
  const negative = mantissa.startsWith('-');
  const [whole = '0', fraction = ''] = mantissa.replace('-', '').split('.');
  const digits = whole + fraction;
  const point = whole.length + e;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${out}` : out;
}
