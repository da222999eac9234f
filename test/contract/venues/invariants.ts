// Structural validators every venue's normalized output must pass, whatever the exchange (after ccxt's shared
// test validators): ids of the right form, prices in 0..1, books sorted and uncrossed, candles consistent.
import assert from 'node:assert/strict';
import type { Candle, OrderBook, Trade } from '../../../src/domain/book.js';
import { type CandlePeriod, type PriceSeries, periodStart } from '../../../src/domain/candles.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import { MARKET_STATUSES, type Market, type MarketEvent } from '../../../src/domain/market.js';
import { type Fill, ORDER_STATUSES, type Order, type Position } from '../../../src/domain/trading.js';

const isIso = (s: unknown): boolean =>
  typeof s === 'string' && !Number.isNaN(Date.parse(s)) && s.includes('T');
const inUnit = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1;
const optionalIso = (s: unknown): boolean => s === undefined || s === null || isIso(s);

export function assertMarket(m: Market, exchange: ExchangeId): void {
  const where = `${m.svc_id}`;
  assert.equal(m.exchange, exchange, where);
  assert.equal(m.svc_id, `${exchange}:${m.exchange_market_id}`, where);
  assert.equal(m.svc_group_id, `${exchange}:${m.exchange_group_id}`, where);
  assert.ok(m.exchange_market_id.length > 0 && m.exchange_group_id.length > 0, where);
  assert.ok(m.question.trim().length > 0, `${where}: empty question`);
  assert.ok(m.group_title.trim().length > 0, `${where}: empty group_title`);
  assert.ok((MARKET_STATUSES as readonly string[]).includes(m.status), `${where}: status ${m.status}`);
  assert.ok(m.market_type === 'binary' || m.market_type === 'categorical', where);
  assert.ok(m.outcomes.length >= 2, `${where}: ${m.outcomes.length} outcomes`);
  if (m.market_type === 'binary') assert.equal(m.outcomes.length, 2, where);
  const names = new Set<string>();
  for (const o of m.outcomes) {
    assert.ok(o.name.length > 0, `${where}: unnamed outcome`);
    assert.ok(!names.has(o.name.toLowerCase()), `${where}: outcome ${o.name} twice`);
    names.add(o.name.toLowerCase());
    if (o.price !== undefined && o.price !== null) assert.ok(inUnit(o.price), `${where}: price ${o.price}`);
  }
  for (const key of ['best_bid', 'best_ask', 'last_price'] as const) {
    const v = m[key];
    if (v !== undefined && v !== null) assert.ok(inUnit(v), `${where}: ${key} ${v}`);
  }
  for (const key of ['volume_total', 'volume_24h', 'liquidity', 'open_interest'] as const) {
    const v = m[key];
    if (v !== undefined && v !== null) assert.ok(Number.isFinite(v) && v >= 0, `${where}: ${key} ${v}`);
  }
  if (m.tick_size !== undefined && m.tick_size !== null) assert.ok(m.tick_size > 0 && m.tick_size < 1, where);
  for (const key of [
    'end_date',
    'created_at',
    'updated_at',
    'event_start_time',
    'price_updated_at',
  ] as const) {
    assert.ok(optionalIso(m[key]), `${where}: ${key} ${String(m[key])} is not ISO 8601`);
  }
}

export function assertEvent(e: MarketEvent, exchange: ExchangeId): void {
  assert.equal(e.exchange, exchange);
  assert.ok(e.exchange_group_id.length > 0);
  assert.ok(e.title.trim().length > 0, `event ${e.exchange_group_id}: empty title`);
  assert.ok((MARKET_STATUSES as readonly string[]).includes(e.status));
  assert.ok(optionalIso(e.close_time));
}

export function assertBook(book: OrderBook, market: Market, outcome: string): void {
  const where = `${market.svc_id} ${outcome}`;
  assert.equal(book.exchange, market.exchange, where);
  assert.equal(book.market_id, market.exchange_market_id, where);
  assert.equal(book.outcome.toLowerCase(), outcome.toLowerCase(), where);
  assert.ok(book.token_id.length > 0, `${where}: empty token_id`);
  assert.ok(isIso(book.timestamp), `${where}: timestamp ${book.timestamp}`);
  for (const [side, levels] of [
    ['bids', book.bids],
    ['asks', book.asks],
  ] as const) {
    for (const [price, size] of levels) {
      assert.ok(price > 0 && price < 1, `${where}: ${side} price ${price}`);
      assert.ok(size > 0 && Number.isFinite(size), `${where}: ${side} size ${size}`);
    }
    const prices = levels.map(([p]) => p);
    const sorted = [...prices].sort((a, b) => (side === 'bids' ? b - a : a - b));
    assert.deepEqual(prices, sorted, `${where}: ${side} not sorted`);
    assert.equal(new Set(prices).size, prices.length, `${where}: ${side} repeat a price`);
  }
  const bestBid = book.bids[0]?.[0];
  const bestAsk = book.asks[0]?.[0];
  if (bestBid !== undefined && bestAsk !== undefined) assert.ok(bestBid < bestAsk, `${where}: crossed book`);
  if (book.tick_size !== null) assert.ok(book.tick_size > 0 && book.tick_size < 1, where);
}

/** `period` as seconds means periods on multiples of it (UTC epoch); null skips the alignment checks. */
export function assertCandles(
  candles: Candle[],
  period: CandlePeriod | number | null,
  from: number,
  to: number,
): void {
  const p = typeof period === 'number' ? { seconds: period, anchor: 0 } : period;
  let previous = -Infinity;
  for (const c of candles) {
    const t = Date.parse(c.timestamp);
    assert.ok(isIso(c.timestamp), c.timestamp);
    assert.ok(t > previous, 'candles not ascending or repeated');
    previous = t;
    if (p !== null) assert.equal(periodStart(t / 1000, p), t / 1000, `${c.timestamp} not a period start`);
    // A candle may start before `from` (the period containing it), never after `to`.
    assert.ok(t / 1000 <= to, `${c.timestamp} after the window end`);
    if (p !== null) assert.ok(t / 1000 + p.seconds > from, `${c.timestamp} before the window`);
    for (const v of [c.open, c.high, c.low, c.close]) assert.ok(inUnit(v), `price ${v}`);
    assert.ok(c.low <= Math.min(c.open, c.close) && c.high >= Math.max(c.open, c.close), JSON.stringify(c));
    if (c.volume !== null) assert.ok(c.volume >= 0);
  }
}

/**
 * A venue's price history for [from, to]: points inside the window, or its own candles of one period starting
 * inside it, on that period's boundaries and nesting in `period` (the interval's), prices in 0..1.
 */
export function assertPriceSeries(
  series: PriceSeries,
  period: CandlePeriod | null,
  from: number,
  to: number,
): void {
  if (series.kind === 'ticks') {
    for (const k of series.ticks) {
      assert.ok(Number.isInteger(k.t) && k.t >= from && k.t <= to, `point at ${k.t} outside ${from}..${to}`);
      assert.ok(inUnit(k.price), `price ${k.price}`);
    }
    return;
  }
  const source = series.periodSeconds;
  if (period !== null) {
    assert.equal(period.seconds % source, 0, `${source}s candles do not nest in ${period.seconds}s`);
    assert.equal(
      period.anchor % source,
      0,
      `${source}s candles do not nest in periods from ${period.anchor}`,
    );
  }
  assertCandles(series.candles, source, from, to);
  for (const c of series.candles)
    assert.ok(Date.parse(c.timestamp) / 1000 >= from, `${c.timestamp} before ${from}`);
}

export function assertTrades(trades: Trade[], limit: number): void {
  assert.ok(trades.length <= limit, `${trades.length} trades > limit ${limit}`);
  let previous = Infinity;
  for (const t of trades) {
    assert.ok(t.id.length > 0);
    assert.ok(t.price > 0 && t.price <= 1, `trade price ${t.price}`);
    assert.ok(t.size > 0);
    assert.ok(t.side === 'buy' || t.side === 'sell');
    assert.ok(isIso(t.timestamp));
    const ts = Date.parse(t.timestamp);
    assert.ok(ts <= previous, 'trades not newest first');
    previous = ts;
  }
}

export function assertOrder(o: Order): void {
  assert.ok(o.id.length > 0);
  assert.ok((ORDER_STATUSES as readonly string[]).includes(o.status), o.status);
  assert.ok(o.side === 'buy' || o.side === 'sell');
  assert.ok(inUnit(o.price), `order price ${o.price}`);
  assert.ok(o.size > 0 && o.filled >= 0 && o.filled <= o.size + 1e-9, `size ${o.size} filled ${o.filled}`);
  assert.ok(isIso(o.created_at));
  assert.ok(o.updated_at === null || isIso(o.updated_at));
}

export function assertFill(f: Fill): void {
  assert.ok(f.fill_id.length > 0 && f.order_id.length > 0);
  assert.ok(f.price > 0 && f.price < 1, `fill price ${f.price}`);
  assert.ok(f.size > 0);
  assert.ok(f.fee === null || f.fee >= 0);
  assert.equal(typeof f.is_taker, 'boolean');
  assert.ok(isIso(f.created_at));
}

export function assertPosition(p: Position): void {
  assert.ok(p.market_id.length > 0 && p.outcome.length > 0);
  assert.ok(Number.isFinite(p.size));
  if (p.average_price !== null) assert.ok(inUnit(p.average_price), `average_price ${p.average_price}`);
  if (p.current_price !== null) assert.ok(inUnit(p.current_price), `current_price ${p.current_price}`);
}
