// The market lifecycle over the whole simulated catalogue (docs.kalshi.com market lifecycle): a market whose
// open_time is still ahead is `initialized`, never `active`; the status filters match as the documented table maps
// them (unopened ↔ initialized, open ↔ active, closed ↔ closed, settled ↔ finalized); a market that has not opened
// has no trading history and refuses orders with 409 `market_closed`.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import { account, call, type Json, walkPages } from './client.js';

/** The world's instant (statuses are taken at it); the wall clock is later, so it bounds "the future" too. */
const WORLD_NOW = new Date(Date.UTC(2026, 10, 22, 12));

let sim: KalshiSim;
let markets: Json[];
before(async () => {
  sim = await startKalshiSim({ seed: 17, size: 400, now: WORLD_NOW });
  markets = await walk('/markets');
});
after(() => sim.close());

function walk(path: string, key = 'markets'): Promise<Json[]> {
  return walkPages(sim, path, key, key === 'events' ? 200 : 1000);
}

const opensAt = (m: Json) => Date.parse(m.open_time as string);
const tickers = (list: Json[]) => list.map((m) => m.ticker as string).sort();

test('no market in the catalogue is active while its open_time is in the future', () => {
  assert.ok(markets.length > 200, `${markets.length} markets`);
  const statuses = new Set(markets.map((m) => m.status));
  for (const s of statuses)
    assert.ok(['initialized', 'active', 'closed', 'finalized'].includes(s as string), `${s}`);
  for (const m of markets) {
    if (m.status === 'active') {
      assert.ok(opensAt(m) <= WORLD_NOW.getTime(), `${m.ticker} active before its open_time ${m.open_time}`);
      assert.ok(opensAt(m) <= Date.now(), `${m.ticker} active before its open_time by the wall clock`);
    }
    if (opensAt(m) > WORLD_NOW.getTime()) assert.equal(m.status, 'initialized', `${m.ticker}`);
    if (m.status === 'initialized')
      assert.ok(opensAt(m) > WORLD_NOW.getTime(), `${m.ticker} initialized but open`);
  }
  assert.ok(
    markets.some((m) => m.status === 'initialized'),
    'the catalogue has markets that have not opened yet',
  );
  assert.ok(markets.some((m) => m.status === 'active'));
});

test('status filters match as the lifecycle table maps them, for markets and (any child market) for events', async () => {
  const by = (status: string) => markets.filter((m) => m.status === status);
  const expected: Array<[string, string]> = [
    ['unopened', 'initialized'],
    ['open', 'active'],
    ['closed', 'closed'],
    ['settled', 'finalized'],
  ];
  for (const [filter, status] of expected) {
    const listed = await walk(`/markets?status=${filter}`);
    assert.deepEqual(tickers(listed), tickers(by(status)), `status=${filter}`);
  }
  assert.deepEqual(await walk('/markets?status=paused'), [], 'no market is paused');
  const open = await walk('/markets?status=open');
  assert.ok(open.every((m) => opensAt(m) <= WORLD_NOW.getTime()));

  const events = await walk('/events?with_nested_markets=true', 'events');
  const unopened = await walk('/events?status=unopened', 'events');
  const withInitialized = events.filter((e) => (e.markets as Json[]).some((m) => m.status === 'initialized'));
  assert.deepEqual(
    unopened.map((e) => e.event_ticker).sort(),
    withInitialized.map((e) => e.event_ticker).sort(),
  );
  const oneSeries = unopened[0]?.series_ticker as string;
  const scoped = await walk(`/events?status=unopened&series_ticker=${oneSeries}`, 'events');
  assert.ok(scoped.length > 0 && scoped.every((e) => e.series_ticker === oneSeries));
});

test('a market that has not opened has no book, trades, volume or candles before its opening', async () => {
  const m = markets.find((x) => x.status === 'initialized') as Json;
  assert.deepEqual(
    [m.volume_fp, m.volume_24h_fp, m.open_interest_fp, m.last_price_dollars, m.yes_bid_dollars],
    ['0.00', '0.00', '0.00', '0.0000', '0.0000'],
  );
  const book = (await call(sim, 'GET', `/markets/${m.ticker}/orderbook`)).body as { orderbook_fp: Json };
  assert.deepEqual(book.orderbook_fp, { no_dollars: [], yes_dollars: [] });
  const trades = (await call(sim, 'GET', `/markets/trades?ticker=${m.ticker}`)).body as { trades: Json[] };
  assert.deepEqual(trades.trades, []);
  const now = Math.floor(Date.now() / 1000);
  const candles = (
    await call(
      sim,
      'GET',
      `/markets/candlesticks?market_tickers=${m.ticker}&start_ts=${now - 86_400}&end_ts=${now}&period_interval=60`,
    )
  ).body as { markets: Array<{ candlesticks: Json[] }> };
  assert.deepEqual(candles.markets[0]?.candlesticks, [], 'no candle before the market opened');
});

test('an order on a market that has not opened is refused with 409 market_closed; an open market takes it', async () => {
  const who = await account(sim);
  const body = (ticker: string) => ({
    ticker,
    client_order_id: randomUUID(),
    side: 'bid',
    count: '1.00',
    price: '0.0100',
    time_in_force: 'good_till_canceled',
    self_trade_prevention_type: 'taker_at_cross',
  });
  const unopened = markets.find((x) => x.status === 'initialized') as Json;
  const refused = await call(sim, 'POST', '/portfolio/events/orders', {
    account: who,
    body: body(unopened.ticker as string),
  });
  assert.deepEqual(
    [refused.status, refused.body],
    [409, { error: { code: 'market_closed', message: 'market closed', service: 'exchange' } }],
  );
  const open = markets.find((x) => x.status === 'active') as Json;
  const taken = await call(sim, 'POST', '/portfolio/events/orders', {
    account: who,
    body: body(open.ticker as string),
  });
  assert.equal(taken.status, 201, taken.text);
});
