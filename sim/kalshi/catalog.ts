// The shared world phrased the way Kalshi lists it: series (a recurring template), events (one occurrence) and
// markets (one YES/NO contract each, identified by its ticker). A binary proposition becomes an event with one
// market; a multi-option proposition becomes a mutually exclusive event with one market per option. Everything
// is indexed up front in Maps and per-filter arrays so lookups and pages cost O(page), even at 100k propositions.
import { type Proposition, propositionKey, type World } from '../shared/world.js';

export type KalshiMarketStatus = 'active' | 'closed' | 'finalized';

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

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const CITY_CODES: Record<string, string> = {
  'New York': 'NY',
  Chicago: 'CHI',
  Miami: 'MIA',
  Denver: 'DEN',
  Seattle: 'SEA',
};
const TEAM_CODES: Record<string, string> = {
  Lakers: 'LAL',
  Celtics: 'BOS',
  Warriors: 'GSW',
  Knicks: 'NYK',
  Bulls: 'CHI',
  Heat: 'MIA',
  Suns: 'PHX',
  Nuggets: 'DEN',
};
const COIN_SERIES: Record<string, string> = { Bitcoin: 'KXBTCD', Ethereum: 'KXETHD', Solana: 'KXSOLD' };

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

function dateCode(d: Date): string {
  const yy = String(d.getUTCFullYear() % 100).padStart(2, '0');
  return `${yy}${MONTHS[d.getUTCMonth()]}${String(d.getUTCDate()).padStart(2, '0')}`;
}

function longDate(d: Date): string {
  return `${MONTH_NAMES[d.getUTCMonth()]?.slice(0, 3)} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** 100000 → "100,000"; 169.99 → "169.99" (Intl formatting is too slow for 100k markets). */
function money(n: number): string {
  const [whole = '0', frac] = String(Math.round(n * 100) / 100).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${grouped}.${frac}` : grouped;
}

interface Phrased {
  series: SimSeries;
  eventBase: string;
  eventTitle: string;
  subTitle: string;
  strikeDate: boolean;
  markets: Array<{
    key: string;
    suffix: string;
    title: string;
    yesSubTitle: string;
    noSubTitle: string;
    rules: string;
    fair: number;
    winner: boolean | null;
    strikeType: string | null;
    floorStrike: number | null;
  }>;
}

function phrase(p: Proposition): Phrased {
  const close = p.closeTime;
  const day = longDate(close);
  const binaryFair = p.shape.kind === 'binary' ? p.shape.fairYes : 0.5;
  const binaryWinner = p.winner === null ? null : p.winner === 'Yes';
  switch (p.topic) {
    case 'crypto': {
      const series = COIN_SERIES[p.subject] ?? 'KXBTCD';
      const threshold = p.threshold ?? 0;
      const strike = threshold - 0.01;
      return {
        series: {
          ticker: series,
          title: `${p.subject} price today`,
          category: 'Crypto',
          tags: [p.subject],
          frequency: 'daily',
        },
        eventBase: `${series}-${dateCode(close)}`,
        eventTitle: `${p.subject} price on ${day}?`,
        subTitle: `On ${day}`,
        strikeDate: true,
        markets: [
          {
            key: propositionKey(p),
            suffix: `T${strike.toFixed(2)}`,
            title: `Will the ${p.subject} price be above $${money(threshold)} on ${day} at 11:59 PM UTC?`,
            yesSubTitle: `$${money(threshold)} or above`,
            noSubTitle: `$${money(threshold)} or above`,
            rules: `If the simple average of the sixty seconds of CF Benchmarks' ${p.subject} Real-Time Index before 11:59 PM UTC on ${day} is above ${money(strike)}, then the market resolves to Yes.`,
            fair: binaryFair,
            winner: binaryWinner,
            strikeType: 'greater',
            floorStrike: strike,
          },
        ],
      };
    }
    case 'economics': {
      const bps = p.threshold ?? 0;
      const month = MONTH_NAMES[close.getUTCMonth()] ?? '';
      const yy = String(close.getUTCFullYear() % 100).padStart(2, '0');
      const action = bps === 0 ? 'hold rates' : `cut rates by ${bps}bps`;
      return {
        series: {
          ticker: 'KXFEDDECISION',
          title: 'Fed meeting',
          category: 'Economics',
          tags: ['Fed', 'Interest rates'],
          frequency: 'custom',
        },
        eventBase: `KXFEDDECISION-${yy}${MONTHS[close.getUTCMonth()]}`,
        eventTitle: `Fed decision in ${month} ${close.getUTCFullYear()}?`,
        subTitle: `${month} ${close.getUTCFullYear()} meeting`,
        strikeDate: false,
        markets: [
          {
            key: propositionKey(p),
            suffix: bps === 0 ? 'H0' : `C${bps}`,
            title: `Will the Federal Reserve ${action} at their ${month} ${close.getUTCFullYear()} meeting?`,
            yesSubTitle: bps === 0 ? 'Hold' : `Cut ${bps}bps`,
            noSubTitle: bps === 0 ? 'Hold' : `Cut ${bps}bps`,
            rules: `If the Federal Reserve decides to ${action} at its meeting before ${day}, then the market resolves to Yes.`,
            fair: binaryFair,
            winner: binaryWinner,
            strikeType: null,
            floorStrike: null,
          },
        ],
      };
    }
    case 'politics': {
      const city = p.subject.replace(/^Mayor of /, '');
      const code = CITY_CODES[city] ?? city.slice(0, 3).toUpperCase();
      const options = p.shape.kind === 'multi' ? p.shape.options : [];
      return {
        series: {
          ticker: `KXMAYOR${code}`,
          title: `${city} mayoral election`,
          category: 'Elections',
          tags: ['Mayor', city],
          frequency: 'custom',
        },
        eventBase: `KXMAYOR${code}-${String(close.getUTCFullYear() % 100).padStart(2, '0')}`,
        eventTitle: `Who will win the ${city} mayoral election?`,
        subTitle: `Before ${day}`,
        strikeDate: false,
        markets: options.map((o) => {
          const [first = '', ...rest] = o.name.split(' ');
          const last = rest.join('') || first;
          return {
            key: propositionKey(p, o.name),
            suffix: `${first.slice(0, 1)}${last.slice(0, 3)}`.toUpperCase(),
            title: `Will ${o.name} win the ${city} mayoral election?`,
            yesSubTitle: o.name,
            noSubTitle: o.name,
            rules: `If ${o.name} is certified as the winner of the ${city} mayoral election held before ${day}, then the market resolves to Yes.`,
            fair: o.fair,
            winner: p.winner === null ? null : p.winner === o.name,
            strikeType: null,
            floorStrike: null,
          };
        }),
      };
    }
    case 'sports': {
      const [home = 'Home', away = 'Away'] = p.subject.split(' vs ');
      const h = TEAM_CODES[home] ?? home.slice(0, 3).toUpperCase();
      const a = TEAM_CODES[away] ?? away.slice(0, 3).toUpperCase();
      return {
        series: {
          ticker: 'KXNBAGAME',
          title: 'Professional Basketball Game',
          category: 'Sports',
          tags: ['Basketball'],
          frequency: 'custom',
        },
        eventBase: `KXNBAGAME-${dateCode(close)}${h}${a}`,
        eventTitle: `${home} vs ${away}`,
        subTitle: day,
        strikeDate: true,
        markets: [
          {
            key: propositionKey(p),
            suffix: h,
            title: `Will the ${home} win the ${home} vs ${away} game on ${day}?`,
            yesSubTitle: home,
            noSubTitle: home,
            rules: `If the ${home} win the ${home} vs ${away} professional basketball game originally scheduled for ${day}, then the market resolves to Yes.`,
            fair: binaryFair,
            winner: binaryWinner,
            strikeType: 'structured',
            floorStrike: null,
          },
        ],
      };
    }
    default: {
      const city = p.subject.replace(/^the high temperature in /, '');
      const code = CITY_CODES[city] ?? city.slice(0, 3).toUpperCase();
      const threshold = p.threshold ?? 0;
      return {
        series: {
          ticker: `KXHIGH${code}`,
          title: `Highest temperature in ${city}`,
          category: 'Climate and Weather',
          tags: ['Weather', city],
          frequency: 'daily',
        },
        eventBase: `KXHIGH${code}-${dateCode(close)}`,
        eventTitle: `Highest temperature in ${city} on ${day}?`,
        subTitle: `On ${day}`,
        strikeDate: true,
        markets: [
          {
            key: propositionKey(p),
            suffix: `T${threshold}`,
            title: `Will the high temp in ${city} be >${threshold}° on ${day}?`,
            yesSubTitle: `${threshold + 1}° or above`,
            noSubTitle: `${threshold + 1}° or above`,
            rules: `If the highest temperature recorded in ${city} on ${day} as reported by the National Weather Service is greater than ${threshold}°, then the market resolves to Yes.`,
            fair: binaryFair,
            winner: binaryWinner,
            strikeType: 'greater',
            floorStrike: threshold,
          },
        ],
      };
    }
  }
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

/** The status filter a market answers to: `open` ↔ active, `closed` ↔ closed, `settled` ↔ finalized. */
export function filterOf(status: KalshiMarketStatus): StatusFilter {
  return status === 'active' ? 'open' : status === 'closed' ? 'closed' : 'settled';
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
    const status: KalshiMarketStatus =
      p.status === 'active' ? 'active' : p.status === 'closed' ? 'closed' : 'finalized';
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
      };
      event.markets.push(market);
      catalog.markets.push(market);
      catalog.marketByTicker.set(ticker, market);
      catalog.marketsByStatus[filterOf(status)].push(market);
      push(catalog.marketsBySeries, market.seriesTicker, market);
      catalog.manifest[m.key] = [ticker];
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
