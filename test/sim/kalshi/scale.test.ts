// The simulator at benchmark size (100k propositions): it starts, pages from anywhere in the catalogue, filters
// by series and status, and serves books and trades without walking the whole world per request. No timing is
// asserted; a quadratic path would show up as this test running into its timeout.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import { call, type Json } from './client.js';

let sim: KalshiSim;
before(async () => {
  sim = await startKalshiSim({ seed: 1, size: 100_000 });
});
after(() => sim.close());

test('100k propositions: deep pages, filtered series, books and trades answer', async () => {
  const first = (await call(sim, 'GET', '/markets?limit=1000&status=open')).body as {
    markets: Json[];
    cursor: string;
  };
  assert.equal(first.markets.length, 1000);
  const deep = Buffer.from('60000', 'utf8').toString('base64url');
  const later = (await call(sim, 'GET', `/markets?limit=1000&cursor=${deep}`)).body as { markets: Json[] };
  assert.equal(later.markets.length, 1000);
  const series = (await call(sim, 'GET', '/markets?series_ticker=KXFEDDECISION&status=closed&limit=200'))
    .body as {
    markets: Json[];
  };
  assert.ok(series.markets.length > 0 && series.markets.every((m) => m.status === 'closed'));
  const events = (
    await call(sim, 'GET', '/events?series_ticker=KXNBAGAME&status=open&limit=200&with_nested_markets=true')
  ).body as { events: Json[] };
  assert.ok(events.events.length > 0);
  const ticker = first.markets[999]?.ticker as string;
  assert.equal((await call(sim, 'GET', `/markets/${ticker}/orderbook`)).status, 200);
  const trades = (await call(sim, 'GET', `/markets/trades?ticker=${ticker}&limit=5`)).body as {
    trades: Json[];
  };
  assert.equal(trades.trades.length, 5);
  const manifest = (await (await fetch(`${sim.control}/__sim/manifest`)).json()) as Record<string, string[]>;
  assert.ok(Object.keys(manifest).length > 50_000);
});
