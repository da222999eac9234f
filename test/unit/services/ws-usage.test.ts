// WsUsage's sums: what a connection did before it authenticated goes to its customer once it does, the customer's
// counters add up to the global ones, subscriptions_total only grows, and the report's scope, order and limit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TierName } from '../../../src/domain/tiers.js';
import { AppError } from '../../../src/errors/app-error.js';
import { WsUsage } from '../../../src/services/ws-usage.js';
import type { Principal } from '../../../src/tenancy/principal.js';

const principal = (customerId: string, tier: TierName = 'pro') =>
  ({ keyId: `k-${customerId}`, customerId, tier, isBuilder: false, limits: {} }) as unknown as Principal;

test("a connection's frames and failed auths before auth count to the customer it becomes", () => {
  const usage = new WsUsage(() => 7);
  const c = usage.open();
  c.sent(10);
  c.authFailed();
  c.sent(20);
  c.authenticated('cus_a');
  c.sent(5);
  const self = usage.report(principal('cus_a'), {});
  assert.equal(self.updated_at_ms, 7);
  assert.deepEqual(
    [self.totals.messages_sent_total, self.totals.bytes_sent_total, self.totals.auth_failures_total],
    [3, 35, 1],
  );
  assert.deepEqual(self.customer, { customer_id: 'cus_a', active_connections: 1, active_subscriptions: 0 });
  const global = usage.report(principal('root', 'admin'), { scope: 'global' });
  assert.deepEqual(global.totals, { ...self.totals });
});

test('an unauthenticated socket counts globally only; closing ends its subscriptions and connection', () => {
  const usage = new WsUsage();
  const anon = usage.open();
  anon.sent(3);
  const c = usage.open();
  c.authenticated('cus_a');
  c.subscribeRequest();
  c.subscriptionOpened('pm:1');
  c.subscriptionOpened('pm:2');
  c.subscriptionOpened('pm:1');
  c.unsubscribeRequest();
  c.subscriptionClosed();
  assert.deepEqual(usage.active('cus_a'), { connections: 1, subscriptions: 2 });
  assert.deepEqual(usage.active('cus_nobody'), { connections: 0, subscriptions: 0 });
  c.subscriptionClosed();
  c.subscriptionClosed();
  c.close();
  c.close();
  anon.close();
  const g = usage.report(principal('root', 'admin'), { scope: 'global' });
  assert.deepEqual(g.totals, {
    active_connections: 0,
    active_subscriptions: 0,
    connections_opened_total: 2,
    connections_closed_total: 2,
    auth_failures_total: 0,
    subscribe_requests_total: 1,
    unsubscribe_requests_total: 1,
    messages_sent_total: 1,
    bytes_sent_total: 3,
  });
  assert.deepEqual(g.top_markets, [
    { svc_id: 'pm:1', subscriptions_total: 2 },
    { svc_id: 'pm:2', subscriptions_total: 1 },
  ]);
  assert.equal(usage.report(principal('cus_a'), {}).totals.connections_closed_total, 1);
});

test('scope=global is admin only; customers by live subscriptions then messages, cut to limit', () => {
  const usage = new WsUsage();
  const open = (customer: string, subs: number, frames: number) => {
    const c = usage.open();
    c.authenticated(customer);
    for (let i = 0; i < subs; i++) c.subscriptionOpened(`m${i}`);
    for (let i = 0; i < frames; i++) c.sent(1);
  };
  open('cus_a', 1, 100);
  open('cus_b', 2, 1);
  open('cus_c', 1, 200);
  assert.throws(
    () => usage.report(principal('cus_a'), { scope: 'global' }),
    (e: unknown) => e instanceof AppError && e.code === 'forbidden',
  );
  const g = usage.report(principal('root', 'admin'), { scope: 'global', limit: 2 });
  assert.deepEqual(
    g.customers?.map((c) => c.customer_id),
    ['cus_b', 'cus_c'],
  );
  assert.equal(g.top_markets.length, 2);
  assert.deepEqual(g.top_markets[0], { svc_id: 'm0', subscriptions_total: 3 });
  const self = usage.report(principal('cus_b'), { limit: 1 });
  assert.equal(self.customers, undefined);
  assert.deepEqual(self.top_markets, [{ svc_id: 'm0', subscriptions_total: 1 }]);
});
