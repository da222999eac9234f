// Predict.fun trading through the real server over HTTP, against the sandbox simulator (only this venue, so the
// file stays cheap): every order type the descriptor offers (gtc and gtd resting, ioc taking what the book has and
// never resting, fok killed when the book cannot fill it), fills with the taker fee the venue charged in USD,
// positions and the on-chain balance moving with the fill, history by status, and the venue's rules as 4xx.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type RunningSimVenue, SIM_VENUE_LAUNCHERS } from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import type { Market } from '../../../src/domain/market.js';
import { MarketsRepo } from '../../../src/store/markets-repo.js';
import { venueContext, walkVenue } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import {
  startTestServer,
  type TestRequestInit,
  type TestResponse,
  type TestServer,
} from '../../support/server.js';

interface ApiOrder {
  id: string;
  status: string;
  filled: number;
  size: number;
  price: number;
  outcome: string;
}
interface ApiFill {
  order_id: string;
  price: number;
  size: number;
  is_taker: boolean;
  fee: number | null;
}

let sim: RunningSimVenue;
let server: TestServer;
let markets: Market[];
before(async () => {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  const launch = SIM_VENUE_LAUNCHERS.predictfun;
  assert.ok(launch);
  sim = await launch(config, { size: 20, seed: 7 });
  server = await startTestServer({ venues: [sim.adapter] });
  markets = (await walkVenue(sim.adapter)).markets;
  await new MarketsRepo(server.runtime.store.db, server.runtime.store.dialect).upsertMany(
    markets,
    new Date().toISOString(),
  );
});
after(async () => {
  await server?.stop();
  await sim?.close();
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

let lastCredentials: Record<string, string> = {};
async function account(): Promise<string> {
  lastCredentials = (await sim.createAccount()).credentials;
  return b64(lastCredentials);
}

function call(path: string, credentials: string, init: TestRequestInit = {}): Promise<TestResponse> {
  return server.request(path, {
    ...init,
    headers: { ...init.headers, 'x-exchange-credentials': credentials },
  });
}

function place(credentials: string, body: Record<string, unknown>): Promise<TestResponse> {
  return call('/api/v1/orders?exchange=predictfun', credentials, { method: 'POST', body });
}

async function book(market: Market): Promise<{ bids: [number, number][]; asks: [number, number][] }> {
  const res = await server.request(
    `/api/v1/orderbook?exchange=predictfun&market_id=${market.exchange_market_id}&outcome=Yes`,
  );
  assert.equal(res.status, 200, res.text);
  return res.body as never;
}

/** An active two-decimal market whose best ask is worth trading against (at least 12 shares, 0.2 to 0.8). */
async function tradable(): Promise<{ market: Market; ask: [number, number]; bid: [number, number] }> {
  for (const market of markets.filter((m) => m.status === 'active' && m.tick_size === 0.01)) {
    const b = await book(market);
    const [ask, bid] = [b.asks[0], b.bids[0]];
    if (ask && bid && ask[1] >= 12 && ask[0] >= 0.2 && ask[0] <= 0.8) return { market, ask, bid };
  }
  assert.fail('no tradable predictfun market');
}

test('a crossing buy fills at the ask: the fill carries the taker fee, positions and the balance follow', async () => {
  const creds = await account();
  const { market, ask } = await tradable();
  const placed = await place(creds, {
    market_id: market.exchange_market_id,
    outcome: 'Yes',
    side: 'buy',
    price: ask[0],
    size: 10,
  });
  assert.equal(placed.status, 200, placed.text);
  const order = placed.body as ApiOrder;
  assert.deepEqual([order.status, order.filled, order.outcome], ['filled', 10, 'Yes']);
  assert.match(order.id, /^0x[0-9a-f]{64}$/);

  const fills = await call(`/api/v1/fills?exchange=predictfun&market_id=${market.exchange_market_id}`, creds);
  assert.equal(fills.status, 200, fills.text);
  const [fill] = fills.body as ApiFill[];
  // feeRateBps (200) × min(p, 1 − p) × shares, in USD.
  const fee = (200 / 10_000) * Math.min(ask[0], 1 - ask[0]) * 10;
  assert.deepEqual(
    [fill?.order_id, fill?.price, fill?.size, fill?.is_taker],
    [order.id, ask[0], 10, true],
    fills.text,
  );
  assert.ok(Math.abs((fill?.fee ?? 0) - fee) < 1e-9, `fee ${fill?.fee} ≠ ${fee}`);

  const positions = await call('/api/v1/positions?exchange=predictfun', creds);
  assert.equal(positions.status, 200, positions.text);
  const [held] = positions.body as Array<{ market_id: string; outcome: string; size: number }>;
  assert.deepEqual([held?.market_id, held?.outcome], [market.exchange_market_id, 'Yes']);
  // The buyer's fee is taken in shares: it holds fee / price fewer than it bought.
  assert.ok(Math.abs((held?.size ?? 0) - (10 - fee / ask[0])) < 1e-9, positions.text);

  const afterFill = (await call('/api/v1/balance?exchange=predictfun', creds)).body as {
    raw: { balance: string };
  };
  // Paper accounts open with 1,000 USDT; the fill cost 10 × the ask.
  const paid = 1_000n * 10n ** 18n - BigInt(afterFill.raw.balance);
  assert.equal(paid, BigInt(Math.round(ask[0] * 100)) * 10n ** 17n);

  const closed = await call('/api/v1/orders?exchange=predictfun&status=closed', creds);
  assert.equal(closed.status, 200, closed.text);
  assert.deepEqual(
    (closed.body as ApiOrder[]).map((o) => [o.id, o.status]),
    [[order.id, 'filled']],
  );
});

test('gtd rests until cancelled; ioc takes what the book has and never rests; an unfillable fok is killed', async () => {
  const creds = await account();
  const { market, ask } = await tradable();
  const base = { market_id: market.exchange_market_id, outcome: 'Yes', side: 'buy' };
  const gtd = await place(creds, {
    ...base,
    price: 0.02,
    size: 50,
    params: { order_type: 'gtd', expiration: String(Math.floor(Date.now() / 1000) + 3600) },
  });
  assert.equal(gtd.status, 200, gtd.text);
  assert.equal((gtd.body as ApiOrder).status, 'open');
  const all = await call('/api/v1/orders?exchange=predictfun&status=open', creds);
  assert.deepEqual(
    (all.body as ApiOrder[]).map((o) => o.id),
    [(gtd.body as ApiOrder).id],
  );

  const asks = (await book(market)).asks.filter(([p]) => p === ask[0]);
  const available = asks.reduce((s, [, size]) => s + size, 0);
  const size = Math.floor(available) + 20;
  const ioc = await place(creds, { ...base, price: ask[0], size, params: { order_type: 'ioc' } });
  assert.equal(ioc.status, 200, ioc.text);
  const taken = ioc.body as ApiOrder;
  assert.equal(taken.status, 'cancelled', ioc.text);
  assert.ok(taken.filled > 0 && taken.filled < size, ioc.text);
  const open = (await call('/api/v1/orders?exchange=predictfun', creds)).body as ApiOrder[];
  assert.ok(!open.some((o) => o.id === taken.id), 'an ioc order never rests');

  const next = (await book(market)).asks[0] as [number, number];
  const fok = await place(creds, {
    ...base,
    price: next[0],
    size: Math.floor(next[1]) + 50,
    params: { order_type: 'fok' },
  });
  assert.equal(fok.status, 200, fok.text);
  assert.deepEqual([(fok.body as ApiOrder).status, (fok.body as ApiOrder).filled], ['cancelled', 0]);

  const cancelled = await call(`/api/v1/orders/${(gtd.body as ApiOrder).id}?exchange=predictfun`, creds, {
    method: 'DELETE',
  });
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal((cancelled.body as ApiOrder).status, 'cancelled');
  const twice = await call(`/api/v1/orders/${(gtd.body as ApiOrder).id}?exchange=predictfun`, creds, {
    method: 'DELETE',
  });
  assert.ok(twice.status === 409 || twice.status === 200, twice.text);
});

test("the venue's rules are 4xx that change nothing: minimum value, digits, funds, an order a JWT alone cannot sign", async () => {
  const creds = await account();
  const { market } = await tradable();
  const base = { market_id: market.exchange_market_id, outcome: 'Yes', side: 'buy' };
  assertError(await place(creds, { ...base, price: 0.02, size: 10 }), 400, 'validation_error');
  assertError(await place(creds, { ...base, price: 0.02, size: 123.456 }), 400, 'validation_error');
  assertError(await place(creds, { ...base, price: 0.5, size: 100_000 }), 402, 'insufficient_funds');
  assertError(await place(creds, { ...base, side: 'sell', price: 0.5, size: 5 }), 402, 'insufficient_funds');
  assertError(
    await place(creds, { ...base, outcome: 'Maybe', price: 0.5, size: 5 }),
    400,
    'validation_error',
  );
  const jwtOnly = b64({ jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJhZGRyZXNzIjoiMHgwIn0.c2ln' });
  const refused = await place(jwtOnly, { ...base, price: 0.5, size: 5 });
  assert.ok(refused.status >= 400 && refused.status < 500, refused.text);
  const session = {
    exchange: 'predictfun' as const,
    credentials: lastCredentials,
    source: 'per_request' as const,
  };
  // None of the refusals reached the exchange.
  assert.deepEqual(await sim.adapter.trading.listOpenOrders?.(venueContext(), session, null), []);
  assert.deepEqual(await sim.adapter.trading.fetchOrderHistory?.(venueContext(), session, null), []);
});
