// Pure normalizers from Opinion payloads to our shapes; no I/O. svc_id's native id is the marketId of the
// tradable binary market (standalone, or a categorical topic's child), the id GET /market/{id}, orders and
// positions use; the group is the categorical parent's marketId, or the market's own id when it stands alone.
import type { BookLevel, OrderBook } from '../../domain/book.js';
import type { PriceTick } from '../../domain/candles.js';
import type { Market, MarketEvent, MarketStatus, Outcome } from '../../domain/market.js';
import { encodeSvcId } from '../../domain/svc-id.js';
import type { Position } from '../../domain/trading.js';
import type {
  OpinionBook,
  OpinionChildMarket,
  OpinionMarket,
  OpinionPosition,
  OpinionPriceHistory,
} from './payloads.js';

/** The parent fields a categorical child inherits (it carries cutoffAt 0 and empty rules of its own). */
export type OpinionParent = Pick<
  OpinionMarket,
  'marketId' | 'marketTitle' | 'cutoffAt' | 'rules' | 'thumbnailUrl' | 'coverUrl'
>;

/** A finite number from a number or decimal string; null when absent or not a number (never a guessed 0). */
export function toNumber(raw: number | string | null | undefined): number | null {
  if (raw === null || raw === undefined || raw === '') return null;
  const n = typeof raw === 'number' ? raw : Number(raw);
  return Number.isFinite(n) ? n : null;
}

const STATUS_BY_CODE: Readonly<Record<number, MarketStatus>> = {
  // Created: listed but not yet open for trading, so not active.
  1: 'closed',
  2: 'active',
  // Resolving: past its cutoff, waiting for the outcome.
  3: 'closed',
  4: 'resolved',
  5: 'archived',
  6: 'archived',
};
// A Map, not an object: the enum is the venue's text, and `__proto__` or `constructor` must not answer.
const STATUS_BY_ENUM: ReadonlyMap<string, MarketStatus> = new Map([
  ['created', 'closed'],
  ['activated', 'active'],
  ['resolving', 'closed'],
  ['resolved', 'resolved'],
  ['failed', 'archived'],
  ['deleted', 'archived'],
]);

/** Opinion topic status (1 Created … 6 Deleted), read from the code, else from `statusEnum`. */
export function topicStatus(m: Pick<OpinionChildMarket, 'status' | 'statusEnum'>): MarketStatus {
  const byCode = m.status === null || m.status === undefined ? undefined : STATUS_BY_CODE[m.status];
  if (byCode) return byCode;
  const byEnum = STATUS_BY_ENUM.get((m.statusEnum ?? '').toLowerCase());
  // An unknown status is not tradable as far as we can tell; it is never reported as active.
  return byEnum ?? 'closed';
}

function iso(unixSeconds: number | null | undefined): string | null {
  return typeof unixSeconds === 'number' && unixSeconds > 0
    ? new Date(unixSeconds * 1000).toISOString()
    : null;
}

const nonEmpty = (s: string | null | undefined): string | undefined =>
  s !== null && s !== undefined && s.trim() !== '' ? s : undefined;

/** The app's page for a topic: a categorical child opens on its parent's page. */
export function opinionUrl(marketId: number, categorical: boolean): string {
  return `https://app.opinion.trade/detail?topicId=${marketId}${categorical ? '&type=multi' : ''}`;
}

/** One tradable binary market; `parent` is given for a categorical child. */
export function toMarket(
  m: OpinionChildMarket & Partial<OpinionMarket>,
  parent: OpinionParent | null,
): Market {
  const id = String(m.marketId);
  const groupId = String(parent?.marketId ?? m.marketId);
  const status = topicStatus(m);
  const resolvedTo = status === 'resolved' ? nonEmpty(m.resultTokenId) : undefined;
  const outcome = (label: string | null | undefined, fallback: string, token: string | null | undefined) => {
    const o: Outcome = { name: nonEmpty(label) ?? fallback };
    const tokenId = nonEmpty(token);
    if (tokenId !== undefined) o.token_id = tokenId;
    // A resolved market pays 1 on the winning token and 0 on the other: the venue's result, not a guess.
    if (resolvedTo !== undefined && tokenId !== undefined) o.price = tokenId === resolvedTo ? 1 : 0;
    return o;
  };
  const rules = nonEmpty(m.rules) ?? nonEmpty(parent?.rules);
  const market: Market = {
    svc_id: encodeSvcId('opinion', id),
    svc_group_id: encodeSvcId('opinion', groupId),
    exchange: 'opinion',
    exchange_market_id: id,
    exchange_group_id: groupId,
    question: parent ? `${parent.marketTitle} - ${m.marketTitle}` : m.marketTitle,
    group_title: parent?.marketTitle ?? m.marketTitle,
    status,
    market_type: 'binary',
    outcomes: [outcome(m.yesLabel, 'Yes', m.yesTokenId), outcome(m.noLabel, 'No', m.noTokenId)],
    volume_total: toNumber(m.volume),
    outcome_count: 2,
    url: opinionUrl(parent?.marketId ?? m.marketId, parent !== null),
    created_at: iso(m.createdAt),
    end_date: iso(m.cutoffAt) ?? iso(parent?.cutoffAt),
  };
  if (rules !== undefined) {
    market.description = rules;
    market.rules = rules;
  }
  const slug = nonEmpty(m.slug);
  if (slug !== undefined) market.slug = slug;
  const conditionId = nonEmpty(m.conditionId);
  if (conditionId !== undefined) market.condition_id = conditionId;
  if (m.volume24h !== undefined) market.volume_24h = toNumber(m.volume24h);
  const image =
    nonEmpty(parent?.thumbnailUrl) ??
    nonEmpty(parent?.coverUrl) ??
    nonEmpty(m.thumbnailUrl) ??
    nonEmpty(m.coverUrl);
  if (image !== undefined) market.image_url = image;
  return market;
}

export function isCategorical(m: OpinionMarket): boolean {
  return m.marketType === 1 || (m.childMarkets?.length ?? 0) > 0;
}

/** A row of GET /market: a binary market is one Market, a categorical one is one Market per child. */
export function marketsOfRow(row: OpinionMarket): Market[] {
  if (!isCategorical(row)) return [toMarket(row, null)];
  return (row.childMarkets ?? []).map((child) => toMarket(child, row));
}

/**
 * A row of GET /market as an event: a categorical market is the event of its children; a standalone binary
 * market is an event of one. A categorical row's own status has been seen stale (Created while its children
 * resolved), so its status is derived from the children when it has any.
 */
export function eventOfRow(row: OpinionMarket): MarketEvent {
  const children = isCategorical(row) ? (row.childMarkets ?? []) : [];
  let status = topicStatus(row);
  if (children.length > 0) {
    const statuses = children.map(topicStatus);
    if (statuses.includes('active')) status = 'active';
    else if (statuses.every((s) => s === 'resolved')) status = 'resolved';
    else if (statuses.includes('closed')) status = 'closed';
    else status = statuses.includes('resolved') ? 'resolved' : 'archived';
  }
  return {
    exchange: 'opinion',
    exchange_group_id: String(row.marketId),
    title: row.marketTitle,
    status,
    close_time: iso(row.cutoffAt),
    volume_total: toNumber(row.volume),
  };
}

/** Levels as numbers, zero or unreadable levels dropped, repeated prices summed, best price first. */
function side(levels: OpinionBook['bids'], descending: boolean): BookLevel[] {
  const byPrice = new Map<number, number>();
  for (const level of levels ?? []) {
    const price = toNumber(level.price);
    const size = toNumber(level.size);
    if (price === null || size === null || size <= 0 || price <= 0 || price >= 1) continue;
    byPrice.set(price, (byPrice.get(price) ?? 0) + size);
  }
  return [...byPrice.entries()].sort((a, b) => (descending ? b[0] - a[0] : a[0] - b[0]));
}

/** GET /token/orderbook for one outcome token of a market. */
export function toOrderBook(raw: OpinionBook, marketId: string, outcome: string, tokenId: string): OrderBook {
  return {
    exchange: 'opinion',
    market_id: marketId,
    outcome,
    token_id: tokenId,
    bids: side(raw.bids, true),
    asks: side(raw.asks, false),
    timestamp: new Date(raw.timestamp).toISOString(),
    // Opinion publishes no tick size for a market.
    tick_size: null,
  };
}

/** Price points within [from, to] (Unix seconds) as ticks for the candle roll-up; unreadable points are skipped. */
export function toPriceTicks(raw: OpinionPriceHistory, from: number, to: number): PriceTick[] {
  const ticks: PriceTick[] = [];
  for (const point of raw.history ?? []) {
    const price = toNumber(point.p);
    if (price === null || price < 0 || price > 1 || point.t < from || point.t > to) continue;
    ticks.push({ t: point.t, price });
  }
  return ticks;
}

const unitOrNull = (x: number | null): number | null => (x !== null && x >= 0 && x <= 1 ? x : null);

/** One row of GET /positions; null for a row holding no shares (a position sold out). */
export function toPosition(p: OpinionPosition): Position | null {
  const size = toNumber(p.sharesOwned);
  if (size === null || size === 0) return null;
  const sideName = p.outcomeSide === 1 ? 'Yes' : p.outcomeSide === 2 ? 'No' : undefined;
  const outcome = nonEmpty(p.outcome) ?? nonEmpty(p.outcomeSideEnum) ?? sideName ?? nonEmpty(p.tokenId) ?? '';
  const value = toNumber(p.currentValueInQuoteToken);
  // Opinion reports the position's current value, not a price: value / shares is the price it marks them at.
  const current = value !== null && size > 0 ? Math.round((value / size) * 1e6) / 1e6 : null;
  return {
    market_id: String(p.marketId),
    outcome,
    size,
    average_price: unitOrNull(toNumber(p.avgEntryPrice)),
    current_price: unitOrNull(current),
  };
}
