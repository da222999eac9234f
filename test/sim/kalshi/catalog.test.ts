// The world as Kalshi lists it: cursor pages walked to the end (markets, events, trades, orders), status and
// series filters, parameter validation in the exchange's bare `{"msg"}` shape, the manifest, determinism per
// seed, and the fault controls rendered the way the exchange answers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import { createWorld } from '../../../sim/shared/world.js';
import { account, call, control, type Json, walkPages } from './client.js';

let sim: KalshiSim;
before(async () => {
  sim = await startKalshiSim({ seed: 5, size: 60 });
});
after(() => sim.close());

function walk(path: string, key: string, limit: number): Promise<Json[]> {
  return walkPages(sim, path, key, limit);
}

test('markets and events walk to the end once each; the manifest names every market with its proposition', async () => {
  const markets = await walk('/markets', 'markets', 7);
  const tickers = markets.map((m) => m.ticker as string);
  assert.equal(new Set(tickers).size, tickers.length, 'no market twice');
  const manifest = (await control(sim, 'GET', 'manifest')) as Record<string, string[]>;
  assert.deepEqual(Object.values(manifest).flat().sort(), [...tickers].sort());
  const world = createWorld({ seed: 5, size: 60 });
  for (const p of world.listedOn('kalshi')) {
    if (p.shape.kind === 'binary') assert.equal(manifest[p.id]?.length, 1, p.id);
    else
      for (const o of p.shape.options)
        assert.equal(manifest[`${p.id}/${o.name}`]?.length, 1, `${p.id}/${o.name}`);
  }
  const events = await walk('/events?with_nested_markets=true', 'events', 4);
  const nested = events.flatMap((e) => (e.markets as Json[]).map((m) => m.ticker as string));
  assert.deepEqual(nested.sort(), [...tickers].sort());
  for (const e of events) {
    for (const m of e.markets as Json[]) assert.equal(m.event_ticker, e.event_ticker);
    if ((e.markets as Json[]).length > 1) assert.equal(e.mutually_exclusive, true);
  }
});

test('status and series filters, ticker lists, single lookups and 404s', async () => {
  const open = await walk('/markets?status=open', 'markets', 50);
  assert.ok(open.length > 0 && open.every((m) => m.status === 'active'));
  const settled = await walk('/markets?status=settled', 'markets', 50);
  assert.ok(settled.every((m) => m.status === 'finalized' && (m.result === 'yes' || m.result === 'no')));
  const series = ((await call(sim, 'GET', '/series')).body as { series: Json[] }).series;
  assert.ok(series.length > 0);
  const first = series[0]?.ticker as string;
  const inSeries = await walk(`/markets?series_ticker=${first}`, 'markets', 100);
  assert.ok(inSeries.length > 0 && inSeries.every((m) => String(m.event_ticker).startsWith(first)));
  assert.equal((await call(sim, 'GET', `/series/${first}`)).status, 200);
  const two = open.slice(0, 2).map((m) => m.ticker);
  const listed = ((await call(sim, 'GET', `/markets?tickers=${two.join(',')}`)).body as { markets: Json[] })
    .markets;
  assert.deepEqual(
    listed.map((m) => m.ticker),
    two,
  );
  const one = await call(sim, 'GET', `/events/${open[0]?.event_ticker}`);
  assert.equal(one.status, 200);
  assert.ok(
    Array.isArray((one.body as Json).markets),
    'GET /events/{t} also returns the markets at the top level',
  );
  for (const path of ['/markets/NOPE', '/events/NOPE', '/series/NOPE', '/markets/NOPE/orderbook']) {
    const res = await call(sim, 'GET', path);
    assert.deepEqual(
      [res.status, res.body],
      [404, { error: { code: 'not_found', message: 'not found' } }],
      path,
    );
  }
});

test('query validation answers the bare msg shape (recorded); a garbage cursor reads as the first page', async () => {
  const over = await call(sim, 'GET', '/markets?limit=1001');
  assert.equal(over.status, 400);
  assert.equal(
    (over.body as Json).msg,
    "Parameter validation failed for GetMarkets: Key: 'GetMarketsParams.Limit' Error:Field validation for 'Limit' failed on the 'lte' tag",
  );
  assert.equal((await call(sim, 'GET', '/markets?status=bogus')).status, 400);
  const garbage = await call(sim, 'GET', '/markets?limit=3&cursor=garbage-cursor-fixture');
  const firstPage = await call(sim, 'GET', '/markets?limit=3');
  assert.equal(garbage.status, 200);
  assert.deepEqual(
    (garbage.body as { markets: Json[] }).markets.map((m) => m.ticker),
    (firstPage.body as { markets: Json[] }).markets.map((m) => m.ticker),
  );
});

test('the trade tape pages newest first to its end; advancing adds one trade per step', async () => {
  const ticker = (((await call(sim, 'GET', '/markets?status=open&limit=1')).body as { markets: Json[] })
    .markets[0]?.ticker ?? '') as string;
  const before = await walk(`/markets/trades?ticker=${ticker}`, 'trades', 6);
  assert.equal(before.length, 20, 'the opening history');
  await control(sim, 'POST', 'advance', { steps: 3 });
  const afterAdvance = await walk(`/markets/trades?ticker=${ticker}`, 'trades', 6);
  assert.equal(afterAdvance.length, 23);
  const times = afterAdvance.map((t) => Date.parse(t.created_time as string));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
    'newest first',
  );
  assert.equal(new Set(afterAdvance.map((t) => t.trade_id)).size, afterAdvance.length);
});

test('the same seed builds the same exchange; another seed another', async () => {
  const [twin, fresh, other] = await Promise.all([
    startKalshiSim({ seed: 5, size: 60 }),
    startKalshiSim({ seed: 5, size: 60 }),
    startKalshiSim({ seed: 6, size: 60 }),
  ]);
  try {
    const page = async (s: KalshiSim) =>
      ((await call(s, 'GET', '/markets?limit=20')).body as { markets: Json[] }).markets;
    // Markets, prices and books are functions of seed and advance step: two fresh exchanges answer alike.
    assert.deepEqual(await page(fresh), await page(twin));
    const ticker = (await page(twin)).find((m) => m.status === 'active')?.ticker as string;
    const book = async (s: KalshiSim) => (await call(s, 'GET', `/markets/${ticker}/orderbook`)).body;
    assert.deepEqual(await book(fresh), await book(twin));
    await control(twin, 'POST', 'advance', { steps: 2 });
    await control(fresh, 'POST', 'advance', { steps: 2 });
    assert.deepEqual(await book(fresh), await book(twin));
    assert.deepEqual(
      (await page(sim)).map((m) => m.ticker),
      (await page(twin)).map((m) => m.ticker),
    );
    assert.notDeepEqual(
      (await page(other)).map((m) => m.ticker),
      (await page(twin)).map((m) => m.ticker),
    );
  } finally {
    await Promise.all([twin.close(), fresh.close(), other.close()]);
  }
});

test('faults: 429 as the exchange sends it (no Retry-After), injected 5xx, and counted limits that clear', async () => {
  await control(sim, 'POST', 'faults', { rate_limit: { retry_after: 1, count: 2 } });
  const limited = await call(sim, 'GET', '/markets?limit=1');
  assert.deepEqual([limited.status, limited.body], [429, { error: 'too many requests' }]);
  assert.equal(
    limited.headers.get('retry-after'),
    null,
    'Kalshi 429s carry no Retry-After (rate-limit docs)',
  );
  await call(sim, 'GET', '/markets?limit=1');
  assert.equal((await call(sim, 'GET', '/markets?limit=1')).status, 200, 'the counted limit cleared');
  await control(sim, 'POST', 'faults', { error_rate: 1, error_status: 503 });
  const down = await call(sim, 'GET', '/markets?limit=1');
  assert.equal(down.status, 503);
  await control(sim, 'DELETE', 'faults');
  const acct = await account(sim);
  assert.ok(
    acct.private_key.startsWith('-----BEGIN RSA PRIVATE KEY-----'),
    'keys are handed out as PKCS#1 PEM',
  );
});
