// Pure normalizers from Limitless payloads to our domain shapes; every unit conversion lives here. The native
// market id is the slug: every Limitless market endpoint (book, history, trade feed, WebSocket subscription,
// positions) is keyed by it, while the numeric `id` is accepted by none. A negRisk group is the event of its
// child markets; a stand-alone market is its own one-market event.
import type { BookLevel, OrderBook } from '../../domain/book.js';
import type { Market, MarketEvent, MarketStatus } from '../../domain/market.js';
import { encodeSvcId } from '../../domain/svc-id.js';
import type { LimitlessMarket, LimitlessOrderbook, LimitlessRow } from './payloads.js';

/** Limitless prices sit on a 0.001 grid (the SDK's default tick); no payload states it per market. */
export const LIMITLESS_TICK = 0.001;
/** Shares and USDC are 6-decimal integers on the wire. */
export const UNITS = 1_000_000;

export const OUTCOMES = ['Yes', 'No'] as const;
export type LimitlessOutcome = (typeof OUTCOMES)[number];

/** A finite number from a number or decimal string; null when absent or not a number (never a guessed 0). */
export function toNumber(raw: number | string | null | undefined): number | null {
  if (raw === null || raw === undefined || raw === '') return null;
  const n = typeof raw === 'number' ? raw : Number(raw);
  return Number.isFinite(n) ? n : null;
}

/** 1 - p on the price grid, without float noise (1 - 0.466 is 0.534, not 0.5339999…). */
export function complement(p: number): number {
  return Math.round((1 - p) * 1e9) / 1e9;
}

/**
 * FUNDED markets trade until they expire (`expired`), RESOLVED ones have a winner; LOCKED (trading halted before
 * resolution) counts as closed. DRAFTED markets are not public and never reach us.
 */
export function limitlessStatus(status: string, expired: boolean | null | undefined): MarketStatus {
  if (status === 'RESOLVED') return 'resolved';
  if (status === 'FUNDED' && expired !== true) return 'active';
  return 'closed';
}

function iso(raw: number | string | null | undefined): string | null {
  const ms = toNumber(raw);
  return ms === null ? null : new Date(ms).toISOString();
}

function isoText(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

export interface GroupRef {
  slug: string;
  title: string;
}

/** Legacy AMM markets have no order book or outcome tokens; the adapter lists CLOB markets only. */
export function isClob(m: { tradeType?: string | null; tokens?: unknown }): boolean {
  return m.tradeType !== 'amm' && m.tokens !== undefined && m.tokens !== null;
}

export function limitlessMarketToMarket(m: LimitlessMarket, group?: GroupRef | null): Market {
  const event = group ?? (m.group?.slug ? { slug: m.group.slug, title: m.group.title ?? m.title } : null);
  const groupId = event?.slug ?? m.slug;
  const [yesPrice, noPrice] = m.prices ?? [];
  const volume = toNumber(m.volumeFormatted) ?? nullableDiv(toNumber(m.volume), UNITS);
  const market: Market = {
    svc_id: encodeSvcId('limitless', m.slug),
    svc_group_id: encodeSvcId('limitless', groupId),
    exchange: 'limitless',
    exchange_market_id: m.slug,
    exchange_group_id: groupId,
    question: m.title,
    group_title: event?.title ?? m.title,
    status: limitlessStatus(m.status, m.expired),
    market_type: 'binary',
    outcomes: [
      { name: 'Yes', price: unitOrNull(yesPrice), ...(m.tokens ? { token_id: m.tokens.yes } : {}) },
      { name: 'No', price: unitOrNull(noPrice), ...(m.tokens ? { token_id: m.tokens.no } : {}) },
    ],
    volume_total: volume,
    slug: m.slug,
    url: `https://limitless.exchange/markets/${event?.slug ?? m.slug}`,
    // tradePrices.sell.market is what a taker sells YES at now (best bid); buy.market what it buys at (best ask).
    best_bid: unitOrNull(m.tradePrices?.sell.market[0]),
    best_ask: unitOrNull(m.tradePrices?.buy.market[0]),
    tick_size: LIMITLESS_TICK,
    outcome_count: 2,
    created_at: isoText(m.createdAt),
    updated_at: isoText(m.updatedAt),
    end_date: iso(m.expirationTimestamp),
    image_url: m.imageUrl ?? m.logo ?? null,
  };
  if (m.description) market.description = m.description;
  if (m.conditionId) market.condition_id = m.conditionId;
  return market;
}

function unitOrNull(x: number | null | undefined): number | null {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1 ? x : null;
}

function nullableDiv(x: number | null, by: number): number | null {
  return x === null ? null : x / by;
}

/** A negRisk group row (its tradable markets are nested in `markets`). */
export function isGroup(row: LimitlessRow): boolean {
  return row.marketType === 'group' || row.tradeType === 'group' || Array.isArray(row.markets);
}

/** The tradable markets of one listing row: the market itself, or every CLOB child of a group. */
export function rowToMarkets(row: LimitlessRow): Market[] {
  if (isGroup(row)) {
    const group = { slug: row.slug, title: row.title };
    return (row.markets ?? []).filter(isClob).map((child) => limitlessMarketToMarket(child, group));
  }
  return isClob(row) ? [limitlessMarketToMarket(row)] : [];
}

export function rowToEvent(row: LimitlessRow): MarketEvent {
  const volume = toNumber(row.volumeFormatted) ?? nullableDiv(toNumber(row.volume), UNITS);
  return {
    exchange: 'limitless',
    exchange_group_id: row.slug,
    title: row.title,
    status: limitlessStatus(row.status, row.expired),
    close_time: iso(row.expirationTimestamp),
    volume_total: volume,
  };
}

export interface BookSides {
  bids: BookLevel[];
  asks: BookLevel[];
}

/**
 * The book of one outcome from Limitless's single YES book: YES levels read directly (sizes ÷ 1e6), the NO book
 * mirrored — NO bids are YES asks at 1 - p and NO asks are YES bids at 1 - p, sizes unchanged (docs: "Deriving the
 * NO orderbook"). Sorted best first; levels with a non-positive size or a price outside (0, 1) are dropped.
 */
export function outcomeBook(
  book: Pick<LimitlessOrderbook, 'bids' | 'asks'>,
  outcome: LimitlessOutcome,
): BookSides {
  const levels = (side: LimitlessOrderbook['bids']): BookLevel[] =>
    side
      .map((l): BookLevel => [toNumber(l.price) ?? Number.NaN, (toNumber(l.size) ?? Number.NaN) / UNITS])
      .filter(([p, s]) => p > 0 && p < 1 && s > 0);
  const yesBids = levels(book.bids);
  const yesAsks = levels(book.asks);
  const flip = (side: BookLevel[]): BookLevel[] => side.map(([p, s]) => [complement(p), s]);
  const bids = outcome === 'Yes' ? yesBids : flip(yesAsks);
  const asks = outcome === 'Yes' ? yesAsks : flip(yesBids);
  return {
    bids: mergeLevels(bids).sort((a, b) => b[0] - a[0]),
    asks: mergeLevels(asks).sort((a, b) => a[0] - b[0]),
  };
}

/** One level per price (a venue may repeat a price across makers). */
function mergeLevels(levels: BookLevel[]): BookLevel[] {
  const byPrice = new Map<number, number>();
  for (const [p, s] of levels) byPrice.set(p, (byPrice.get(p) ?? 0) + s);
  return [...byPrice.entries()];
}

export function toOrderBook(
  market: Market,
  outcome: LimitlessOutcome,
  sides: BookSides,
  timestamp: Date,
): OrderBook {
  const tokenId = market.outcomes.find((o) => o.name === outcome)?.token_id ?? '';
  return {
    exchange: 'limitless',
    market_id: market.exchange_market_id,
    outcome,
    token_id: tokenId,
    bids: sides.bids,
    asks: sides.asks,
    // Limitless's REST book carries no timestamp: it is stamped with the time we received it.
    timestamp: timestamp.toISOString(),
    tick_size: LIMITLESS_TICK,
  };
}

/** Resolves a client's outcome name case-insensitively; null for one a Limitless market does not have. */
export function resolveOutcome(name: string): LimitlessOutcome | null {
  const wanted = name.trim().toLowerCase();
  return OUTCOMES.find((o) => o.toLowerCase() === wanted) ?? null;
}
