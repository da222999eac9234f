// Deterministic Opinion books and price series: a market's YES book centres on its fair price and moves with
// each advance step; its NO book is the YES book's complement (a NO bid at p is a YES ask at 1-p), as on any
// CTF book. Prices and sizes are decimal strings, as recorded from GET /token/orderbook.
import { createHash } from 'node:crypto';
import type { TradableMarket } from './catalogue.js';

export interface Level {
  price: string;
  size: string;
}

export interface Book {
  bids: Level[];
  asks: Level[];
}

/** A number in [0, 1) from a text, stable across runs. */
function unit(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

/** Decimal string without trailing zeros ("0.2", "5500", "205.03"), like Opinion's. */
export function decimal(x: number, places: number): string {
  return String(Number(x.toFixed(places)));
}

const clampMills = (m: number) => Math.min(980, Math.max(20, m));

/** The YES midpoint in thousandths at a step of the tape. */
export function midMills(seed: number, market: TradableMarket, step: number): number {
  const drift = (unit(`mid:${seed}:${market.marketId}:${step}`) - 0.5) * 40;
  return clampMills(Math.round(market.fairYes * 1000 + drift));
}

function yesBook(seed: number, market: TradableMarket, step: number): { bids: number[][]; asks: number[][] } {
  const mid = midMills(seed, market, step);
  const half = 2 + Math.floor(unit(`spread:${seed}:${market.marketId}:${step}`) * 8);
  const depth = 4 + Math.floor(unit(`depth:${seed}:${market.marketId}`) * 5);
  const bids: number[][] = [];
  const asks: number[][] = [];
  let gap = 0;
  for (let i = 0; i < depth; i++) {
    if (i > 0) gap += 3 + Math.floor(unit(`gap:${seed}:${market.marketId}:${i}`) * 6);
    const bid = mid - half - gap;
    const ask = mid + half + gap;
    const size = (k: string) =>
      10 + Math.floor(unit(`${k}:${seed}:${market.marketId}:${step}:${i}`) * 500000) / 100;
    if (bid >= 1) bids.push([bid, size('bid')]);
    if (ask <= 999) asks.push([ask, size('ask')]);
  }
  return { bids, asks };
}

/** The book of one outcome token: bids best (highest) first, asks best (lowest) first, as Opinion documents. */
export function tokenBook(seed: number, market: TradableMarket, side: 'yes' | 'no', step: number): Book {
  // Only an activated market trades; a resolving or resolved one has nothing resting.
  if (market.status !== 2) return { bids: [], asks: [] };
  const yes = yesBook(seed, market, step);
  const fmt = ([mills, size]: number[]) => ({
    price: decimal((mills ?? 0) / 1000, 3),
    size: decimal(size ?? 0, 2),
  });
  if (side === 'yes') return { bids: yes.bids.map(fmt), asks: yes.asks.map(fmt) };
  const flip = ([mills, size]: number[]) => [1000 - (mills ?? 0), size ?? 0];
  return { bids: yes.asks.map(flip).map(fmt), asks: yes.bids.map(flip).map(fmt) };
}

/** The YES price at an instant, for price history: a deterministic walk per hour around the fair price. */
export function yesPriceAt(seed: number, market: TradableMarket, unixSeconds: number): number {
  const hour = Math.floor(unixSeconds / 3_600);
  const wave = Math.sin(hour / 17 + market.marketId) * 0.04;
  const noise = (unit(`hist:${seed}:${market.marketId}:${hour}`) - 0.5) * 0.03;
  return Math.min(0.99, Math.max(0.01, market.fairYes + wave + noise));
}

/** The last trade at a step of the tape (GET /token/latest-price). */
export function lastTrade(
  seed: number,
  market: TradableMarket,
  side: 'yes' | 'no',
  step: number,
): { price: string; side: 'BUY' | 'SELL'; size: string } {
  const mid = midMills(seed, market, step) / 1000;
  const price = side === 'yes' ? mid : 1 - mid;
  const buy = unit(`trade-side:${seed}:${market.marketId}:${step}`) < 0.5;
  return {
    price: decimal(price, 3),
    side: buy ? 'BUY' : 'SELL',
    size: decimal(5 + unit(`trade-size:${seed}:${market.marketId}:${step}`) * 300, 2),
  };
}
