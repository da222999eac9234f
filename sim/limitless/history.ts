// GET /markets/{slug}/historical-price: YES price points of one market, newest first, `{timestamp: "<ms>",
// price: <number>}` (the recorded payload and Limitless's own web-app mock agree on that mix of types). `interval`
// is the chart range (1h … 1m = one month, all) and the server picks the point spacing; `from`/`to` narrow it.
import { tick } from './book.js';
import type { SimMarket } from './catalog.js';
import { marketState } from './tape.js';

export const HISTORY_INTERVALS = ['1h', '6h', '1d', '1w', '1m', 'all'] as const;
export type HistoryInterval = (typeof HISTORY_INTERVALS)[number];

const HOUR = 3_600_000;
const RANGE_MS: Record<HistoryInterval, number | null> = {
  '1h': HOUR,
  '6h': 6 * HOUR,
  '1d': 24 * HOUR,
  '1w': 168 * HOUR,
  '1m': 720 * HOUR,
  all: null,
};
/** Point spacing per range: the 1d range gives the 15-minute steps of the recorded payload. */
const SPACING_MS: Record<HistoryInterval, number> = {
  '1h': 60_000,
  '6h': 300_000,
  '1d': 900_000,
  '1w': HOUR,
  '1m': 6 * HOUR,
  all: 24 * HOUR,
};
const MAX_POINTS = 2_000;

export interface HistoryQuery {
  interval: HistoryInterval;
  fromMs: number | null;
  toMs: number | null;
}

export function historyPoints(
  m: SimMarket,
  q: HistoryQuery,
  nowMs: number,
  worldNowMs: number,
): Array<{ timestamp: string; price: number }> {
  let end = Math.min(q.toMs ?? nowMs, nowMs);
  if (marketState(m, worldNowMs) !== 'active') end = Math.min(end, m.prop.closeTime.getTime());
  const range = RANGE_MS[q.interval];
  let start = q.fromMs ?? (range === null ? m.createdMs : end - range);
  start = Math.max(start, m.createdMs);
  if (end < start) return [];
  let spacing = SPACING_MS[q.interval];
  if ((end - start) / spacing > MAX_POINTS) spacing = Math.ceil((end - start) / MAX_POINTS / 60_000) * 60_000;
  const points: Array<{ timestamp: string; price: number }> = [];
  for (let t = Math.floor(end / spacing) * spacing; t >= start; t -= spacing) {
    points.push({ timestamp: String(t), price: priceAt(m, t) });
  }
  return points;
}

/** A slow wave around the market's fair price plus minute-level noise; the same instant always has one price. */
export function priceAt(m: SimMarket, tMs: number): number {
  const minute = Math.floor(tMs / 60_000);
  const period = (2 + (m.seed % 9)) * 1_440;
  const wave = 0.05 * Math.sin((2 * Math.PI * minute) / period + (m.seed % 628) / 100);
  const noise = ((Math.imul(minute ^ m.seed, 0x2c1b3c6d) >>> 0) / 4294967296 - 0.5) * 0.01;
  return tick(Math.min(0.99, Math.max(0.01, m.fairYes + wave + noise)));
}
