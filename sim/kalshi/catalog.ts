// The shared world phrased the way Kalshi lists it: series (a recurring template), events (one occurrence) and
// markets (one YES/NO contract each, identified by its ticker). A binary proposition becomes an event with one
// market; a multi-option proposition becomes a mutually exclusive event with one market per option. Everything
// is indexed up front in Maps and per-filter arrays so lookups and pages cost O(page), even at 100k propositions.
import { setOwn } from '../shared/own-key.js';
import type { Proposition, World } from '../shared/world.js';
import { phrase } from './phrasing.js';

/**
 * The REST statuses the simulator serves (docs.kalshi.com market lifecycle): `initialized` (listed, `open_time` still
 * ahead, not tradable), `active`, `closed` (past `close_time`, not settled), `finalized` (settled).
 */
export type KalshiMarketStatus = 'initialized' | 'active' | 'closed' | 'finalized';

export interface SimSeries {
  ticker: string;
  title: string;
  category: string;
  tags: string[];
  frequency: string;
}

export interface SimMarket {
  ticker: string;
  eventTicker: string;
  seriesTicker: string;
  /** Stable UUID the exchange also publishes (`market_id` on WebSocket frames). */
  marketId: string;
  /** The proposition and option this market phrases; its texts are derived on demand (see marketText). */
  prop: Proposition;
  option: number;
  status: KalshiMarketStatus;
  result: '' | 'yes' | 'no';
  /** Probability of YES the house quotes centre on. */
  fair: number;
  openMs: number;
  closeMs: number;
  strikeType: string | null;
  floorStrike: number | null;
  /** Seed for this market's deterministic house book, tape and candles. */
  seed: number;
  /** Position in the catalogue (stable page order). */
  index: number;
  /** Base volume in contracts, for the market's volume fields. */
  baseVolume: number;
  /**
   * The exchange shard (matching engine) the market lives on, `exchange_index` on the wire. Kalshi pins every
   * event and market to one shard and moved combos to shard 1 in August 2026 (docs.kalshi.com "Exchange
   * sharding"); the generated catalogue has no combos, so every market starts on shard 0 and
   * `POST /__sim/kalshi/shard` moves one, as the combo migration did.
   */
  exchangeIndex: number;
}

export interface SimEvent {
  ticker: string;
  seriesTicker: string;
  prop: Proposition;
  category: string;
  mutuallyExclusive: boolean;
  strikeDateMs: number | null;
  markets: SimMarket[];
  index: number;
}

/** The `status` filter values of GET /markets and GET /events, and what each matches. */
export const STATUS_FILTERS = ['unopened', 'open', 'paused', 'closed', 'settled'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export interface SimCatalog {
  series: Map<string, SimSeries>;
  events: SimEvent[];
  markets: SimMarket[];
  eventByTicker: Map<string, SimEvent>;
  marketByTicker: Map<string, SimMarket>;
  /** Markets matching each status filter, in catalogue order. */
  marketsByStatus: Record<StatusFilter, SimMarket[]>;
  /** Events with at least one market matching each status filter (the documented event filter semantics). */
  eventsByStatus: Record<StatusFilter, SimEvent[]>;
  marketsBySeries: Map<string, SimMarket[]>;
  eventsBySeries: Map<string, SimEvent[]>;
  manifest: Record<string, string[]>;
}

/** FNV-1a, for stable per-market seeds and ids. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A UUID-shaped id derived from a string, so the same world always publishes the same market ids. */
export function stableUuid(text: string): string {
  const parts = [0, 1, 2, 3].map((i) => hashString(`${i}:${text}`).toString(16).padStart(8, '0'));
  const hex = parts.join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A market's display texts (derived again on each read so 100k markets do not hold their prose in memory). */
export function marketText(m: SimMarket): {
  title: string;
  yesSubTitle: string;
  noSubTitle: string;
  rules: string;
} {
  const phrased = phrase(m.prop).markets[m.option];
  return {
    title: phrased?.title ?? m.ticker,
    yesSubTitle: phrased?.yesSubTitle ?? '',
    noSubTitle: phrased?.noSubTitle ?? '',
    rules: phrased?.rules ?? '',
  };
}

export function eventText(e: SimEvent): { title: string; subTitle: string } {
  const phrased = phrase(e.prop);
  return { title: phrased.eventTitle, subTitle: phrased.subTitle };
}

function emptyByStatus<T>(): Record<StatusFilter, T[]> {
  return { unopened: [], open: [], paused: [], closed: [], settled: [] };
}

/**
 * The status filter a market answers to, as the market lifecycle page maps them: `unopened` ↔ initialized,
 * `open` ↔ active, `paused` ↔ inactive (never served here), `closed` ↔ closed, `settled` ↔ finalized.
 */
export function filterOf(status: KalshiMarketStatus): StatusFilter {
  switch (status) {
    case 'initialized':
      return 'unopened';
    case 'active':
      return 'open';
    case 'closed':
      return 'closed';
    case 'finalized':
      return 'settled';
  }
}

/**
 * A proposition's status at the world's instant. A live proposition whose opening is still ahead is listed but not
 * yet open: Kalshi reports it `initialized` until `open_time` passes (and refuses orders on it).
 */
function statusOf(p: Proposition, nowMs: number): KalshiMarketStatus {
  if (p.status === 'resolved') return 'finalized';
  if (p.status === 'closed') return 'closed';
  return p.openTime.getTime() > nowMs ? 'initialized' : 'active';
}

export function buildCatalog(world: World): SimCatalog {
  const catalog: SimCatalog = {
    series: new Map(),
    events: [],
    markets: [],
    eventByTicker: new Map(),
    marketByTicker: new Map(),
    marketsByStatus: emptyByStatus(),
    eventsByStatus: emptyByStatus(),
    marketsBySeries: new Map(),
    eventsBySeries: new Map(),
    manifest: {},
  };
  const repeats = new Map<string, number>();
  for (const p of world.listedOn('kalshi')) {
    const phrased = phrase(p);
    if (!catalog.series.has(phrased.series.ticker)) catalog.series.set(phrased.series.ticker, phrased.series);
    // Two propositions can fall on the same series and date; the exchange would list a second occurrence under
    // its own event ticker, which a letter suffix models.
    const seen = repeats.get(phrased.eventBase) ?? 0;
    repeats.set(phrased.eventBase, seen + 1);
    const eventTicker =
      seen === 0
        ? phrased.eventBase
        : `${phrased.eventBase}${seen < 26 ? String.fromCharCode(65 + seen) : seen}`;
    const status = statusOf(p, world.now.getTime());
    const event: SimEvent = {
      ticker: eventTicker,
      seriesTicker: phrased.series.ticker,
      prop: p,
      category: phrased.series.category,
      mutuallyExclusive: phrased.markets.length > 1,
      strikeDateMs: phrased.strikeDate ? p.closeTime.getTime() : null,
      markets: [],
      index: catalog.events.length,
    };
    for (const [i, m] of phrased.markets.entries()) {
      const ticker = `${eventTicker}-${m.suffix}`;
      const market: SimMarket = {
        ticker,
        eventTicker,
        seriesTicker: phrased.series.ticker,
        marketId: stableUuid(`${world.seed}:${ticker}`),
        prop: p,
        option: i,
        status,
        result: status === 'finalized' ? (m.winner ? 'yes' : 'no') : '',
        fair: Math.min(0.97, Math.max(0.03, m.fair)),
        openMs: p.openTime.getTime(),
        closeMs: p.closeTime.getTime(),
        strikeType: m.strikeType,
        floorStrike: m.floorStrike,
        seed: hashString(`${world.seed}:${ticker}`),
        index: catalog.markets.length,
        baseVolume: Math.max(1, Math.round(p.baseVolumeUsd * (0.5 + m.fair))),
        exchangeIndex: 0,
      };
      event.markets.push(market);
      catalog.markets.push(market);
      catalog.marketByTicker.set(ticker, market);
      catalog.marketsByStatus[filterOf(status)].push(market);
      push(catalog.marketsBySeries, market.seriesTicker, market);
      setOwn(catalog.manifest, m.key, [ticker]);
    }
    catalog.events.push(event);
    catalog.eventByTicker.set(eventTicker, event);
    catalog.eventsByStatus[filterOf(status)].push(event);
    push(catalog.eventsBySeries, event.seriesTicker, event);
  }
  return catalog;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
