// WebSocket usage through the real server: what two sockets of one customer did (a failed auth, subscriptions,
// an unsubscribe, every frame they were sent) is what GET /ws/usage and GET /usage report, to the message and the
// byte; scope=global is the admin tier's, with everyone's totals, the top customers and markets, cut to `limit`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import type { WsUsageReport } from '../../../src/services/ws-usage.js';
import { type CatalogueServer, startCatalogueServer } from '../../support/catalogue.js';
import { waitFor } from '../../support/server.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

let cat: CatalogueServer;
let wsUrl: string;
const clients: WsTestClient[] = [];

before(async () => {
  cat = await startCatalogueServer(20, { config: { websocket: { heartbeatMs: 300 } } });
  wsUrl = `${cat.server.url.replace(/^http/, 'ws')}/ws`;
});
after(async () => {
  for (const c of clients) c.close();
  await cat?.stop();
});

async function connect(): Promise<WsTestClient> {
  const client = await WsTestClient.open(wsUrl);
  clients.push(client);
  return client;
}

async function authed(key: string, client?: WsTestClient): Promise<WsTestClient> {
  const c = client ?? (await connect());
  const from = c.mark;
  c.send({ type: 'auth', api_key: key });
  await c.next((m) => m.type === 'auth_ok', from);
  return c;
}

function market(exchange: ExchangeId, n: number): Market {
  const m = [...cat.markets.values()].filter(
    (x) => x.exchange === exchange && x.status === 'active' && x.outcomes.every((o) => o.token_id),
  )[n];
  assert.ok(m, `${exchange} has fewer than ${n + 1} active markets`);
  return m;
}

async function newKey(tier: 'pro' | 'admin'): Promise<{ key: string; customer: string }> {
  const res = await cat.server.request('/api/v1/keys', { method: 'POST', body: { tier } });
  assert.equal(res.status, 201, res.text);
  const body = res.body as { key: string; customer_id: string };
  return { key: body.key, customer: body.customer_id };
}

async function wsUsage(key: string, query = ''): Promise<WsUsageReport> {
  const res = await cat.server.request(`/api/v1/ws/usage${query}`, { key });
  assert.equal(res.status, 200, res.text);
  return res.body as WsUsageReport;
}

async function usage(
  key: string,
): Promise<{ ws_active_connections: number; ws_active_subscriptions: number }> {
  const res = await cat.server.request('/api/v1/usage', { key });
  assert.equal(res.status, 200, res.text);
  const { ws_active_connections, ws_active_subscriptions } = (
    res.body as { usage: { ws_active_connections: number; ws_active_subscriptions: number } }
  ).usage;
  return { ws_active_connections, ws_active_subscriptions };
}

/**
 * Sends a control message, again after each 3001 (three a second) once its `retry_after_ms` has passed (frames
 * sent sooner are refused unanswered): `done` says when it took effect.
 */
async function control(client: WsTestClient, message: unknown, done: () => Promise<boolean>): Promise<void> {
  await waitFor(async () => {
    const from = client.mark;
    client.send(message);
    for (;;) {
      if (await done()) return true;
      const limited = client.messages
        .slice(from)
        .find((m: WsMessage) => m.type === 'error' && m.code === 3001);
      if (limited) {
        await new Promise((r) => setTimeout(r, limited.retry_after_ms as number));
        return undefined;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }, 10_000);
}

const snapshotOf = (svcId: string) => (m: WsMessage) => m.type === 'orderbook' && m.svc_id === svcId;

let customerKey: { key: string; customer: string };
const m1 = () => market('polymarket', 0);
const m2 = () => market('kalshi', 0);

describe('GET /ws/usage', () => {
  test("scope=self: a customer's counters are what its sockets did; GET /usage has the same live counts", async () => {
    customerKey = await newKey('pro');
    const { key, customer } = customerKey;
    const empty = await wsUsage(key);
    assert.equal(empty.scope, 'self');
    assert.deepEqual(empty.customer, {
      customer_id: customer,
      active_connections: 0,
      active_subscriptions: 0,
    });
    assert.equal(empty.totals.messages_sent_total, 0);
    assert.deepEqual(empty.top_markets, []);

    // A refused key closes its socket (and counts as no customer's); what a socket was sent before it
    // authenticated (here error 1001) is counted to its customer once it does.
    const refused = await connect();
    refused.send({ type: 'auth', api_key: 'ob_wrong' });
    await refused.next((m) => m.type === 'auth_error');
    await refused.waitClosed();
    const a = await connect();
    a.send({ type: 'subscribe', markets: [{ svc_id: m1().svc_id }] });
    await a.next((m) => m.type === 'error' && m.code === 1001);
    await authed(key, a);
    const b = await authed(key);
    assert.deepEqual(await usage(key), { ws_active_connections: 2, ws_active_subscriptions: 0 });

    let from = a.mark;
    a.send({ type: 'subscribe', markets: [{ svc_id: m1().svc_id }, { svc_id: m2().svc_id }] });
    await a.next(snapshotOf(m1().svc_id), from);
    await a.next(snapshotOf(m2().svc_id), from);
    from = b.mark;
    b.send({ type: 'subscribe', markets: [{ svc_id: m1().svc_id }] });
    await b.next(snapshotOf(m1().svc_id), from);
    assert.deepEqual(await usage(key), { ws_active_connections: 2, ws_active_subscriptions: 3 });
    const live = await wsUsage(key);
    assert.deepEqual(live.customer, {
      customer_id: customer,
      active_connections: 2,
      active_subscriptions: 3,
    });
    assert.equal(live.totals.subscribe_requests_total, 2);
    assert.deepEqual(live.top_markets, [
      { svc_id: m1().svc_id, subscriptions_total: 2 },
      { svc_id: m2().svc_id, subscriptions_total: 1 },
    ]);

    await control(
      a,
      { type: 'unsubscribe', markets: [{ svc_id: m2().svc_id }] },
      async () => (await usage(key)).ws_active_subscriptions === 2,
    );

    a.close();
    b.close();
    await Promise.all([a.waitClosed(), b.waitClosed()]);
    const done = await waitFor(async () => {
      const r = await wsUsage(key);
      return r.totals.active_connections === 0 ? r : undefined;
    });
    assert.deepEqual(done.totals, {
      active_connections: 0,
      active_subscriptions: 0,
      connections_opened_total: 2,
      connections_closed_total: 2,
      auth_failures_total: 0,
      subscribe_requests_total: 2,
      unsubscribe_requests_total: 1,
      messages_sent_total: a.messages.length + b.messages.length,
      bytes_sent_total: a.bytes + b.bytes,
    });
    assert.ok(done.totals.messages_sent_total >= 6, 'error 1001, 2 auth_ok, 3 snapshots at least');
    assert.deepEqual(done.top_markets, live.top_markets, 'subscriptions_total counts every one ever opened');
    assert.deepEqual(await usage(key), { ws_active_connections: 0, ws_active_subscriptions: 0 });
  });

  test('scope=global: admin only (403 otherwise); everyone, top customers and markets cut to limit', async () => {
    const refused = await cat.server.request('/api/v1/ws/usage?scope=global', { key: customerKey.key });
    assert.equal(refused.status, 403, refused.text);
    for (const bad of ['limit=0', 'limit=101', 'limit=x', 'scope=all']) {
      const res = await cat.server.request(`/api/v1/ws/usage?${bad}`, { key: customerKey.key });
      assert.equal(res.status, 400, `${bad}: ${res.text}`);
    }

    const admin = await newKey('admin');
    const before = await wsUsage(admin.key, '?scope=global');
    const anonymous = await connect();
    const c = await authed(admin.key);
    const from = c.mark;
    c.send({ type: 'subscribe', markets: [{ svc_id: m2().svc_id }] });
    await c.next(snapshotOf(m2().svc_id), from);

    const all = await wsUsage(admin.key, '?scope=global&limit=1');
    assert.equal(all.scope, 'global');
    assert.equal(all.customer, undefined);
    assert.equal(
      all.totals.active_connections,
      before.totals.active_connections + 2,
      'the unauthenticated one too',
    );
    assert.equal(all.totals.connections_opened_total, before.totals.connections_opened_total + 2);
    assert.equal(all.totals.active_subscriptions, before.totals.active_subscriptions + 1);
    assert.equal(all.totals.subscribe_requests_total, before.totals.subscribe_requests_total + 1);
    assert.ok(all.totals.messages_sent_total >= before.totals.messages_sent_total + 2);
    assert.equal(all.customers?.length, 1, 'limit=1');
    assert.equal(
      all.customers?.[0]?.customer_id,
      admin.customer,
      'the customer with live subscriptions first',
    );
    assert.equal(all.customers?.[0]?.active_subscriptions, 1);
    // m1 and m2 were each subscribed twice in all (m2: once by the customer, once by the admin): the tie is
    // broken by svc_id.
    const wantTop = [m1().svc_id, m2().svc_id].sort()[0];
    assert.deepEqual(all.top_markets, [{ svc_id: wantTop, subscriptions_total: 2 }]);

    const wide = await wsUsage(admin.key, '?scope=global');
    assert.deepEqual(
      new Set(wide.customers?.map((x) => x.customer_id)),
      new Set([customerKey.customer, admin.customer]),
    );
    const mine = await wsUsage(admin.key);
    assert.deepEqual(mine.customer, {
      customer_id: admin.customer,
      active_connections: 1,
      active_subscriptions: 1,
    });
    anonymous.close();
  });
});
