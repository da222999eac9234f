// Market figures every payload shares (best bid/ask, midpoint, last trade, liquidity, tick), derived from the live
// or house-rendered book so Gamma, the CLOB and the Data API always agree with /book.
import type { PmMarket } from './catalogue.js';
import type { Exchange } from './exchange.js';
import { ONE } from './units.js';

export interface MarketStats {
  /** YES prices as decimals, null when the side is empty or the market has no book. */
  bestBid: number | null;
  bestAsk: number | null;
  lastTrade: number | null;
  /** The YES price shown as the market's probability. */
  price: number;
  spread: number | null;
  /** USD resting on the book. */
  liquidity: number;
  tick: number;
  hasBook: boolean;
}

const caches = new WeakMap<Exchange, Map<number, { step: number; stats: MarketStats }>>();

/** Stats of a book nobody materialized only change with the step, so they are computed once per step. */
export function marketStats(m: PmMarket, exchange: Exchange): MarketStats {
  if (exchange.isLive(m)) return computeStats(m, exchange);
  let cache = caches.get(exchange);
  if (!cache) {
    cache = new Map();
    caches.set(exchange, cache);
  }
  const hit = cache.get(m.index);
  if (hit && hit.step === exchange.step) return hit.stats;
  const stats = computeStats(m, exchange);
  cache.set(m.index, { step: exchange.step, stats });
  return stats;
}

function computeStats(m: PmMarket, exchange: Exchange): MarketStats {
  const view = exchange.view(m);
  if (!view) {
    // A finished market keeps the book it closed with: pinned at 0.999/1 (or 0/0.001) once resolved.
    const settled = m.yesWon === null ? Math.round(m.f0 * 100) / 100 : m.yesWon ? 1 : 0;
    const [bid, ask] =
      m.yesWon === null ? [settled - 0.01, settled + 0.01] : m.yesWon ? [0.999, 1] : [0, 0.001];
    return {
      bestBid: Math.round(bid * 1000) / 1000,
      bestAsk: Math.round(ask * 1000) / 1000,
      lastTrade: m.yesWon === null ? settled : m.yesWon ? 0.999 : 0.001,
      price: settled,
      spread: Math.round((ask - bid) * 1000) / 1000,
      liquidity: 0,
      tick: m.baseTick / ONE,
      hasBook: false,
    };
  }
  const bid = view.depth.bids[0]?.[0] ?? null;
  const ask = view.depth.asks[0]?.[0] ?? null;
  let liquidity = 0;
  for (const [p, s] of view.depth.bids) liquidity += (p / ONE) * (s / ONE);
  for (const [p, s] of view.depth.asks) liquidity += ((ONE - p) / ONE) * (s / ONE);
  const last = view.last ? view.last.price / ONE : null;
  const mid = bid !== null && ask !== null ? (bid + ask) / 2 / ONE : (last ?? m.f0);
  const spread = bid !== null && ask !== null ? (ask - bid) / ONE : null;
  // polymarket.com shows the midpoint unless the spread is wider than 10 cents, then the last trade.
  const price = spread !== null && spread > 0.1 && last !== null ? last : mid;
  return {
    bestBid: bid === null ? null : bid / ONE,
    bestAsk: ask === null ? null : ask / ONE,
    lastTrade: last,
    price: Math.round(price * 10_000) / 10_000,
    spread: spread === null ? null : Math.round(spread * 10_000) / 10_000,
    liquidity: Math.round(liquidity * 10_000) / 10_000,
    tick: view.tick / ONE,
    hasBook: true,
  };
}

/** Decimal text for a probability (no float noise): 0.525 → "0.525". */
export function probText(p: number): string {
  return String(Math.round(p * 1_000_000) / 1_000_000);
}
