// Pure normalizers from Polymarket payloads to our domain shapes. No I/O; every unit conversion lives here.
// svc_id native id = the market's conditionId (shared by Gamma, the CLOB and the chain); the group is the
// Gamma event id.
import type { BookLevel, OrderBook } from '../../domain/book.js';
import { Decimal } from '../../domain/decimal.js';
import type { FeeSchedule } from '../../domain/fees/schedule.js';
import type { Market, MarketEvent, MarketStatus, Outcome } from '../../domain/market.js';
import { encodeSvcId } from '../../domain/svc-id.js';
import type {
  PolymarketBook,
  PolymarketClobMarketInfo,
  PolymarketGammaEvent,
  PolymarketGammaMarket,
} from './payloads.js';

export class PolymarketParseError extends Error {
  override readonly name = 'PolymarketParseError';
}

/** Gamma sends `outcomes`, `outcomePrices` and `clobTokenIds` as JSON text inside a string. */
export function parseJsonStringArray(raw: string | null | undefined, field: string): string[] {
  if (raw === null || raw === undefined || raw === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new PolymarketParseError(`${field} is not a JSON-encoded array: ${raw.slice(0, 80)}`);
  }
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new PolymarketParseError(`${field} is not an array of strings`);
  }
  return value;
}

/** A finite number from a number or decimal string; null when absent or not a number (never a guessed 0). */
export function toNumber(raw: number | string | null | undefined): number | null {
  if (raw === null || raw === undefined || raw === '') return null;
  const n = typeof raw === 'number' ? raw : Number(raw);
  return Number.isFinite(n) ? n : null;
}

export function gammaStatus(
  m: Pick<PolymarketGammaMarket, 'archived' | 'closed' | 'umaResolutionStatus' | 'active'>,
): MarketStatus {
  if (m.archived) return 'archived';
  if (m.umaResolutionStatus === 'resolved') return 'resolved';
  if (m.closed) return 'closed';
  return m.active === false ? 'closed' : 'active';
}

export function gammaMarketToMarket(
  m: PolymarketGammaMarket,
  event?: { id: string; title: string; slug?: string | null },
): Market {
  const names = parseJsonStringArray(m.outcomes, 'outcomes');
  const prices = parseJsonStringArray(m.outcomePrices, 'outcomePrices');
  const tokens = parseJsonStringArray(m.clobTokenIds, 'clobTokenIds');
  if (tokens.length > 0 && tokens.length !== names.length) {
    throw new PolymarketParseError(`market ${m.id}: ${names.length} outcomes but ${tokens.length} token ids`);
  }
  const outcomes: Outcome[] = names.map((name, i) => {
    const outcome: Outcome = { name, price: toNumber(prices[i]) };
    const token = tokens[i];
    if (token !== undefined) outcome.token_id = token;
    return outcome;
  });
  const eventRef = event ?? m.events?.[0];
  const groupId = eventRef?.id ?? m.id;
  const eventSlug = eventRef?.slug ?? m.slug ?? null;
  const market: Market = {
    svc_id: encodeSvcId('polymarket', m.conditionId),
    svc_group_id: encodeSvcId('polymarket', groupId),
    exchange: 'polymarket',
    exchange_market_id: m.conditionId,
    exchange_group_id: groupId,
    question: m.question,
    group_title: eventRef?.title ?? m.groupItemTitle ?? m.question,
    status: gammaStatus(m),
    market_type: outcomes.length === 2 ? 'binary' : 'categorical',
    outcomes,
    volume_total: m.volumeNum ?? toNumber(m.volume),
    condition_id: m.conditionId,
    outcome_count: outcomes.length,
    best_bid: m.bestBid ?? null,
    best_ask: m.bestAsk ?? null,
    last_price: m.lastTradePrice ?? null,
    volume_24h: m.volume24hr ?? null,
    liquidity: m.liquidityNum ?? toNumber(m.liquidity),
    tick_size: m.orderPriceMinTickSize ?? null,
    min_order_size: m.orderMinSize ?? null,
    end_date: m.endDate ?? null,
    created_at: m.createdAt ?? null,
    updated_at: m.updatedAt ?? null,
    event_start_time: m.gameStartTime ? toIso(m.gameStartTime) : null,
    image_url: m.image ?? null,
    icon_url: m.icon ?? null,
  };
  if (m.description) market.description = m.description;
  if (m.slug) market.slug = m.slug;
  if (eventSlug) market.url = `https://polymarket.com/event/${eventSlug}`;
  return market;
}

export function gammaEventToEvent(e: PolymarketGammaEvent): MarketEvent {
  return {
    exchange: 'polymarket',
    exchange_group_id: e.id,
    title: e.title,
    status: gammaStatus({
      archived: e.archived,
      closed: e.closed,
      active: e.active,
      umaResolutionStatus: null,
    }),
    close_time: e.endDate ?? null,
    volume_total: toNumber(e.volume),
  };
}

/**
 * CLOB book → our book. Level order on the wire is not guaranteed, so both sides are sorted here. Early V1 books
 * carry no timestamp: then the book is stamped with the time we received it, which is what it then means.
 */
export function clobBookToOrderBook(book: PolymarketBook, outcome: string, receivedAt: Date): OrderBook {
  const levels = (side: PolymarketBook['bids']): BookLevel[] =>
    side.map((l) => {
      const price = toNumber(l.price);
      const size = toNumber(l.size);
      if (price === null || size === null)
        throw new PolymarketParseError(`book ${book.asset_id}: bad level ${JSON.stringify(l)}`);
      return [price, size];
    });
  const bids = levels(book.bids).sort((a, b) => b[0] - a[0]);
  const asks = levels(book.asks).sort((a, b) => a[0] - b[0]);
  const ms = toNumber(book.timestamp);
  const result: OrderBook = {
    exchange: 'polymarket',
    market_id: book.market,
    outcome,
    token_id: book.asset_id,
    bids,
    asks,
    timestamp: (ms === null ? receivedAt : new Date(ms)).toISOString(),
    tick_size: toNumber(book.tick_size),
  };
  const minSize = toNumber(book.min_order_size);
  if (minSize !== null) result.min_order_size = minSize;
  return result;
}

/** Gamma mixes ISO timestamps with Postgres-style ones ("2026-04-05 15:10:00+00"). */
function toIso(raw: string): string | null {
  const normalized = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?\+00$/.test(raw)
    ? `${raw.replace(' ', 'T')}:00`
    : raw;
  const t = Date.parse(normalized);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/**
 * The market's V2 fee curve from `/clob-markets` `fd` (rate `r`, exponent `e`); a market without `fd` charges no
 * fee, as the V2 SDK reads it (`rate: fd?.r ?? 0, exponent: fd?.e ?? 0`).
 */
export function feeScheduleOf(info: PolymarketClobMarketInfo): FeeSchedule & { venue: 'polymarket' } {
  const rate = info.fd?.r ?? 0;
  return { venue: 'polymarket', rate: Decimal.fromNumber(rate).toString(), exponent: info.fd?.e ?? 0 };
}
