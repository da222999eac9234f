// The builder program through the real server over the sandbox simulators: end-users (idempotent creation, the list's
// cursor, the pool's sum rule), the isolation matrix (every route × own end-user, another builder's, an id that exists
// nowhere, a deactivated one, and a non-builder key), the whole flow without escrow (create, onboard one managed,
// place an impersonated order, cancel it), deactivation (immediate and complete, also through a warm key cache), and
// the end-user's and pool's QPS under impersonation, on a held admission clock.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { type CatalogueServer, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import type { TestRequestInit, TestResponse } from '../../support/server.js';
import { WsTestClient } from '../../support/ws-client.js';

interface BuilderUser {
  customer_id: string;
  external_id: string;
  api_key: string;
  qps_limit: number;
  status: string;
  linked_exchanges: string[];
  wallet: { eoa_address: string; custodian_wallet_id: string | null; wallet_type: string } | null;
  fee_escrow_enabled: boolean;
  tier: string;
}

interface ApiOrder {
  id: string;
  status: string;
  filled: number;
}

const POOL = 40;
let cat: CatalogueServer;
/** The admission clock; held still by the QPS tests so no token is refilled while they count. */
let heldAt: number | null = null;

before(async () => {
  cat = await startCatalogueServer(20, {
    // A long key cache: a deactivated end-user's key must stop working through a warm cache, not by expiry.
    config: { auth: { keyCacheTtlMs: 600_000 }, builder: { qpsPool: POOL, defaultUserQps: 5 } },
    admissionClock: () => heldAt ?? Date.now(),
  });
});
after(async () => {
  await cat?.stop();
});

const call = (path: string, init: TestRequestInit = {}): Promise<TestResponse> =>
  cat.server.request(path, init);

async function builderKey(tier: 'free' | 'pro' = 'pro'): Promise<string> {
  return (await cat.server.runtime.keys.create({ name: 'builder', tier, builder: true })).key;
}

async function plainKey(): Promise<string> {
  return (await cat.server.runtime.keys.create({ name: 'plain', tier: 'pro' })).key;
}

let externalSeq = 0;
async function createUser(key: string, body: Record<string, unknown> = {}): Promise<BuilderUser> {
  const res = await call('/api/v1/builder/users', {
    method: 'POST',
    key,
    body: { external_id: `ext-${++externalSeq}`, ...body },
  });
  assert.equal(res.status, 201, res.text);
  return res.body as BuilderUser;
}

async function kalshiOnboarded(builder: string): Promise<BuilderUser> {
  const user = await createUser(builder, { qps_limit: 1 });
  const sim = cat.sims.get('kalshi');
  assert.ok(sim);
  const res = await call('/api/v1/builder/onboard', {
    method: 'POST',
    key: builder,
    body: {
      customer_id: user.customer_id,
      exchange: 'kalshi',
      mode: 'self',
      ...(await sim.createAccount()).credentials,
    },
  });
  assert.equal(res.status, 200, res.text);
  return user;
}

const as = (customerId: string) => ({ 'x-builder-customer-id': customerId });

describe('end-users', () => {
  test('creation is idempotent on external_id (201 then 200) and the end-user key works on its own', async () => {
    const builder = await builderKey();
    const first = await call('/api/v1/builder/users', {
      method: 'POST',
      key: builder,
      body: { external_id: 'alice', email: 'alice@example.com' },
    });
    assert.equal(first.status, 201, first.text);
    const user = first.body as BuilderUser;
    assert.match(user.customer_id, /^cus_/);
    assert.equal(user.qps_limit, 5);
    assert.equal(user.status, 'active');
    assert.equal(user.tier, 'iron');
    assert.equal(user.fee_escrow_enabled, false);
    assert.deepEqual(user.linked_exchanges, []);
    assert.equal(user.wallet, null);
    const again = await call('/api/v1/builder/users', {
      method: 'POST',
      key: builder,
      body: { external_id: 'alice' },
    });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, user);
    // Another builder's external id space is its own.
    const other = await createUser(await builderKey(), { external_id: 'alice' });
    assert.notEqual(other.customer_id, user.customer_id);

    const own = await call('/api/v1/usage', { key: user.api_key });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.headers.get('x-svc-tier'), 'pro');
    // An end-user key is an ordinary key: not a builder.
    assertError(await call('/api/v1/builder/users', { key: user.api_key }), 403, 'forbidden');
  });

  test('bad bodies are 400 and create nothing', async () => {
    const builder = await builderKey();
    assertError(
      await call('/api/v1/builder/users', { method: 'POST', key: builder, body: {} }),
      400,
      'missing_parameter',
    );
    for (const body of [
      { external_id: '' },
      { external_id: 'x', qps_limit: 0.5 },
      { external_id: 'x', eoa_address: '0x12' },
      { external_id: 'x', extra: 1 },
    ]) {
      assertError(
        await call('/api/v1/builder/users', { method: 'POST', key: builder, body }),
        400,
        'validation_error',
      );
    }
    const list = await call('/api/v1/builder/users', { key: builder });
    assert.deepEqual(list.body, { users: [], count: 0 });
  });

  test('the list pages with a cursor, omits next_cursor on the last page and shows only the builder’s own', async () => {
    const builder = await builderKey();
    await createUser(await builderKey());
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createUser(builder, { qps_limit: 1 })).customer_id);
    const seen: string[] = [];
    let cursor: string | undefined;
    const counts: number[] = [];
    do {
      const res = await call(`/api/v1/builder/users?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        key: builder,
      });
      assert.equal(res.status, 200, res.text);
      const page = res.body as { users: BuilderUser[]; count: number; next_cursor?: string };
      assert.equal(page.count, page.users.length);
      counts.push(page.count);
      seen.push(...page.users.map((u) => u.customer_id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(counts, [2, 2, 1]);
    assert.deepEqual(seen, made);
    const all = await call('/api/v1/builder/users', { key: builder });
    assert.equal((all.body as { count: number }).count, 5);
    assert.equal((all.body as { next_cursor?: string }).next_cursor, undefined);
    for (const q of ['limit=0', 'limit=101', 'cursor=nonsense', 'other=1']) {
      assertError(await call(`/api/v1/builder/users?${q}`, { key: builder }), 400, 'validation_error');
    }
  });

  test('the sum of qps_limit stays within the pool (409 conflict), on create and on PATCH', async () => {
    const builder = await builderKey();
    const big = await createUser(builder, { qps_limit: 30 });
    assertError(
      await call('/api/v1/builder/users', {
        method: 'POST',
        key: builder,
        body: { external_id: 'over', qps_limit: 11 },
      }),
      409,
      'conflict',
    );
    await createUser(builder, { qps_limit: 10 });
    let pool = await call('/api/v1/builder/pool', { key: builder });
    assert.deepEqual(pool.body, { qps_pool: POOL, end_user_count: 2, total_allocated_qps: 40 });
    assertError(
      await call(`/api/v1/builder/users/${big.customer_id}`, {
        method: 'PATCH',
        key: builder,
        body: { qps_limit: 31 },
      }),
      409,
      'conflict',
    );
    assertError(
      await call(`/api/v1/builder/users/${big.customer_id}`, {
        method: 'PATCH',
        key: builder,
        body: { qps_limit: 0 },
      }),
      400,
      'validation_error',
    );
    const patched = await call(`/api/v1/builder/users/${big.customer_id}`, {
      method: 'PATCH',
      key: builder,
      body: { qps_limit: 20 },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((patched.body as BuilderUser).qps_limit, 20);
    pool = await call('/api/v1/builder/pool', { key: builder });
    assert.deepEqual(pool.body, { qps_pool: POOL, end_user_count: 2, total_allocated_qps: 30 });
    // Concurrent creations cannot overfill it: 30 allocated, ten more asking for 5 each, two fit.
    const raced = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call('/api/v1/builder/users', {
          method: 'POST',
          key: builder,
          body: { external_id: `race-${i}`, qps_limit: 5 },
        }),
      ),
    );
    assert.deepEqual(raced.map((r) => r.status).sort(), [201, 201, 409, 409, 409, 409, 409, 409, 409, 409]);
    pool = await call('/api/v1/builder/pool', { key: builder });
    assert.deepEqual(pool.body, { qps_pool: POOL, end_user_count: 4, total_allocated_qps: 40 });
  });

  test('escrow configuration says honestly that no escrow is deployed', async () => {
    const res = await call('/api/v1/builder/escrow/config', { key: await builderKey() });
    assert.equal(res.status, 200, res.text);
    const config = res.body as Record<string, unknown>;
    assert.equal(config.fee_escrow_enabled, false);
    assert.equal(config.escrow_contract_address, null);
    assert.equal(config.tier, 'iron');
    assert.equal(config.fee_bps, 50);
    assert.equal(config.affiliate_fee_bps, 2_000);
    assert.equal(config.min_fee_usdc, '10000');
    assert.match(String(config.note), /not deployed/);
  });
});

describe('isolation matrix', () => {
  test('every route × {own, other builder’s, nonexistent, deactivated, non-builder key}', async () => {
    const mine = await builderKey();
    const theirs = await builderKey();
    const plain = await plainKey();
    const other = await kalshiOnboarded(theirs);
    const gone = await kalshiOnboarded(mine);
    assert.equal(
      (await call(`/api/v1/builder/users/${gone.customer_id}`, { method: 'DELETE', key: mine })).status,
      204,
    );
    const nowhere = 'cus_does_not_exist_anywhere';
    // Its burst follows its qps_limit (×2 at pro): room for every route below on a held clock.
    const endUser = await createUser(mine, { qps_limit: 5 });
    const kalshi = cat.sims.get('kalshi');
    assert.ok(kalshi);

    type Route = (key: string, customerId: string) => Promise<TestResponse>;
    const routes: Record<string, Route> = {
      'GET user': (key, id) => call(`/api/v1/builder/users/${id}`, { key }),
      'PATCH user': (key, id) =>
        call(`/api/v1/builder/users/${id}`, { method: 'PATCH', key, body: { qps_limit: 1 } }),
      'DELETE user': (key, id) => call(`/api/v1/builder/users/${id}`, { method: 'DELETE', key }),
      'POST onboard': async (key, id) =>
        call('/api/v1/builder/onboard', {
          method: 'POST',
          key,
          body: {
            customer_id: id,
            exchange: 'kalshi',
            mode: 'self',
            ...(await kalshi.createAccount()).credentials,
          },
        }),
      'GET orders (impersonated)': (key, id) =>
        call('/api/v1/orders?exchange=kalshi', { key, headers: as(id) }),
      'GET order (impersonated)': (key, id) =>
        call('/api/v1/orders/none-such?exchange=kalshi', { key, headers: as(id) }),
      'DELETE order (impersonated)': (key, id) =>
        call('/api/v1/orders/none-such?exchange=kalshi', { method: 'DELETE', key, headers: as(id) }),
      'POST order (impersonated)': (key, id) =>
        call('/api/v1/orders?exchange=kalshi', {
          method: 'POST',
          key,
          headers: as(id),
          body: { market_id: 'NONE-SUCH', outcome: 'Yes', side: 'buy', price: 0.5, size: 1 },
        }),
    };
    const deactivatedStatus: Record<string, [number, string | null]> = {
      'GET user': [200, null],
      'PATCH user': [409, 'conflict'],
      'DELETE user': [204, null],
      'POST onboard': [409, 'conflict'],
    };
    const ownStatus: Record<string, [number, string | null]> = {
      'GET user': [200, null],
      'PATCH user': [200, null],
      'DELETE user': [204, null],
      'POST onboard': [200, null],
      'GET orders (impersonated)': [200, null],
      'GET order (impersonated)': [404, 'order_not_found'],
      'DELETE order (impersonated)': [404, 'order_not_found'],
      'POST order (impersonated)': [404, 'market_not_found'],
    };
    const failures: string[] = [];
    const expect = (what: string, res: TestResponse, status: number, code: string | null) => {
      const got = (res.body as { code?: string } | undefined)?.code ?? null;
      if (res.status !== status || (code !== null && got !== code)) {
        failures.push(`${what}: expected ${status} ${code ?? ''}, got ${res.status} ${res.text}`);
      }
    };
    for (const [name, route] of Object.entries(routes)) {
      // Own end-user: a fresh one per route (DELETE deactivates it).
      const own = await kalshiOnboarded(mine);
      const [ownCode, ownErr] = ownStatus[name] ?? [0, null];
      expect(`${name} own`, await route(mine, own.customer_id), ownCode, ownErr);
      expect(`${name} other builder's`, await route(mine, other.customer_id), 403, 'forbidden');
      expect(`${name} nonexistent`, await route(mine, nowhere), 404, 'not_found');
      const [deadCode, deadErr] = deactivatedStatus[name] ?? [403, 'forbidden'];
      expect(`${name} deactivated`, await route(mine, gone.customer_id), deadCode, deadErr);
      expect(`${name} non-builder key`, await route(plain, other.customer_id), 403, 'forbidden');
      // An end-user's own key is no builder key either (a live one: `own` may have just been deactivated).
      expect(`${name} end-user key`, await route(endUser.api_key, other.customer_id), 403, 'forbidden');
    }
    for (const [name, init] of [
      ['POST users', { method: 'POST', body: { external_id: 'nope' } }],
      ['GET users', {}],
      ['GET pool', {}],
      ['GET escrow config', {}],
    ] as const) {
      const path =
        name === 'GET pool'
          ? '/api/v1/builder/pool'
          : name === 'GET escrow config'
            ? '/api/v1/builder/escrow/config'
            : '/api/v1/builder/users';
      expect(`${name} non-builder key`, await call(path, { ...init, key: plain }), 403, 'forbidden');
    }
    assert.deepEqual(failures, []);
    // The other builder's end-user is untouched by all of it.
    const untouched = await call(`/api/v1/builder/users/${other.customer_id}`, { key: theirs });
    assert.equal((untouched.body as BuilderUser).status, 'active');
    assert.equal((untouched.body as BuilderUser).qps_limit, 1);
    assert.deepEqual((untouched.body as BuilderUser).linked_exchanges, ['kalshi']);
  });

  test('X-Builder-Customer-Id is refused off the order endpoints and beside per-request credentials', async () => {
    const builder = await builderKey();
    const user = await kalshiOnboarded(builder);
    assertError(
      await call('/api/v1/balance?exchange=kalshi', { key: builder, headers: as(user.customer_id) }),
      400,
      'validation_error',
    );
    assertError(
      await call('/api/v1/orders?exchange=kalshi', {
        key: builder,
        headers: { ...as(user.customer_id), 'x-exchange-credentials': Buffer.from('{}').toString('base64') },
      }),
      400,
      'validation_error',
    );
  });
});

/** A polymarket market whose first outcome has room for a resting bid below the best ask. */
async function restingBid(): Promise<{ market: Market; outcome: string; price: number }> {
  for (const market of [...cat.markets.values()].filter(
    (m) => m.exchange === 'polymarket' && m.status === 'active',
  )) {
    const outcome = market.outcomes[0]?.name;
    if (!outcome) continue;
    const res = await call(
      `/api/v1/orderbook?exchange=polymarket&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=${outcome}`,
    );
    const book = res.body as { bids: [number, number][]; asks: [number, number][]; tick_size: number };
    const bid = book.bids[0]?.[0];
    const ask = book.asks[0]?.[0];
    if (bid !== undefined && ask !== undefined && ask - bid >= 2 * book.tick_size && bid * 10 >= 1) {
      return { market, outcome, price: bid };
    }
  }
  assert.fail('no polymarket market with room for a resting bid');
}

describe('the builder flow in the sandbox (without escrow)', () => {
  test('create users, onboard one managed, place an impersonated order, cancel it; then deactivate it completely', async () => {
    const builder = await builderKey();
    const user = await createUser(builder, { qps_limit: 10 });
    await createUser(builder, { qps_limit: 2 });
    const onboarded = await call('/api/v1/builder/onboard', {
      method: 'POST',
      key: builder,
      body: { customer_id: user.customer_id, exchange: 'polymarket', mode: 'managed' },
    });
    assert.equal(onboarded.status, 200, onboarded.text);
    const result = onboarded.body as { customer_id: string; wallet_type: string; eoa_address: string };
    assert.equal(result.customer_id, user.customer_id);
    assert.equal(result.wallet_type, 'deposit');
    const seen = (await call(`/api/v1/builder/users/${user.customer_id}`, { key: builder }))
      .body as BuilderUser;
    assert.deepEqual(seen.linked_exchanges, ['polymarket']);
    assert.equal(seen.wallet?.eoa_address, result.eoa_address);
    assert.equal(seen.wallet?.wallet_type, 'deposit');
    assert.match(String(seen.wallet?.custodian_wallet_id), /^vault:polymarket:0x/);

    const { market, outcome, price } = await restingBid();
    const order = { market_id: market.exchange_market_id, outcome, side: 'buy', price, size: 10 };
    // Fee fields: refused before anything reaches the exchange (no escrow here; and never without impersonation).
    assertError(
      await call('/api/v1/orders?exchange=polymarket', {
        method: 'POST',
        key: builder,
        headers: as(user.customer_id),
        body: { ...order, fee_auth: { order_id: `0x${'1'.repeat(64)}` } },
      }),
      501,
      'not_supported',
    );
    assertError(
      await call('/api/v1/orders?exchange=polymarket', {
        method: 'POST',
        key: user.api_key,
        body: { ...order, payer_address: '0x1' },
      }),
      403,
      'forbidden',
    );
    const open0 = await call('/api/v1/orders?exchange=polymarket', { key: user.api_key });
    assert.deepEqual(open0.body, []);

    const placed = await call('/api/v1/orders?exchange=polymarket', {
      method: 'POST',
      key: builder,
      headers: as(user.customer_id),
      body: order,
    });
    assert.equal(placed.status, 200, placed.text);
    const placedOrder = placed.body as ApiOrder;
    assert.equal(placedOrder.status, 'open');
    assert.equal(placed.headers.get('x-ratelimit-user-limit'), '10');
    assert.equal(placed.headers.get('x-ratelimit-pool-limit'), String(POOL));
    assert.ok(placed.headers.get('x-ratelimit-user-remaining'));
    assert.ok(placed.headers.get('x-ratelimit-pool-remaining'));
    // The order is the end-user's: its own key sees it; the builder's own account has no polymarket credentials.
    const byUser = await call(`/api/v1/orders/${placedOrder.id}?exchange=polymarket`, { key: user.api_key });
    assert.equal(byUser.status, 200, byUser.text);
    assert.equal((byUser.body as ApiOrder).id, placedOrder.id);
    assert.equal(byUser.headers.get('x-ratelimit-pool-limit'), null);
    assertError(
      await call(`/api/v1/orders/${placedOrder.id}?exchange=polymarket`, { key: builder }),
      403,
      'credentials_required',
    );

    const cancelled = await call(`/api/v1/orders/${placedOrder.id}?exchange=polymarket`, {
      method: 'DELETE',
      key: builder,
      headers: as(user.customer_id),
    });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal((cancelled.body as ApiOrder).status, 'cancelled');

    // Deactivation: 204 without a body; the key (warm in the cache a moment ago) is refused at once.
    const deleted = await call(`/api/v1/builder/users/${user.customer_id}`, {
      method: 'DELETE',
      key: builder,
    });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    assertError(await call('/api/v1/usage', { key: user.api_key }), 401, 'unauthorized');
    assertError(
      await call('/api/v1/orders?exchange=polymarket', { key: builder, headers: as(user.customer_id) }),
      403,
      'forbidden',
    );
    const after = (await call(`/api/v1/builder/users/${user.customer_id}`, { key: builder }))
      .body as BuilderUser;
    assert.equal(after.status, 'deactivated');
    assert.deepEqual(after.linked_exchanges, []);
    assert.equal(after.wallet, null);
    const pool = await call('/api/v1/builder/pool', { key: builder });
    assert.deepEqual(pool.body, { qps_pool: POOL, end_user_count: 1, total_allocated_qps: 2 });
    // Every wallet and credential record is retired in the store, and the key revoked.
    const db = cat.server.runtime.store.db;
    const records = await db
      .selectFrom('credentials')
      .selectAll()
      .where('customer_id', '=', user.customer_id)
      .execute();
    assert.ok(records.length > 0);
    assert.ok(
      records.every((r) => r.deactivated_at !== null),
      JSON.stringify(records.map((r) => r.kind)),
    );
    const keys = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('customer_id', '=', user.customer_id)
      .execute();
    assert.ok(keys.length === 1 && keys[0]?.revoked_at !== null);
    // Irreversible: a second DELETE changes nothing; trading again needs a new end-user (same external id) and onboarding.
    assert.equal(
      (await call(`/api/v1/builder/users/${user.customer_id}`, { method: 'DELETE', key: builder })).status,
      204,
    );
    const again = await call('/api/v1/builder/users', {
      method: 'POST',
      key: builder,
      body: { external_id: user.external_id },
    });
    assert.equal(again.status, 201, again.text);
    const fresh = again.body as BuilderUser;
    assert.notEqual(fresh.customer_id, user.customer_id);
    assert.deepEqual(fresh.linked_exchanges, []);
    assertError(
      await call('/api/v1/orders?exchange=polymarket', { key: builder, headers: as(fresh.customer_id) }),
      403,
      'credentials_required',
    );
  });
});

describe('QPS under impersonation (held admission clock)', () => {
  test("the end-user's qps_limit bucket is the one its own key uses, and the pool binds across end-users", async () => {
    // A pro builder: its end-users' keys burst 16 at their qps_limit of 8 (the tier's burst/rate, 2), so the five
    // together could burst 80 against the pool's 40.
    const builder = await builderKey('pro');
    const users: BuilderUser[] = [];
    for (let i = 0; i < 5; i++) users.push(await createUser(builder, { qps_limit: 8 }));
    heldAt = Date.now();
    try {
      const [first] = users as [BuilderUser];
      const remaining: string[] = [];
      for (let i = 0; i < 16; i++) {
        const res = await call('/api/v1/orders?exchange=nowhere', {
          key: builder,
          headers: as(first.customer_id),
        });
        assertError(res, 404, 'exchange_not_found');
        remaining.push(
          `${res.headers.get('x-ratelimit-user-remaining')}/${res.headers.get('x-ratelimit-pool-remaining')}`,
        );
      }
      assert.deepEqual(
        remaining,
        Array.from({ length: 16 }, (_, i) => `${15 - i}/${39 - i}`),
      );
      const limited = await call('/api/v1/orders?exchange=nowhere', {
        key: builder,
        headers: as(first.customer_id),
      });
      assertError(limited, 429, 'rate_limit_exceeded');
      assert.equal((limited.body as { limit_qps: number }).limit_qps, 8);
      assert.ok(limited.headers.get('retry-after'));
      // Its own key draws on the same bucket.
      assertError(await call('/api/v1/usage', { key: first.api_key }), 429, 'rate_limit_exceeded');
      // The other four have 16 each, but the pool has 24 left: the 25th is refused by the pool.
      let admitted = 0;
      let refused: TestResponse | undefined;
      for (let i = 0; i < 64 && !refused; i++) {
        const user = users[1 + (i % 4)] as BuilderUser;
        const res = await call('/api/v1/orders?exchange=nowhere', {
          key: builder,
          headers: as(user.customer_id),
        });
        if (res.status === 429) refused = res;
        else admitted++;
      }
      assert.equal(admitted, 24);
      assert.ok(refused);
      assertError(refused, 429, 'rate_limit_exceeded');
      assert.equal((refused.body as { limit_qps: number }).limit_qps, POOL);
      assert.match((refused.body as { error: string }).error, /pool/);
      assert.equal(refused.headers.get('x-ratelimit-pool-remaining'), '0');
    } finally {
      heldAt = null;
    }
  });
});

describe('deactivation ends the end-user’s WebSockets', () => {
  test('a socket authenticated with the end-user’s key is closed (4003) when the builder deactivates it; others stay', async () => {
    const builder = await builderKey();
    const user = await createUser(builder);
    const other = await createUser(builder);
    const wsUrl = `${cat.server.url.replace(/^http/, 'ws')}/ws`;
    const open = async (key: string) => {
      const client = await WsTestClient.open(wsUrl);
      client.send({ type: 'auth', api_key: key });
      await client.next((m) => m.type === 'auth_ok');
      return client;
    };
    const mine = await open(user.api_key);
    const theirs = await open(other.api_key);
    const deleted = await call(`/api/v1/builder/users/${user.customer_id}`, {
      method: 'DELETE',
      key: builder,
    });
    assert.equal(deleted.status, 204);
    assert.deepEqual(await mine.waitClosed(), { code: 4003, reason: 'api key revoked' });
    // The other end-user's socket still answers.
    const mark = theirs.mark;
    theirs.send({ type: 'subscribe', markets: [{ exchange: 'kalshi', market_id: 'KXNOSUCHMARKET-1' }] });
    await theirs.next((m) => m.type !== 'auth_ok', mark);
    assert.equal(theirs.closed, null);
    theirs.socket.close();
  });
});
