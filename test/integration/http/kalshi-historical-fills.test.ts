// Kalshi's historical tier through the public API: a fill older than the exchange's `trades_created_ts` cutoff is
// served only by GET /historical/fills (docs.kalshi.com "Historical data"), and GET /api/v1/fills still lists it.
// Only the Kalshi simulator runs; the fill is made through its adapter and archived with the simulator's control.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type RunningSimVenue, SIM_VENUE_LAUNCHERS } from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import type { BookLevel } from '../../../src/domain/book.js';
import type { Market } from '../../../src/domain/market.js';
import { sessionFrom } from '../../../src/vault/per-request-credentials.js';
import { venueContext } from '../../support/catalogue.js';
import { startTestServer, type TestServer } from '../../support/server.js';

let sim: RunningSimVenue;
let server: TestServer;
before(async () => {
  const launch = SIM_VENUE_LAUNCHERS.kalshi;
  assert.ok(launch);
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  sim = await launch(config, { size: 20, seed: 7 });
  server = await startTestServer({ venues: [sim.adapter] });
});
after(async () => {
  await server?.stop();
  await sim?.close();
});

test('GET /api/v1/fills lists a Kalshi fill archived under /historical/fills', async () => {
  const { credentials } = await sim.createAccount();
  const session = sessionFrom(credentials, 'kalshi', sim.adapter.descriptor.credentials, 'per_request');
  const { catalog, marketData, trading } = sim.adapter;
  assert.ok(
    catalog.fetchMarketsPage && marketData.fetchOrderBook && trading.createOrder && trading.fetchFills,
  );
  let market: Market | undefined;
  let ask: BookLevel | undefined;
  for (let cursor: string | null = null, i = 0; !ask && i < 10; i++) {
    const page = await catalog.fetchMarketsPage(venueContext(), cursor);
    for (const m of page.items.filter((x) => x.status === 'active')) {
      const book = await marketData.fetchOrderBook(venueContext(), m, 'Yes');
      if (book.asks[0]) {
        market = m;
        ask = book.asks[0];
        break;
      }
    }
    cursor = page.cursor;
    if (!cursor) break;
  }
  assert.ok(market && ask, 'an active market with an ask');
  const placed = await trading.createOrder(venueContext(), session, {
    market_id: market.exchange_market_id,
    outcome: 'Yes',
    side: 'buy',
    price: ask[0],
    size: 1,
    order_type: 'ioc',
    client_order_id: randomUUID(),
  });
  assert.equal(placed.filled, 1);
  const [fill] = await trading.fetchFills(venueContext(), session, null, 1);
  assert.ok(fill);
  const res = await fetch(`${sim.control}/__sim/kalshi/historical-cutoff`, {
    method: 'POST',
    body: JSON.stringify({ trades_created_ts: new Date(Date.parse(fill.created_at) + 1).toISOString() }),
  });
  assert.equal(res.status, 200);
  const live = await fetch(`${sim.control}/trade-api/v2/markets/${market.exchange_market_id}`);
  assert.equal(live.status, 200, 'the market itself is still live');

  const header = Buffer.from(JSON.stringify(credentials)).toString('base64');
  const fills = await server.request('/api/v1/fills?exchange=kalshi', {
    headers: { 'x-exchange-credentials': header },
  });
  assert.equal(fills.status, 200, fills.text);
  assert.deepEqual(
    (fills.body as Array<{ fill_id: string }>).map((f) => f.fill_id),
    [fill.fill_id],
  );
});
