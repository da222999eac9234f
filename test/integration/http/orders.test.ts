// Trading through the real server over the polymarket, kalshi and limitless simulators with per-request credentials (the
// sandbox's paper accounts): place, poll, fill against a resting order, cancel; every validation and 501 rule,
// with the descriptor's order types as the one source; idempotent retries; the order-outcome mapping (402, 403,
// 404, 503) and an answer lost to a timeout reconciled, never sent twice; fills, positions and balance.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { ORDER_TYPES } from '../../../src/domain/trading.js';
import {
  type CatalogueServer,
  simControl,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import type { TestRequestInit, TestResponse } from '../../support/server.js';

interface ApiOrder {
  id: string;
  client_order_id?: string;
  market_id: string;
  outcome: string;
  side: string;
  price: number;
  size: number;
  filled: number;
  status: string;
  created_at: string;
  updated_at: string | null;
}

const TRADED: ExchangeId[] = ['polymarket', 'kalshi', 'limitless', 'opinion'];
/** Limitless takes a buy's taker fee in shares (at most 3 % at its 300 bps rank rate): the position is that less. */
const heldAfterBuy = (exchange: ExchangeId, size: number) => (exchange === 'limitless' ? size * 0.97 : size);
/** Opinion publishes no tick size (null on its books); its simulator holds orders to 0.001 steps. */
const OPINION_TICK = 0.001;
/** Short enough that a held answer times out quickly, long enough for a loaded 2-core machine. */
const TIMEOUT_MS = 2_000;

let cat: CatalogueServer;
before(async () => {
  cat = await startCatalogueServer(20, { config: { venues: { timeoutMs: TIMEOUT_MS } } });
});
after(async () => {
  await cat?.stop();
});

const header = (credentials: Record<string, string>) =>
  Buffer.from(JSON.stringify(credentials)).toString('base64');

async function account(exchange: ExchangeId): Promise<Record<string, string>> {
  const sim = cat.sims.get(exchange);
  assert.ok(sim);
  return (await sim.createAccount()).credentials;
}

interface Book {
  bids: [number, number][];
  asks: [number, number][];
  tick_size: number;
}

async function book(exchange: ExchangeId, market: Market, outcome: string): Promise<Book> {
  const res = await cat.server.request(
    `/api/v1/orderbook?exchange=${exchange}&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=${outcome}`,
  );
  assert.equal(res.status, 200, res.text);
  const b = res.body as Book;
  return exchange === 'opinion' ? { ...b, tick_size: b.tick_size ?? OPINION_TICK } : b;
}

/** An active market whose first outcome has a two-sided book with room for a resting order inside the spread. */
async function roomyMarket(exchange: ExchangeId): Promise<{ market: Market; outcome: string; book: Book }> {
  for (const market of [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active',
  )) {
    const outcome = market.outcomes[0]?.name;
    if (!outcome) continue;
    const b = await book(exchange, market, outcome);
    const [bid] = b.bids[0] ?? [];
    const [ask] = b.asks[0] ?? [];
    if (bid !== undefined && ask !== undefined && ask - bid >= 1.5 * b.tick_size)
      return { market, outcome, book: b };
  }
  assert.fail(`${exchange}: no market with a spread of at least 2 ticks`);
}

function place(
  exchange: string,
  body: Record<string, unknown>,
  credentials: Record<string, string> | null,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return cat.server.request(`/api/v1/orders?exchange=${exchange}`, {
    method: 'POST',
    body,
    headers: { ...headers, ...(credentials ? { 'x-exchange-credentials': header(credentials) } : {}) },
  });
}

function get(
  path: string,
  credentials: Record<string, string> | null,
  method = 'GET',
): Promise<TestResponse> {
  return cat.server.request(path, {
    method,
    headers: credentials ? { 'x-exchange-credentials': header(credentials) } : {},
  });
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

for (const exchange of TRADED) {
  describe(`${exchange}: orders end to end`, () => {
    let maker: Record<string, string>;
    let taker: Record<string, string>;
    let market: Market;
    let outcome: string;
    let spread: Book;
    before(async () => {
      maker = await account(exchange);
      taker = await account(exchange);
      ({ market, outcome, book: spread } = await roomyMarket(exchange));
    });

    test('a resting gtc order: placed, polled, listed, cancelled with filled and updated_at', async () => {
      const tick = spread.tick_size;
      const res = await place(
        exchange,
        { market_id: market.exchange_market_id, outcome, side: 'buy', price: tick, size: 5 },
        maker,
      );
      assert.equal(res.status, 200, res.text);
      const order = res.body as ApiOrder;
      assert.equal(order.status, 'open');
      assert.equal(order.filled, 0);
      assert.equal(order.updated_at, null);
      assert.ok(order.client_order_id);

      for (const id of [order.id, order.client_order_id]) {
        const polled = await get(`/api/v1/orders/${id}?exchange=${exchange}`, maker);
        assert.equal(polled.status, 200, polled.text);
        assert.equal((polled.body as ApiOrder).id, order.id);
        assert.equal((polled.body as ApiOrder).status, 'open');
      }
      const open = await get(`/api/v1/orders?exchange=${exchange}`, maker);
      assert.equal(open.status, 200, open.text);
      assert.ok((open.body as ApiOrder[]).some((o) => o.id === order.id));

      const cancelled = await get(`/api/v1/orders/${order.id}?exchange=${exchange}`, maker, 'DELETE');
      assert.equal(cancelled.status, 200, cancelled.text);
      const c = cancelled.body as ApiOrder;
      assert.equal(c.status, 'cancelled');
      assert.equal(c.filled, 0);
      assert.ok(c.updated_at !== null);
      const openAfter = await get(`/api/v1/orders?exchange=${exchange}`, maker);
      assert.ok(!(openAfter.body as ApiOrder[]).some((o) => o.id === order.id));
      const closed = await get(`/api/v1/orders?exchange=${exchange}&status=closed`, maker);
      assert.equal(closed.status, 200, closed.text);
      assert.ok((closed.body as ApiOrder[]).some((o) => o.id === order.id && o.status === 'cancelled'));
    });

    test('a resting sell inside the spread is filled by another account, and both see their fills', async () => {
      const tick = spread.tick_size;
      const [bestAsk, askSize] = spread.asks[0] as [number, number];
      const size = Math.min(5, askSize);
      // The maker first buys what it will sell (a taker fill at the best ask); on Limitless a little more, as the
      // fee of that buy is taken in shares.
      const bought = await place(
        exchange,
        {
          market_id: market.exchange_market_id,
          outcome,
          side: 'buy',
          price: bestAsk,
          size: exchange === 'limitless' ? Math.min(askSize, size + 1) : size,
        },
        maker,
      );
      assert.equal(bought.status, 200, bought.text);
      assert.equal((bought.body as ApiOrder).status, 'filled', bought.text);

      const price = round(bestAsk - tick);
      const resting = await place(
        exchange,
        { market_id: market.exchange_market_id, outcome, side: 'sell', price, size },
        maker,
      );
      assert.equal(resting.status, 200, resting.text);
      const restingOrder = resting.body as ApiOrder;
      assert.equal(restingOrder.status, 'open', resting.text);

      const hit = await place(
        exchange,
        { market_id: market.exchange_market_id, outcome, side: 'buy', price, size },
        taker,
      );
      assert.equal(hit.status, 200, hit.text);
      assert.equal((hit.body as ApiOrder).status, 'filled', hit.text);

      const polled = await get(`/api/v1/orders/${restingOrder.id}?exchange=${exchange}`, maker);
      assert.equal(polled.status, 200, polled.text);
      assert.equal((polled.body as ApiOrder).status, 'filled', polled.text);
      assert.equal((polled.body as ApiOrder).filled, size);

      const fills = await get(
        `/api/v1/fills?exchange=${exchange}&market_id=${encodeURIComponent(market.exchange_market_id)}`,
        maker,
      );
      assert.equal(fills.status, 200, fills.text);
      const mine = (
        fills.body as Array<{ order_id: string; is_taker: boolean; size: number; fee: number | null }>
      ).filter((f) => f.order_id === restingOrder.id);
      assert.ok(mine.length > 0, `no maker fill for ${restingOrder.id}: ${fills.text}`);
      assert.ok(mine.every((f) => !f.is_taker));
      assert.equal(round(mine.reduce((s, f) => s + f.size, 0)), size);
      for (const f of fills.body as Array<{ fee: number | null }>) assert.ok(f.fee === null || f.fee >= 0);

      const positions = await get(`/api/v1/positions?exchange=${exchange}`, taker);
      assert.equal(positions.status, 200, positions.text);
      const held = (
        positions.body as Array<{ market_id: string; size: number; average_price: number | null }>
      ).find((p) => p.market_id === market.exchange_market_id);
      assert.ok(held && held.size >= heldAfterBuy(exchange, size), positions.text);
    });

    test('balance: the raw payload, cached, and refresh=true reads it again', async () => {
      const fresh = await account(exchange);
      if (exchange === 'limitless') {
        // The PnL chart, which Limitless computes on read: there is nothing to refresh.
        const first = await get(`/api/v1/balance?exchange=${exchange}`, fresh);
        assert.equal(first.status, 200, first.text);
        assert.ok('currentValue' in (first.body as { raw: Record<string, unknown> }).raw, first.text);
        assertError(
          await get(`/api/v1/balance?exchange=${exchange}&refresh=true`, fresh),
          501,
          'not_supported',
        );
        return;
      }
      const first = await get(`/api/v1/balance?exchange=${exchange}`, fresh);
      assert.equal(first.status, 200, first.text);
      const raw = (first.body as { raw: Record<string, unknown> }).raw;
      assert.ok((exchange === 'opinion' ? 'balances' : 'balance') in raw, first.text);
      // A filled buy spends money: a cached read does not see it, a refreshed one does.
      const [bestAsk] = (await book(exchange, market, outcome)).asks[0] as [number, number];
      const placed = await place(
        exchange,
        { market_id: market.exchange_market_id, outcome, side: 'buy', price: bestAsk, size: 5 },
        fresh,
      );
      assert.equal(placed.status, 200, placed.text);
      assert.equal((placed.body as ApiOrder).status, 'filled', placed.text);
      const cached = await get(`/api/v1/balance?exchange=${exchange}`, fresh);
      assert.deepEqual(cached.body, first.body);
      if (exchange === 'opinion') {
        // Opinion has no call that recomputes a balance.
        assertError(await get(`/api/v1/balance?exchange=opinion&refresh=true`, fresh), 501, 'not_supported');
        return;
      }
      const refreshed = await get(`/api/v1/balance?exchange=${exchange}&refresh=true`, fresh);
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.notDeepEqual(refreshed.body, first.body);
    });

    test('idempotent retry: the same key and body answer the first order; another body is 409; a refusal before sending holds no key', async () => {
      const tick = spread.tick_size;
      const key = `idem-${exchange}-${Date.now()}`;
      const body = { market_id: market.exchange_market_id, outcome, side: 'buy', price: tick, size: 7 };
      const first = await place(exchange, body, maker, { 'idempotency-key': key });
      assert.equal(first.status, 200, first.text);
      const again = await place(exchange, body, maker, { 'idempotency-key': key });
      assert.equal(again.status, 200, again.text);
      assert.equal((again.body as ApiOrder).id, (first.body as ApiOrder).id);
      const open = await get(
        `/api/v1/orders?exchange=${exchange}&market_id=${encodeURIComponent(market.exchange_market_id)}`,
        maker,
      );
      assert.equal(
        (open.body as ApiOrder[]).filter((o) => o.size === 7 && o.status === 'open').length,
        1,
        'one order at the venue',
      );
      const other = await place(exchange, { ...body, size: 8 }, maker, { 'idempotency-key': key });
      assertError(other, 409, 'conflict');
      // A rejection is the first result too.
      const broke = await account(exchange);
      const big = { ...body, price: 0.5, size: 1_000_000 };
      const refused = await place(exchange, big, broke, { 'idempotency-key': `${key}-402` });
      assertError(refused, 402, 'insufficient_funds');
      assertError(
        await place(exchange, big, broke, { 'idempotency-key': `${key}-402` }),
        402,
        'insufficient_funds',
      );
      // One refused before it was sent (the adapter's own check of the credentials) left no journal row, so its
      // key is free for the corrected request.
      const unusable =
        exchange !== 'polymarket'
          ? { ...maker, private_key: 'not a PEM key' }
          : { ...maker, signature_type: '9' };
      const early = { ...body, size: 13 };
      assertError(
        await place(exchange, early, unusable, { 'idempotency-key': `${key}-early` }),
        400,
        'validation_error',
      );
      const corrected = await place(exchange, early, maker, { 'idempotency-key': `${key}-early` });
      assert.equal(corrected.status, 200, corrected.text);
      // Two POSTs racing with one key: whichever journals first sends, the other answers with that order.
      const raced = { ...body, size: 17 };
      const both = await Promise.all(
        [0, 1].map(() => place(exchange, raced, maker, { 'idempotency-key': `${key}-race` })),
      );
      for (const res of both) assert.equal(res.status, 200, res.text);
      const [a, b] = both.map((res) => (res.body as ApiOrder).client_order_id);
      assert.equal(a, b, 'one journalled order answers both');
      const listed = await get(
        `/api/v1/orders?exchange=${exchange}&market_id=${encodeURIComponent(market.exchange_market_id)}`,
        maker,
      );
      assert.equal(
        (listed.body as ApiOrder[]).filter((o) => o.size === 17 && o.status === 'open').length,
        1,
        'one order at the venue',
      );
    });

    test("an Idempotency-Key is its customer's own: another customer's same key places its own order", async () => {
      const { key: otherKey } = await cat.server.runtime.keys.create({
        name: 'another customer',
        tier: 'pro',
      });
      const idem = `idem-tenant-${exchange}-${Date.now()}`;
      const body = {
        market_id: market.exchange_market_id,
        outcome,
        side: 'buy',
        price: spread.tick_size,
        size: 19,
      };
      const mine = await place(exchange, body, maker, { 'idempotency-key': idem });
      assert.equal(mine.status, 200, mine.text);
      const asOther = (init: TestRequestInit) =>
        cat.server.request(`/api/v1/orders?exchange=${exchange}`, {
          key: otherKey,
          ...init,
          headers: { 'idempotency-key': idem, 'x-exchange-credentials': header(taker) },
        });
      // A different body under the same key: not a 409 (the key is not theirs), and not my order either.
      const theirs = await asOther({ method: 'POST', body: { ...body, size: 21 } });
      assert.equal(theirs.status, 200, theirs.text);
      const [a, b] = [mine, theirs].map((res) => res.body as ApiOrder & { client_order_id: string });
      assert.notEqual(a?.client_order_id, b?.client_order_id);
      assert.equal(b?.size, 21);
      for (const [order, creds, key] of [
        [a, maker, undefined],
        [b, taker, otherKey],
      ] as const) {
        const cancelled = await cat.server.request(`/api/v1/orders/${order?.id}?exchange=${exchange}`, {
          method: 'DELETE',
          ...(key ? { key } : {}),
          headers: { 'x-exchange-credentials': header(creds) },
        });
        assert.equal(cancelled.status, 200, cancelled.text);
      }
    });

    test('outcome mapping: 402 insufficient balance, 403 refused credentials, 404 unknown order, 503 venue down', async () => {
      const body = {
        market_id: market.exchange_market_id,
        outcome,
        side: 'buy',
        price: 0.5,
        size: 1_000_000,
      };
      assertError(await place(exchange, body, await account(exchange)), 402, 'insufficient_funds');
      const stranger: Record<string, string> =
        exchange === 'polymarket'
          ? {
              private_key: `0x${'7'.repeat(64)}`,
              clob_api_key: '00000000-0000-4000-8000-000000000000',
              clob_api_secret: Buffer.from('x'.repeat(32)).toString('base64url'),
              clob_api_passphrase: 'f'.repeat(32),
            }
          : exchange === 'limitless'
            ? {
                token_id: '00000000-0000-4000-8000-000000000000',
                secret: Buffer.from('x'.repeat(32)).toString('base64'),
                private_key: maker.private_key ?? '',
              }
            : exchange === 'opinion'
              ? { private_key: maker.private_key ?? '', api_key: '0123456789abcdef0123456789abcdef' }
              : { private_key: maker.private_key ?? '', api_key_id: '00000000-0000-4000-8000-000000000000' };
      assertError(await place(exchange, { ...body, size: 5 }, stranger), 403, 'authentication_failed');
      const unknown =
        exchange === 'polymarket' ? `0x${'ab'.repeat(32)}` : '00000000-0000-0000-0000-000000000000';
      assertError(await get(`/api/v1/orders/${unknown}?exchange=${exchange}`, maker), 404, 'order_not_found');
      assertError(
        await get(`/api/v1/orders/${unknown}?exchange=${exchange}`, maker, 'DELETE'),
        404,
        'order_not_found',
      );
      await simControl(cat, exchange, 'POST', 'faults', { error_rate: 1, error_status: 503 });
      try {
        assertError(await get(`/api/v1/orders?exchange=${exchange}`, maker), 503, 'service_unavailable');
        // Limitless's PnL chart and Opinion have no balance refresh: Opinion's positions read stands in for a fresh
        // private read.
        if (exchange !== 'limitless') {
          const fresh =
            exchange === 'opinion'
              ? `/api/v1/positions?exchange=${exchange}`
              : `/api/v1/balance?exchange=${exchange}&refresh=true`;
          assertError(await get(fresh, maker), 503, 'service_unavailable');
        }
      } finally {
        await simControl(cat, exchange, 'DELETE', 'faults');
      }
    });

    test('an answer lost to a timeout is reconciled: the order is reported once and exists once', async () => {
      const route =
        exchange === 'polymarket'
          ? 'POST /order'
          : exchange === 'limitless'
            ? 'POST /orders'
            : exchange === 'opinion'
              ? 'POST /openapi/order'
              : 'POST /trade-api/v2/portfolio/events/orders';
      const fault =
        exchange !== 'kalshi'
          ? { hold_response_ms: 60_000, only: [route] }
          : { latency_ms: 60_000, only: [route] };
      const tick = spread.tick_size;
      const body = { market_id: market.exchange_market_id, outcome, side: 'buy', price: tick, size: 11 };
      await simControl(cat, exchange, 'POST', 'faults', fault);
      let res: TestResponse;
      try {
        res = await place(exchange, body, maker, { 'idempotency-key': `lost-${exchange}-${Date.now()}` });
      } finally {
        await simControl(cat, exchange, 'DELETE', 'faults');
      }
      assert.equal(res.status, 200, res.text);
      const order = res.body as ApiOrder;
      assert.ok(['open', 'pending'].includes(order.status), res.text);
      const polled = await get(`/api/v1/orders/${order.client_order_id}?exchange=${exchange}`, maker);
      assert.equal(polled.status, 200, polled.text);
      assert.equal((polled.body as ApiOrder).status, 'open', polled.text);
      const sim = cat.sims.get(exchange);
      assert.ok(sim?.adapter.trading.listOpenOrders);
      const session = { exchange, credentials: maker, source: 'per_request' as const };
      const atVenue = await sim.adapter.trading.listOpenOrders(
        venueContext(),
        session,
        market.exchange_market_id,
      );
      assert.equal(atVenue.filter((o) => o.size === 11).length, 1, JSON.stringify(atVenue));
    });
  });
}

describe('order rules', () => {
  let creds: Map<ExchangeId, Record<string, string>>;
  const markets = new Map<ExchangeId, Market>();
  before(async () => {
    creds = new Map();
    for (const exchange of TRADED) {
      creds.set(exchange, await account(exchange));
      const m = [...cat.markets.values()].find((x) => x.exchange === exchange && x.status === 'active');
      assert.ok(m);
      markets.set(exchange, m);
    }
  });

  const valid = (exchange: ExchangeId) => {
    const m = markets.get(exchange) as Market;
    return {
      market_id: m.exchange_market_id,
      outcome: m.outcomes[0]?.name as string,
      side: 'buy',
      price: m.tick_size ?? 0.01,
      size: Math.max(5, m.min_order_size ?? 1),
    };
  };

  test("the descriptor's order types are what POST /orders takes: the others answer 501", async () => {
    for (const exchange of TRADED) {
      const sim = cat.sims.get(exchange);
      assert.ok(sim);
      const declared = sim.adapter.descriptor.features.orderTypes;
      for (const type of ORDER_TYPES) {
        const params: Record<string, string> = { order_type: type };
        if (type === 'gtd') params.expiration = String(Math.floor(Date.now() / 1000) + 3_600);
        // $2 at the lowest tick: above polymarket's $1 minimum for marketable (ioc, fok) orders.
        const res = await place(
          exchange,
          { ...valid(exchange), size: 200, params },
          creds.get(exchange) ?? null,
        );
        if (declared.includes(type)) assert.equal(res.status, 200, `${exchange} ${type}: ${res.text}`);
        else assertError(res, 501, 'not_supported');
      }
    }
    assert.deepEqual(cat.sims.get('polymarket')?.adapter.descriptor.features.orderTypes, [
      'gtc',
      'ioc',
      'fok',
      'gtd',
    ]);
    assert.deepEqual(cat.sims.get('kalshi')?.adapter.descriptor.features.orderTypes, ['gtc', 'ioc']);
    assert.deepEqual(cat.sims.get('limitless')?.adapter.descriptor.features.orderTypes, ['gtc', 'ioc']);
    assert.deepEqual(cat.sims.get('predictfun')?.adapter.descriptor.features.orderTypes, [
      'gtc',
      'gtd',
      'ioc',
      'fok',
    ]);
    assert.deepEqual(cat.sims.get('opinion')?.adapter.descriptor.features.orderTypes, ['gtc', 'gtd']);
  });

  test('gtd: expiration required, whole seconds, at least 60 s ahead; expiration only with gtd', async () => {
    const base = valid('polymarket');
    const c = creds.get('polymarket') ?? null;
    const now = Math.floor(Date.now() / 1000);
    assertError(
      await place('polymarket', { ...base, params: { order_type: 'gtd' } }, c),
      400,
      'missing_parameter',
    );
    assertError(
      await place('polymarket', { ...base, params: { order_type: 'gtd', expiration: String(now + 30) } }, c),
      400,
      'validation_error',
    );
    assertError(
      await place('polymarket', { ...base, params: { order_type: 'gtd', expiration: 'soon' } }, c),
      400,
      'validation_error',
    );
    assertError(
      await place('polymarket', { ...base, params: { expiration: String(now + 3_600) } }, c),
      400,
      'validation_error',
    );
    const ok = await place(
      'polymarket',
      { ...base, params: { order_type: 'gtd', expiration: String(now + 120) } },
      c,
    );
    assert.equal(ok.status, 200, ok.text);
    assert.equal((ok.body as ApiOrder).status, 'open');
  });

  test('price, size, outcome, market, params and credentials are checked before anything is sent', async () => {
    for (const exchange of TRADED) {
      const base = valid(exchange);
      const c = creds.get(exchange) ?? null;
      const m = markets.get(exchange) as Market;
      for (const price of [0, 1, 1.5, -0.2]) {
        assertError(await place(exchange, { ...base, price }, c), 400, 'validation_error');
      }
      const tick = m.tick_size ?? 0.01;
      // Opinion names no tick; a price it cannot carry has more than 6 decimals.
      const offTick = exchange === 'opinion' ? 0.0100001 : round(tick * 1.5);
      assertError(await place(exchange, { ...base, price: offTick }, c), 400, 'validation_error');
      assertError(await place(exchange, { ...base, size: 0 }, c), 400, 'validation_error');
      if (m.min_order_size !== null && m.min_order_size !== undefined && m.min_order_size > 0.01) {
        assertError(
          await place(exchange, { ...base, size: m.min_order_size / 2 }, c),
          400,
          'validation_error',
        );
      }
      assertError(await place(exchange, { ...base, outcome: 'Maybe' }, c), 400, 'validation_error');
      assertError(await place(exchange, { ...base, side: 'hold' }, c), 400, 'validation_error');
      assertError(
        await place(exchange, { ...base, params: { order_type: 'day' } }, c),
        400,
        'validation_error',
      );
      assertError(
        await place(exchange, { ...base, params: { post_only: 'true' } }, c),
        400,
        'validation_error',
      );
      // fee_auth is a builder order's field (X-Builder-Customer-Id); an ordinary caller sending it is refused.
      assertError(await place(exchange, { ...base, fee_auth: {} }, c), 403, 'forbidden');
      const missing = await place(exchange, { ...base, market_id: 'no-such-market-anywhere' }, c);
      assert.equal(missing.status, 404, missing.text);
      assertError(await place(exchange, base, null), 403, 'credentials_required');
    }
    assertError(await place('nowhere', valid('polymarket'), null), 404, 'exchange_not_found');
    // Body credentials take precedence over the header and work alone.
    const alone = await place('kalshi', { ...valid('kalshi'), credentials: creds.get('kalshi') }, null);
    assert.equal(alone.status, 200, alone.text);
  });

  test('GET /orders: limit 1..500, status open|closed|all, start_ts ≤ end_ts', async () => {
    const c = creds.get('kalshi') ?? null;
    for (const q of ['limit=0', 'limit=501', 'status=done', 'start_ts=-1', 'foo=1']) {
      assertError(await get(`/api/v1/orders?exchange=kalshi&${q}`, c), 400, 'validation_error');
    }
    assertError(
      await get('/api/v1/orders?exchange=kalshi&start_ts=200&end_ts=100', c),
      400,
      'validation_error',
    );
    const all = await get('/api/v1/orders?exchange=kalshi&status=all&limit=2', c);
    assert.equal(all.status, 200, all.text);
    assert.ok((all.body as ApiOrder[]).length <= 2);
    const future = await get(`/api/v1/orders?exchange=kalshi&status=all&start_ts=${4_000_000_000}`, c);
    assert.deepEqual(future.body, []);
  });

  test('GET /ping: authenticated only after an authenticated call with the credentials sent', async () => {
    const res = await get('/api/v1/ping?exchange=kalshi', creds.get('kalshi') ?? null);
    assert.equal(res.status, 200, res.text);
    const [kalshi] = res.body as Array<{ has_credentials: boolean; authenticated: boolean }>;
    assert.equal(kalshi?.has_credentials, true);
    assert.equal(kalshi?.authenticated, true);
    const none = await get('/api/v1/ping?exchange=kalshi', null);
    assert.deepEqual(
      (none.body as Array<{ has_credentials: boolean; authenticated: boolean }>).map((p) => [
        p.has_credentials,
        p.authenticated,
      ]),
      [[false, false]],
    );
  });
});
