// The simulator's answers against real recorded Kalshi payloads: every key a recording has is present with the
// same JSON type (the ccxt recorder stringified a few numeric scalars, named below), keys come in the exchange's
// alphabetical order, and fixed-point formats match (4-decimal dollars, 2-decimal counts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import { loadFixture } from '../../support/fixtures.js';
import { account, call, type Json, liquid, signHeaders } from './client.js';

let sim: KalshiSim;
before(async () => {
  sim = await startKalshiSim({ seed: 7, size: 40 });
});
after(() => sim.close());

/** Numeric scalars the ccxt recorder turned into strings; the live API sends numbers. */
const STRINGIFIED = new Set(['settlement_timer_seconds', 'end_period_ts']);
const DOLLARS = /^\d+\.\d{4}$/;
const COUNT = /^-?\d+\.\d{2}$/;

function typeOf(v: unknown): string {
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
}

function assertShape(sim: unknown, recorded: unknown, where: string, alphabetical = true): void {
  assert.equal(typeOf(sim), typeOf(recorded), where);
  if (typeOf(recorded) === 'object') {
    const s = sim as Json;
    const r = recorded as Json;
    for (const key of Object.keys(r)) {
      assert.ok(key in s, `${where}.${key} missing`);
      if (STRINGIFIED.has(key)) continue;
      assertShape(s[key], r[key], `${where}.${key}`, alphabetical);
    }
    if (alphabetical) {
      assert.deepEqual(
        Object.keys(s),
        [...Object.keys(s)].sort(),
        `${where}: keys not in alphabetical order`,
      );
    }
  } else if (typeOf(recorded) === 'array') {
    const s = sim as unknown[];
    const r = recorded as unknown[];
    if (r.length > 0 && s.length > 0) assertShape(s[0], r[0], `${where}[0]`, alphabetical);
  } else if (typeof recorded === 'string') {
    if (DOLLARS.test(recorded)) assert.match(sim as string, DOLLARS, where);
    if (COUNT.test(recorded)) assert.match(sim as string, COUNT, where);
  }
}

test('GET /markets/{ticker} carries every field of the recorded market, typed alike', async () => {
  const { ticker } = await liquid(sim);
  const res = await call(sim, 'GET', `/markets/${ticker}`);
  assert.equal(res.status, 200);
  const recorded = loadFixture('kalshi', 'http_get_markets_ticker.json') as { market: Json };
  const market = (res.body as { market: Json }).market;
  assertShape(market, recorded.market, 'market');
  assert.equal(typeof market.settlement_timer_seconds, 'number');
  assert.equal(market.status, 'active');
});

test('GET /markets (page), the order book, trades and candlesticks match their recordings', async () => {
  const { ticker } = await liquid(sim);
  const list = await call(sim, 'GET', `/markets?tickers=${ticker}`);
  assertShape(list.body, loadFixture('kalshi', 'http_get_markets.json'), 'markets');
  assert.equal((list.body as { cursor: string }).cursor, '');

  const book = await call(sim, 'GET', `/markets/${ticker}/orderbook`);
  assertShape(book.body, loadFixture('kalshi', 'http_get_markets_ticker_orderbook.json'), 'orderbook');
  const levels = (book.body as { orderbook_fp: { yes_dollars: string[][] } }).orderbook_fp.yes_dollars;
  const prices = levels.map((l) => Number(l[0]));
  assert.deepEqual(
    prices,
    [...prices].sort((a, b) => a - b),
    'levels ascend, as recorded',
  );

  await fetch(`${sim.control}/__sim/advance`, { method: 'POST', body: '{"steps":2}' });
  const trades = await call(sim, 'GET', `/markets/trades?ticker=${ticker}&limit=3`);
  assertShape(trades.body, loadFixture('kalshi', 'http_get_markets_trades.json'), 'trades');

  const m = ((await call(sim, 'GET', `/markets/${ticker}`)).body as { market: Json }).market;
  const event = ((await call(sim, 'GET', `/events/${m.event_ticker}`)).body as { event: Json }).event;
  const now = Math.floor(Date.now() / 1000);
  const candles = await call(
    sim,
    'GET',
    `/series/${event.series_ticker}/markets/${ticker}/candlesticks?start_ts=${now - 86_400}&end_ts=${now}&period_interval=60`,
  );
  assert.equal(candles.status, 200);
  assertShape(
    candles.body,
    loadFixture('kalshi', 'http_get_series_markets_candlesticks.json'),
    'candlesticks',
  );
  const sticks = (candles.body as { candlesticks: Json[] }).candlesticks;
  assert.ok(sticks.length >= 23 && sticks.length <= 24, `${sticks.length} hourly candles in a day`);
  for (const c of sticks) assert.equal((c.end_period_ts as number) % 3600, 0);
  // Period interval must be one of the exchange's three.
  const bad = await call(
    sim,
    'GET',
    `/markets/candlesticks?market_tickers=${ticker}&start_ts=0&end_ts=1&period_interval=5`,
  );
  assert.equal(bad.status, 400);
  assert.match(String((bad.body as { msg: string }).msg), /PeriodInterval/);
});

test('WebSocket frames match the recorded subscribed ack, snapshot, delta and trade', async () => {
  const { ticker } = await liquid(sim);
  const acct = await account(sim);
  const ws = new WebSocket(sim.wsUrl, { headers: signHeaders(acct, 'GET', '/trade-api/ws/v2') });
  const frames: Json[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(String(d)) as Json));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const waitFor = async (pred: (f: Json) => boolean) => {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const hit = frames.find(pred);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.fail('frame never came');
  };
  ws.send(
    JSON.stringify({
      id: 1,
      cmd: 'subscribe',
      params: { channels: ['orderbook_delta', 'trade'], market_ticker: ticker },
    }),
  );
  const subscribed = await waitFor((f) => f.type === 'subscribed');
  const recordedAck = loadFixture('kalshi', 'ws_subscribed_demo.json') as Json;
  assertShape(subscribed, recordedAck, 'subscribed', false);
  // Frames keep the exchange's own key order (not alphabetical).
  assert.deepEqual(Object.keys(subscribed), Object.keys(recordedAck));
  const snapshot = await waitFor((f) => f.type === 'orderbook_snapshot');
  assertShape(snapshot, loadFixture('kalshi', 'ws_orderbook_snapshot_empty_demo.json'), 'snapshot', false);
  assert.equal(snapshot.seq, 1);
  await fetch(`${sim.control}/__sim/advance`, { method: 'POST', body: '{"steps":1}' });
  const delta = await waitFor((f) => f.type === 'orderbook_delta');
  const recordedDelta = loadFixture('kalshi', 'ws_orderbook_delta_fp.json') as Json;
  assert.deepEqual(Object.keys(delta), Object.keys(recordedDelta), 'envelope keys in the recorded order');
  assertShapeUnsorted(delta.msg, recordedDelta.msg, 'delta');
  const trade = await waitFor((f) => f.type === 'trade');
  assertShapeUnsorted(trade.msg, (loadFixture('kalshi', 'ws_trade_fp.json') as Json).msg, 'trade');
  ws.terminate();
});

/** WebSocket `msg` objects are not alphabetical on the wire; only keys and types are compared. */
function assertShapeUnsorted(sim: unknown, recorded: unknown, where: string): void {
  const s = sim as Json;
  for (const [key, value] of Object.entries(recorded as Json)) {
    assert.ok(key in s, `${where}.${key} missing`);
    assert.equal(typeOf(s[key]), typeOf(value), `${where}.${key}`);
  }
}
