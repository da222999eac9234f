// Opinion trading through the real server over its simulator, beyond the lifecycle the credential-modes test and the
// capability walk cover: builder impersonation (onboarded end-user, impersonated place, poll, list, cancel), the
// order types Opinion has (gtc; gtd expiring by the exchange's clock; ioc and fok 501), history with closed orders,
// the venue's precision rules as 400s before or at the exchange, and a private key that is not the API key's wallet
// refused (403) both when onboarding (nothing stored) and when ordering (nothing sent).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import { type CatalogueServer, simControl, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import type { TestRequestInit, TestResponse } from '../../support/server.js';

interface ApiOrder {
  id: string;
  status: string;
  filled: number;
  size: number;
  client_order_id?: string;
}

let cat: CatalogueServer;
before(async () => {
  cat = await startCatalogueServer(20);
});
after(async () => {
  await cat?.stop();
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const call = (path: string, init: TestRequestInit = {}): Promise<TestResponse> =>
  cat.server.request(path, init);

async function account(): Promise<Record<string, string>> {
  const sim = cat.sims.get('opinion');
  assert.ok(sim);
  return (await sim.createAccount()).credentials;
}

function market(): Market {
  const found = [...cat.markets.values()].find((m) => m.exchange === 'opinion' && m.status === 'active');
  assert.ok(found, 'an active opinion market');
  return found;
}

const restingBody = (m: Market, extra: Record<string, unknown> = {}) => ({
  market_id: m.exchange_market_id,
  outcome: 'Yes',
  side: 'buy',
  price: 0.01,
  size: 7,
  ...extra,
});

const withCreds = (credentials: Record<string, string>, init: TestRequestInit = {}): TestRequestInit => ({
  ...init,
  headers: { ...init.headers, 'x-exchange-credentials': b64(credentials) },
});

test('a builder places, polls, lists and cancels for its onboarded end-user', async () => {
  const builder = (await cat.server.runtime.keys.create({ name: 'builder', tier: 'pro', builder: true })).key;
  const created = await call('/api/v1/builder/users', {
    method: 'POST',
    key: builder,
    body: { external_id: 'op-1' },
  });
  assert.equal(created.status, 201, created.text);
  const user = created.body as { customer_id: string };
  const onboarded = await call('/api/v1/builder/onboard', {
    method: 'POST',
    key: builder,
    body: { customer_id: user.customer_id, exchange: 'opinion', mode: 'self', ...(await account()) },
  });
  assert.equal(onboarded.status, 200, onboarded.text);
  const as = { key: builder, headers: { 'x-builder-customer-id': user.customer_id } };
  const m = market();
  const placed = await call('/api/v1/orders?exchange=opinion', {
    method: 'POST',
    body: restingBody(m),
    ...as,
  });
  assert.equal(placed.status, 200, placed.text);
  const order = placed.body as ApiOrder;
  assert.equal(order.status, 'open');
  const polled = await call(`/api/v1/orders/${order.client_order_id}?exchange=opinion`, as);
  assert.equal((polled.body as ApiOrder).id, order.id, polled.text);
  const listed = await call('/api/v1/orders?exchange=opinion', as);
  assert.ok(
    (listed.body as ApiOrder[]).some((o) => o.id === order.id),
    listed.text,
  );
  const cancelled = await call(`/api/v1/orders/${order.id}?exchange=opinion`, { method: 'DELETE', ...as });
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal((cancelled.body as ApiOrder).status, 'cancelled');
  // The builder's own key holds no Opinion credentials: without impersonation nothing is found for it.
  assertError(await call('/api/v1/orders?exchange=opinion', { key: builder }), 403, 'credentials_required');
});

test('gtd rests until the exchange expires it; ioc and fok are 501; history lists closed orders', async () => {
  const credentials = await account();
  const m = market();
  for (const type of ['ioc', 'fok']) {
    const refused = await call(
      '/api/v1/orders?exchange=opinion',
      withCreds(credentials, { method: 'POST', body: restingBody(m, { params: { order_type: type } }) }),
    );
    assertError(refused, 501, 'not_supported');
  }
  const expiration = Math.floor(Date.now() / 1000) + 120;
  const gtd = await call(
    '/api/v1/orders?exchange=opinion',
    withCreds(credentials, {
      method: 'POST',
      body: restingBody(m, { params: { order_type: 'gtd', expiration: String(expiration) } }),
    }),
  );
  assert.equal(gtd.status, 200, gtd.text);
  const order = gtd.body as ApiOrder;
  assert.equal(order.status, 'open');
  await simControl(cat, 'opinion', 'POST', 'clock', { advance_seconds: 180 });
  const expired = await call(`/api/v1/orders/${order.id}?exchange=opinion`, withCreds(credentials));
  assert.equal((expired.body as ApiOrder).status, 'expired', expired.text);
  const closed = await call('/api/v1/orders?exchange=opinion&status=closed', withCreds(credentials));
  assert.ok(
    (closed.body as ApiOrder[]).some((o) => o.id === order.id && o.status === 'expired'),
    closed.text,
  );
  const open = await call('/api/v1/orders?exchange=opinion', withCreds(credentials));
  assert.ok(!(open.body as ApiOrder[]).some((o) => o.id === order.id), open.text);
});

test("the venue's precision rules answer 400, and nothing is left pending", async () => {
  const credentials = await account();
  const m = market();
  const post = (extra: Record<string, unknown>) =>
    call(
      '/api/v1/orders?exchange=opinion',
      withCreds(credentials, { method: 'POST', body: restingBody(m, extra) }),
    );
  // Under one share and more than 6 price decimals: refused before anything is signed or sent.
  assertError(await post({ size: 0.5 }), 400, 'validation_error');
  assertError(await post({ price: 0.0100001 }), 400, 'validation_error');
  // Off the exchange's 0.001 tick: the exchange's own refusal.
  const offTick = assertError(await post({ price: 0.0105 }), 400, 'bad_request');
  assert.match(String(offTick.error), /multiple of 0.001/);
  await cat.server.runtime.orderJournal.flush();
  const unsettled = await cat.server.runtime.store.db
    .selectFrom('order_journal')
    .select(['state'])
    .where('state', 'in', ['unknown', 'pending', 'sent'])
    .execute();
  assert.deepEqual(unsettled, []);
});

test("a private key that is not the API key's wallet is refused when onboarding and when ordering", async () => {
  const mine = await account();
  const other = await account();
  const mixed = { ...mine, private_key: other.private_key as string };
  const { key } = await cat.server.runtime.keys.create({ name: 'mixed', tier: 'pro' });
  const onboard = await call('/api/v1/onboard', {
    method: 'POST',
    key,
    body: { exchange: 'opinion', mode: 'self', ...mixed },
  });
  assertError(onboard, 403, 'authentication_failed');
  assertError(await call('/api/v1/orders?exchange=opinion', { key }), 403, 'credentials_required');
  const refused = await call(
    '/api/v1/orders?exchange=opinion',
    withCreds(mixed, { method: 'POST', body: restingBody(market()) }),
  );
  assertError(refused, 403, 'authentication_failed');
  // Reads need only the API key.
  const { private_key: _, ...readOnly } = mine;
  const balance = await call('/api/v1/balance?exchange=opinion', withCreds(readOnly));
  assert.equal(balance.status, 200, balance.text);
  assertError(
    await call(
      '/api/v1/orders?exchange=opinion',
      withCreds(readOnly, { method: 'POST', body: restingBody(market()) }),
    ),
    403,
    'credentials_required',
  );
});
