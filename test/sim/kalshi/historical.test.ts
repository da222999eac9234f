// The historical tier as the exchange serves it (docs.kalshi.com "Historical data"; kalshi-typescript 3.30.0
// HistoricalApi): GET /historical/cutoff names the boundaries; a market settled before `market_settled_ts`, a
// fill before `trades_created_ts` and an order finished before `orders_updated_ts` leave the live endpoints and
// are served under /historical/*, candles in the historical shape; resting orders stay live. The cutoffs start at
// the epoch and move by POST /__sim/kalshi/historical-cutoff.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import { type Account, account, call, control, type Json, liquid } from './client.js';

let sim: KalshiSim;
let acct: Account;
before(async () => {
  sim = await startKalshiSim({ seed: 5, size: 30 });
  acct = await account(sim);
});
after(() => sim.close());

const get = (path: string) => call(sim, 'GET', path, { account: acct });

test('the cutoff starts at the epoch: nothing is archived, the historical lists are empty', async () => {
  const cutoff = (await call(sim, 'GET', '/historical/cutoff')).body as Json;
  assert.deepEqual(Object.keys(cutoff), [
    'market_positions_last_updated_ts',
    'market_settled_ts',
    'orders_updated_ts',
    'trades_created_ts',
  ]);
  assert.equal(Date.parse(cutoff.market_settled_ts as string), 0);
  const markets = (await call(sim, 'GET', '/historical/markets')).body as { markets: Json[] };
  assert.deepEqual(markets.markets, []);
  assert.equal((await call(sim, 'GET', '/historical/fills')).status, 401, 'fills need a signature');
  assert.equal((await get('/historical/positions')).status, 200);
});

test('the control refuses a cutoff that is neither unix seconds nor a timestamp', async () => {
  const res = await fetch(`${sim.control}/__sim/kalshi/historical-cutoff`, {
    method: 'POST',
    body: JSON.stringify({ market_settled_ts: 'soon' }),
  });
  assert.equal(res.status, 400);
});

test('a market settled before the cutoff moves to /historical/markets with its candles', async () => {
  const settled = (await call(sim, 'GET', '/markets?status=settled&limit=1')).body as { markets: Json[] };
  const m = settled.markets[0];
  assert.ok(m);
  const ticker = m.ticker as string;
  const settledS = Date.parse(m.settlement_ts as string) / 1000;
  await control(sim, 'POST', 'kalshi/historical-cutoff', { market_settled_ts: settledS + 1 });
  try {
    assert.equal((await call(sim, 'GET', `/markets/${ticker}`)).status, 404);
    const list = (await call(sim, 'GET', '/markets?status=settled&limit=1000')).body as { markets: Json[] };
    assert.ok(!list.markets.some((x) => x.ticker === ticker), 'the live list omits it');
    const one = (await call(sim, 'GET', `/historical/markets/${ticker}`)).body as { market: Json };
    assert.equal(one.market.ticker, ticker);
    const hist = (await call(sim, 'GET', `/historical/markets?tickers=${ticker}`)).body as {
      markets: Json[];
    };
    assert.deepEqual(
      hist.markets.map((x) => x.ticker),
      [ticker],
    );
    const openS = Math.ceil(Date.parse(m.open_time as string) / 1000 / 3600) * 3600;
    const q = `start_ts=${openS}&end_ts=${openS + 6 * 3600}&period_interval=60`;
    const candles = (await call(sim, 'GET', `/historical/markets/${ticker}/candlesticks?${q}`)).body as {
      candlesticks: Json[];
    };
    const c = candles.candlesticks[0];
    assert.ok(c);
    assert.deepEqual(Object.keys(c), [
      'end_period_ts',
      'open_interest',
      'price',
      'volume',
      'yes_ask',
      'yes_bid',
    ]);
    assert.deepEqual(Object.keys(c.price as Json), ['close', 'high', 'low', 'mean', 'open', 'previous']);
    const batch = (await call(sim, 'GET', `/markets/candlesticks?market_tickers=${ticker}&${q}`)).body as {
      markets: Json[];
    };
    assert.deepEqual(batch.markets, [], 'the live batch no longer answers for it');
    const liveOne = await call(sim, 'GET', `/historical/markets/${(await liquid(sim)).ticker}`);
    assert.equal(liveOne.status, 404, 'a live market is not historical');
  } finally {
    await control(sim, 'POST', 'kalshi/historical-cutoff', { all: 0 });
  }
});

test('fills and finished orders before the cutoff leave the live lists; resting orders stay', async () => {
  const { ticker } = await liquid(sim);
  const book = (await call(sim, 'GET', `/markets/${ticker}/orderbook`)).body as {
    orderbook_fp: { no_dollars: string[][] };
  };
  const bestNo = book.orderbook_fp.no_dollars.at(-1)?.[0];
  assert.ok(bestNo);
  const askYes = (1 - Number(bestNo)).toFixed(4);
  const ioc = await call(sim, 'POST', '/portfolio/events/orders', {
    account: acct,
    body: {
      ticker,
      client_order_id: randomUUID(),
      side: 'bid',
      price: askYes,
      count: '1',
      time_in_force: 'immediate_or_cancel',
      self_trade_prevention_type: 'taker_at_cross',
    },
  });
  assert.equal(ioc.status, 201);
  const iocId = (ioc.body as Json).order_id as string;
  const resting = await call(sim, 'POST', '/portfolio/events/orders', {
    account: acct,
    body: {
      ticker,
      client_order_id: randomUUID(),
      side: 'bid',
      price: '0.0100',
      count: '1',
      time_in_force: 'good_till_canceled',
      self_trade_prevention_type: 'taker_at_cross',
    },
  });
  const restingId = (resting.body as Json).order_id as string;
  const later = new Date((ioc.body as Json).ts_ms as number).getTime() + 3_600_000;
  await control(sim, 'POST', 'kalshi/historical-cutoff', { all: new Date(later).toISOString() });
  try {
    const fills = (await get('/portfolio/fills')).body as { fills: Json[] };
    assert.deepEqual(fills.fills, []);
    const hFills = (await get(`/historical/fills?ticker=${ticker}`)).body as { fills: Json[] };
    assert.deepEqual(
      hFills.fills.map((f) => f.order_id),
      [iocId],
    );
    const orders = (await get('/portfolio/orders')).body as { orders: Json[] };
    assert.deepEqual(
      orders.orders.map((o) => o.order_id),
      [restingId],
      'a resting order is always live',
    );
    assert.equal((await get(`/portfolio/orders/${iocId}`)).status, 404);
    const hOrders = (await get('/historical/orders')).body as { orders: Json[] };
    assert.deepEqual(
      hOrders.orders.map((o) => o.order_id),
      [iocId],
    );
  } finally {
    await control(sim, 'POST', 'kalshi/historical-cutoff', { all: 0 });
    await call(sim, 'DELETE', `/portfolio/events/orders/${restingId}`, { account: acct });
  }
});
