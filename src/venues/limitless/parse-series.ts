// Pure normalizers for Limitless time series: price history (YES price points; the NO outcome is the complement)
// and the matched-trade feed of GET /markets/{slug}/events.
import type { Trade } from '../../domain/book.js';
import type { PriceTick } from '../../domain/candles.js';
import { complement, type LimitlessOutcome, toNumber, UNITS } from './parse.js';
import type { LimitlessFeedPage, LimitlessPriceHistory } from './payloads.js';

/** Limitless's `interval` is a chart range, not a bar width; the server picks the point spacing within it. */
const RANGES: Array<[string, number]> = [
  ['1h', 3_600],
  ['6h', 21_600],
  ['1d', 86_400],
  ['1w', 604_800],
  ['1m', 2_592_000],
];

/** The smallest Limitless range covering `seconds`, so the points come as dense as the venue gives them. */
export function historyRange(seconds: number): string {
  return RANGES.find(([, span]) => span >= seconds)?.[0] ?? 'all';
}

/**
 * The price points of one market as ticks of the requested outcome. A market slug answers one series; a group
 * slug answers one per option, of which the one titled like the market is taken.
 */
export function historyTicks(
  payload: LimitlessPriceHistory,
  outcome: LimitlessOutcome,
  title: string,
): PriceTick[] {
  const series = Array.isArray(payload) ? payload.find((s) => s.title === title) : payload;
  if (!series) return [];
  const ticks: PriceTick[] = [];
  for (const point of series.prices) {
    const ms = toNumber(point.timestamp);
    const price = toNumber(point.price);
    if (ms === null || price === null || price < 0 || price > 1) continue;
    ticks.push({ t: Math.floor(ms / 1000), price: outcome === 'Yes' ? price : complement(price) });
  }
  return ticks;
}

/**
 * Trades of one outcome token from the feed, newest first. `side` is the taker's (the feed's `makerAmount` is
 * the collateral the taker paid), so it is also the aggressor side. Sizes are shares × 1e6.
 */
export function feedTrades(
  events: LimitlessFeedPage['events'],
  tokenId: string,
  outcome: LimitlessOutcome,
): Trade[] {
  const trades: Trade[] = [];
  for (const e of events) {
    if (e.tokenId !== tokenId) continue;
    const price = toNumber(e.price);
    const size = toNumber(e.matchedSize);
    const ms = Date.parse(e.createdAt);
    if (price === null || size === null || size <= 0 || Number.isNaN(ms)) continue;
    const side = String(e.side) === '1' ? 'sell' : 'buy';
    trades.push({
      // A settlement transaction can carry several matches, so the hash alone is not unique.
      id: `${e.txHash ?? 'feed'}:${ms}:${e.matchedSize}`,
      price,
      size: size / UNITS,
      side,
      aggressor_side: side,
      timestamp: new Date(ms).toISOString(),
      outcome,
      tx_hash: e.txHash ?? null,
      taker_address: e.profile?.account ?? null,
    });
  }
  return trades.sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp));
}
