// Pure normalizers from Kalshi payloads to our domain shapes. Kalshi quotes everything on one YES book: a NO bid
// at q is a YES ask at 1 − q with the same size, so each outcome's book is built from both bid ladders. Prices
// are fixed-point dollar strings, turned into 0..1 numbers through integer micro-dollars so 1 − p stays exact.
// svc_id native id = the market ticker (what every Kalshi endpoint is keyed by); the group is the event ticker.
import type { BookLevel, Candle, OrderBook, Trade } from '../../domain/book.js';
import type { Market, MarketEvent, MarketStatus } from '../../domain/market.js';
import type { BookChange } from '../../domain/stream.js';
import { encodeSvcId } from '../../domain/svc-id.js';
import { AppError } from '../../errors/app-error.js';
import type {
  KalshiCandle,
  KalshiEvent,
  KalshiMarket,
  KalshiOrderbook,
  KalshiTrade,
  KalshiWsTrade,
} from './payloads.js';

export const MICROS = 1_000_000;
export type KalshiOutcome = 'Yes' | 'No';
export const OUTCOMES: readonly KalshiOutcome[] = ['Yes', 'No'];

/** "0.5600" → 560000 micro-dollars; null when absent or malformed (never a guessed value). */
export function micros(raw: string | null | undefined): number | null {
  if (raw === null || raw === undefined) return null;
  const m = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(raw.trim());
  if (!m) return null;
  const value = Number(m[2]) * MICROS + Number((m[3] ?? '').padEnd(6, '0'));
  return m[1] === '-' ? -value : value;
}

export function dollars(raw: string | null | undefined): number | null {
  const v = micros(raw);
  return v === null ? null : v / MICROS;
}

/** Fixed-point contract count ("10.00") → number; null when absent or malformed. */
export function contracts(raw: string | null | undefined): number | null {
  if (raw === null || raw === undefined || !/^-?\d+(\.\d+)?$/.test(raw.trim())) return null;
  return Number(raw);
}

/** Token id we publish for one outcome of a ticker (Kalshi itself has one book per ticker, no outcome ids). */
export function tokenId(ticker: string, outcome: KalshiOutcome): string {
  return `${ticker}:${outcome.toLowerCase()}`;
}

/** Matches a client's outcome (case-insensitive `yes`/`no`); anything else is the client's mistake (400). */
export function resolveOutcome(market: Pick<Market, 'svc_id'>, outcome: string): KalshiOutcome {
  const wanted = outcome.trim().toLowerCase();
  if (wanted === 'yes') return 'Yes';
  if (wanted === 'no') return 'No';
  throw new AppError('validation_error', `${market.svc_id} has no outcome '${outcome}' (outcomes: Yes, No)`, {
    validationErrors: ['outcome must be one of: Yes, No'],
  });
}

/** REST market statuses (initialized … finalized) onto ours; an unknown value is treated as not tradable. */
export function marketStatus(status: string): MarketStatus {
  switch (status) {
    case 'active':
      return 'active';
    case 'determined':
    case 'amended':
    case 'finalized':
    case 'settled':
      return 'resolved';
    default:
      return 'closed';
  }
}

/** YES price for display: the mid of a two-sided quote, else the last trade; null when the market has neither. */
export function yesPriceOf(m: KalshiMarket): number | null {
  if (m.result === 'yes') return 1;
  if (m.result === 'no') return 0;
  const bid = micros(m.yes_bid_dollars);
  const ask = micros(m.yes_ask_dollars);
  if (bid !== null && ask !== null && bid > 0 && ask > 0 && ask < MICROS)
    return Math.round((bid + ask) / 2) / MICROS;
  const last = micros(m.last_price_dollars);
  return last !== null && last > 0 ? last / MICROS : null;
}

export function tickSizeOf(m: KalshiMarket): number | null {
  const steps = (m.price_ranges ?? [])
    .map((r) => dollars(r.step))
    .filter((s): s is number => s !== null && s > 0);
  return steps.length > 0 ? Math.min(...steps) : null;
}

/** A title that asks which option wins (`Who will win the NYC mayoral election in 2025?`) names none itself. */
const OPEN_QUESTION = /^\s*(?:who|which|what|how|when)\b/i;

function folded(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * The market's question. Kalshi often titles every market of an event with the event's own question (`Who will
 * win the NYC mayoral election in 2025?`) and names the option a market is about only in `yes_sub_title` (`Zohran
 * Mamdani`); the title alone would make every candidate's market ask the same thing. Then the option is appended
 * as `title - option` (the form Opinion's child markets take), so the question says what YES means and can be
 * searched and matched. A title that already names it, or that asks about a stated option, is kept as it is.
 */
export function questionOf(m: KalshiMarket, event: { title: string } | null): string {
  const option = (m.yes_sub_title ?? '').trim();
  const title = (m.title ?? '').trim();
  if (title === '') return event ? `${event.title} ${option}`.trim() : m.ticker;
  if (option === '' || folded(title).includes(folded(option))) return title;
  const generic =
    OPEN_QUESTION.test(title) ||
    (event !== null && folded(event.title) === folded(title)) ||
    // A threshold only the subtitle states (`$91,750 or above` under `Bitcoin price today?`).
    (/\d/.test(option) && !/\d/.test(title));
  return generic ? `${title} - ${option}` : title;
}

export function parseMarket(m: KalshiMarket, event: { title: string } | null): Market {
  const yes = yesPriceOf(m);
  const bid = dollars(m.yes_bid_dollars);
  const ask = dollars(m.yes_ask_dollars);
  const last = dollars(m.last_price_dollars);
  const question = questionOf(m, event);
  const market: Market = {
    svc_id: encodeSvcId('kalshi', m.ticker),
    svc_group_id: encodeSvcId('kalshi', m.event_ticker),
    exchange: 'kalshi',
    exchange_market_id: m.ticker,
    exchange_group_id: m.event_ticker,
    question,
    group_title: event?.title || question,
    status: marketStatus(m.status),
    market_type: 'binary',
    outcomes: OUTCOMES.map((name) => ({
      name,
      price: yes === null ? null : name === 'Yes' ? yes : Math.round((1 - yes) * MICROS) / MICROS,
      token_id: tokenId(m.ticker, name),
    })),
    // Kalshi counts volume in contracts, each with a $1 notional.
    volume_total: contracts(m.volume_fp),
    volume_24h: contracts(m.volume_24h_fp),
    open_interest: contracts(m.open_interest_fp),
    // `liquidity_dollars` is deprecated and always "0.0000": unknown, not zero.
    liquidity: null,
    best_bid: bid !== null && bid > 0 ? bid : null,
    best_ask: ask !== null && ask > 0 && ask < 1 ? ask : null,
    last_price: last !== null && last > 0 ? last : null,
    tick_size: tickSizeOf(m),
    min_order_size:
      m.fractional_trading_enabled === undefined || m.fractional_trading_enabled === null
        ? null
        : m.fractional_trading_enabled
          ? 0.01
          : 1,
    outcome_count: 2,
    end_date: iso(m.close_time),
    created_at: iso(m.created_time),
    updated_at: iso(m.updated_time),
  };
  if (m.rules_primary) {
    market.description = m.rules_primary;
    market.rules = m.rules_secondary ? `${m.rules_primary}\n\n${m.rules_secondary}` : m.rules_primary;
  }
  return market;
}

/** An event's status from its markets: active while any trades, resolved when all are, closed otherwise. */
export function parseEvent(e: KalshiEvent): MarketEvent {
  const markets = e.markets ?? [];
  const statuses = markets.map((m) => marketStatus(m.status));
  const status: MarketStatus = statuses.includes('active')
    ? 'active'
    : statuses.length > 0 && statuses.every((s) => s === 'resolved')
      ? 'resolved'
      : 'closed';
  const closes = markets
    .map((m) => iso(m.close_time))
    .filter((t): t is string => t !== null)
    .sort();
  const volumes = markets.map((m) => contracts(m.volume_fp));
  return {
    exchange: 'kalshi',
    exchange_group_id: e.event_ticker,
    title: e.title,
    status,
    close_time: closes.at(-1) ?? null,
    volume_total:
      volumes.length > 0 && volumes.every((v) => v !== null)
        ? volumes.reduce<number>((a, b) => a + (b ?? 0), 0)
        : null,
  };
}

function ladder(
  raw: ReadonlyArray<readonly string[]> | null | undefined,
  what: string,
): Array<[number, number]> {
  return (raw ?? []).flatMap((level) => {
    const price = micros(level[0]);
    const size = contracts(level[1]);
    if (price === null || size === null)
      throw new KalshiParseError(`bad ${what} level ${JSON.stringify(level)}`);
    return size > 0 ? [[price, size] as [number, number]] : [];
  });
}

export class KalshiParseError extends Error {
  override readonly name = 'KalshiParseError';
}

/** One outcome's book from the two bid ladders: own bids as bids, the other outcome's bids as asks at 1 − p. */
export function bookFromLadders(
  ladders: { yes: Array<[number, number]>; no: Array<[number, number]> },
  market: Pick<Market, 'exchange_market_id' | 'tick_size' | 'min_order_size'>,
  outcome: KalshiOutcome,
  timestamp: Date,
): OrderBook {
  const own = outcome === 'Yes' ? ladders.yes : ladders.no;
  const other = outcome === 'Yes' ? ladders.no : ladders.yes;
  const bids: BookLevel[] = own.map(([p, s]) => [p / MICROS, s] as BookLevel).sort((a, b) => b[0] - a[0]);
  const asks: BookLevel[] = other
    .map(([p, s]) => [(MICROS - p) / MICROS, s] as BookLevel)
    .sort((a, b) => a[0] - b[0]);
  const book: OrderBook = {
    exchange: 'kalshi',
    market_id: market.exchange_market_id,
    outcome,
    token_id: tokenId(market.exchange_market_id, outcome),
    bids,
    asks,
    timestamp: timestamp.toISOString(),
    tick_size: market.tick_size ?? null,
  };
  if (market.min_order_size !== undefined && market.min_order_size !== null)
    book.min_order_size = market.min_order_size;
  return book;
}

/** GET /markets/{ticker}/orderbook → one outcome's book. The REST book has no timestamp: it is stamped on receipt. */
export function parseOrderbook(
  ob: KalshiOrderbook,
  market: Pick<Market, 'exchange_market_id' | 'tick_size' | 'min_order_size'>,
  outcome: KalshiOutcome,
  receivedAt: Date,
): OrderBook {
  const ladders = {
    yes: ladder(ob.orderbook_fp.yes_dollars, 'yes'),
    no: ladder(ob.orderbook_fp.no_dollars, 'no'),
  };
  return bookFromLadders(ladders, market, outcome, receivedAt);
}

/** A public trade seen from one outcome: the taker bought that outcome when its outcome side matches. */
export function parseTrade(t: KalshiTrade, outcome: KalshiOutcome): Trade {
  const yes = micros(t.yes_price_dollars);
  const size = contracts(t.count_fp);
  const timestamp = iso(t.created_time);
  if (yes === null || size === null || timestamp === null) {
    throw new KalshiParseError(`trade ${t.trade_id}: unreadable price, count or time`);
  }
  const takerOutcome = t.taker_outcome_side ?? t.taker_side;
  if (takerOutcome !== 'yes' && takerOutcome !== 'no')
    throw new KalshiParseError(`trade ${t.trade_id}: no taker side`);
  const side = takerOutcome === outcome.toLowerCase() ? 'buy' : 'sell';
  return {
    id: t.trade_id,
    price: (outcome === 'Yes' ? yes : MICROS - yes) / MICROS,
    size,
    side,
    aggressor_side: side,
    timestamp,
    outcome,
  };
}

/**
 * Kalshi candles → ours. Timestamps become period starts (Kalshi stamps the inclusive end). A candle is the OHLC of
 * the period's trades and their volume; a period without trades carries only quotes (`yes_bid`, `yes_ask`) and the
 * previous trade price, which are not traded prices, so it gives no candle rather than a quote dressed as trades.
 */
export function parseCandles(
  candles: readonly KalshiCandle[],
  periodSeconds: number,
  outcome: KalshiOutcome,
): Candle[] {
  const out: Candle[] = [];
  for (const c of candles) {
    const end = Number(c.end_period_ts);
    if (!Number.isFinite(end)) throw new KalshiParseError(`candle end ${String(c.end_period_ts)}`);
    const ohlc = readOhlc(c.price);
    if (!ohlc) continue;
    const [open, high, low, close] =
      outcome === 'Yes' ? ohlc : [MICROS - ohlc[0], MICROS - ohlc[2], MICROS - ohlc[1], MICROS - ohlc[3]];
    out.push({
      timestamp: new Date((end - periodSeconds) * 1000).toISOString(),
      open: open / MICROS,
      high: high / MICROS,
      low: low / MICROS,
      close: close / MICROS,
      volume: contracts(c.volume_fp),
    });
  }
  return out.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
}

type Ohlc = [number, number, number, number];

function readOhlc(o: KalshiCandle['price']): Ohlc | null {
  if (!o) return null;
  const v = [micros(o.open_dollars), micros(o.high_dollars), micros(o.low_dollars), micros(o.close_dollars)];
  return v.every((x) => x !== null) ? (v as Ohlc) : null;
}

/** WebSocket ladder `[[price_dollars, count_fp], …]` → price (micro-dollars) → contracts; empty levels dropped. */
export function ladderMap(levels: ReadonlyArray<readonly string[]> | null | undefined): Map<number, number> {
  const map = new Map<number, number>();
  for (const [price, size] of ladder(levels, 'ws')) map.set(price, size);
  return map;
}

/** A level change of one bid ladder as seen from one outcome's book: own bids stay bids, the other's are asks. */
export function changeFor(
  outcome: KalshiOutcome,
  side: 'yes' | 'no',
  priceMicros: number,
  size: number,
): BookChange {
  return (outcome === 'Yes') === (side === 'yes')
    ? { side: 'bid', price: priceMicros / MICROS, size }
    : { side: 'ask', price: (MICROS - priceMicros) / MICROS, size };
}

/** A `trade` channel frame seen from one outcome; null when it lacks a price, size or taker side. */
export function parseWsTrade(t: KalshiWsTrade, outcome: KalshiOutcome): Trade | null {
  const yes = micros(t.yes_price_dollars);
  const size = t.count_fp !== undefined && t.count_fp !== null ? contracts(t.count_fp) : (t.count ?? null);
  const taker = t.taker_outcome_side ?? t.taker_side;
  const at = t.ts_ms ?? (t.ts === undefined || t.ts === null ? null : t.ts * 1000);
  if (yes === null || size === null || at === null || (taker !== 'yes' && taker !== 'no')) return null;
  const side = taker === outcome.toLowerCase() ? 'buy' : 'sell';
  return {
    id: t.trade_id,
    price: (outcome === 'Yes' ? yes : MICROS - yes) / MICROS,
    size,
    side,
    aggressor_side: side,
    timestamp: new Date(at).toISOString(),
    outcome,
  };
}

/** Kalshi prints RFC 3339 with microseconds; we serve ISO 8601 with milliseconds. */
export function iso(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const t = Date.parse(raw);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}
