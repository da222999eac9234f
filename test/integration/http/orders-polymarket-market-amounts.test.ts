// Polymarket IOC (FAK) and FOK orders are market orders to the CLOB: a BUY's maker amount (pUSD) may carry 2
// decimals and its taker amount (shares) 4 (py-clob-client #121, py-clob-client-v2 #99; the SDK's market-order
// path, @polymarket/clob-client-v2 getMarketOrderRawAmounts). `ioc 10.5 @ 0.53` costs $5.565, which no market
// order can carry: it is sent as the SDK's market order for $5.56 (10.4905 shares) and the answer says so.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { type CatalogueServer, startCatalogueServer } from '../../support/catalogue.js';

let cat: CatalogueServer;
before(async () => {
  cat = await startCatalogueServer(20);
});
after(async () => {
  await cat?.stop();
});

const header = (credentials: Record<string, string>) =>
  Buffer.from(JSON.stringify(credentials)).toString('base64');

interface Book {
  asks: [number, number][];
  tick_size: number;
}

/** A cent-tick market outcome whose asks at or under 0.53 hold more than 11 shares. */
async function cheapOutcome(): Promise<{ market: Market; outcome: string }> {
  for (const market of cat.markets.values()) {
    if (market.exchange !== 'polymarket' || market.status !== 'active') continue;
    for (const { name } of market.outcomes) {
      const res = await cat.server.request(
        `/api/v1/orderbook?exchange=polymarket&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=${name}`,
      );
      assert.equal(res.status, 200, res.text);
      const book = res.body as Book;
      if (Math.abs(book.tick_size - 0.01) > 1e-12) continue;
      const depth = book.asks.filter(([p]) => p <= 0.53).reduce((s, [, q]) => s + q, 0);
      if (depth > 11) return { market, outcome: name };
    }
  }
  assert.fail('no cent-tick polymarket outcome with 11 shares offered at or under 0.53');
}

for (const orderType of ['ioc', 'fok'] as const) {
  test(`polymarket ${orderType} buy 10.5 @ 0.53 is sent as a market order for whole cents and fills`, async () => {
    const sim = cat.sims.get('polymarket');
    assert.ok(sim);
    const { credentials } = await sim.createAccount();
    const { market, outcome } = await cheapOutcome();
    const res = await cat.server.request('/api/v1/orders?exchange=polymarket', {
      method: 'POST',
      body: {
        market_id: market.exchange_market_id,
        outcome,
        side: 'buy',
        price: 0.53,
        size: 10.5,
        params: { order_type: orderType },
      },
      headers: { 'x-exchange-credentials': header(credentials) },
    });
    assert.equal(res.status, 200, res.text);
    const order = res.body as { status: string; size: number; filled: number; price: number; note?: string };
    assert.equal(order.status, 'filled', res.text);
    assert.equal(order.price, 0.53);
    // $5.565 rounded down to $5.56; ÷ 0.53 to 4 decimals, as the SDK's market order computes it.
    assert.equal(order.size, 10.4905);
    assert.equal(order.filled, 10.4905);
    assert.match(order.note ?? '', /5\.56\b.*10\.4905/);
  });
}

test('polymarket sell ioc with a fractional size is unchanged: its amounts are already valid', async () => {
  const sim = cat.sims.get('polymarket');
  assert.ok(sim);
  const { credentials } = await sim.createAccount();
  const { market, outcome } = await cheapOutcome();
  const place = (body: Record<string, unknown>) =>
    cat.server.request('/api/v1/orders?exchange=polymarket', {
      method: 'POST',
      body: { market_id: market.exchange_market_id, outcome, ...body },
      headers: { 'x-exchange-credentials': header(credentials) },
    });
  const bought = await place({ side: 'buy', price: 0.53, size: 11 });
  assert.equal(bought.status, 200, bought.text);
  assert.equal((bought.body as { status: string }).status, 'filled', bought.text);
  const sold = await place({ side: 'sell', price: 0.01, size: 10.5, params: { order_type: 'ioc' } });
  assert.equal(sold.status, 200, sold.text);
  const order = sold.body as { size: number; note?: string };
  assert.equal(order.size, 10.5);
  assert.equal(order.note, undefined);
});
