import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { billingPeriodOf } from '../../../src/domain/billing-period.js';
import { assertError } from '../../support/error-shape.js';
import { startTestServer, type TestServer } from '../../support/server.js';

let server: TestServer;
/** The rate limiter's clock: it stands still unless a test moves it, so no outcome depends on how fast we are. */
let limiterNow = Date.UTC(2026, 4, 14, 12, 0, 0);
before(async () => {
  server = await startTestServer({
    config: { usage: { flushIntervalMs: 100 } },
    admissionClock: () => limiterNow,
  });
});
after(() => server.stop());

async function newKey(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await server.request('/api/v1/keys', { method: 'POST', body });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; key: string };
}

test('beyond its burst a free key gets 429 rate_limit_exceeded with Retry-After, tier and limit_qps', async () => {
  const { key } = await newKey({ tier: 'free' });
  const statuses: number[] = [];
  let limited: Awaited<ReturnType<TestServer['request']>> | undefined;
  // The free burst is 10; with the limiter's clock still, nothing refills between the requests.
  for (let i = 0; i < 20; i++) {
    const res = await server.request('/api/v1/exchanges', { key });
    statuses.push(res.status);
    if (res.status === 429 && !limited) limited = res;
  }
  assert.deepEqual(statuses, [...Array(10).fill(200), ...Array(10).fill(429)]);
  assert.ok(limited, `no 429 in ${statuses.join(',')}`);
  const body = assertError(limited, 429, 'rate_limit_exceeded');
  assert.equal(body.tier, 'free');
  assert.equal(body.limit_qps, 10);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.equal(limited.headers.get('x-svc-tier'), 'free');
});

test('a slow key refills at its own rate and is admitted again after Retry-After', async () => {
  const { key } = await newKey({ tier: 'free', qps_limit: 20, burst: 1 });
  assert.equal((await server.request('/api/v1/exchanges', { key })).status, 200);
  const refused = await server.request('/api/v1/exchanges', { key });
  assertError(refused, 429, 'rate_limit_exceeded');
  const retryAfterS = Number(refused.headers.get('retry-after'));
  assert.equal(retryAfterS, 1, 'one token at 20/s is 50 ms, announced as a whole second');
  limiterNow += 49;
  assertError(await server.request('/api/v1/exchanges', { key }), 429, 'rate_limit_exceeded');
  limiterNow += retryAfterS * 1_000 - 49;
  assert.equal((await server.request('/api/v1/exchanges', { key })).status, 200);
});

test('a spent month is 429 monthly_limit_exceeded, not retryable, and burns no tokens', async () => {
  const { id, key } = await newKey({ tier: 'free' });
  const period = billingPeriodOf(new Date()).id;
  await server.runtime.store.db
    .insertInto('usage_monthly')
    .values({ key_id: id, period, requests: 50_000 })
    .execute();
  const res = await server.request('/api/v1/exchanges', { key });
  assertError(res, 429, 'monthly_limit_exceeded');
  assert.equal(res.headers.get('x-ratelimit-monthly-remaining'), '0');
});

test('admitted requests are counted, reported by /usage and persisted to the database', async () => {
  const { id, key } = await newKey({ tier: 'pro' });
  for (let i = 0; i < 5; i++) assert.equal((await server.request('/api/v1/exchanges', { key })).status, 200);
  const usage = await server.request('/api/v1/usage', { key });
  assert.equal(usage.status, 200);
  const report = usage.body as {
    tier: string;
    usage: { monthly_requests: number };
    limits: { rest_qps: number };
  };
  assert.equal(report.tier, 'pro');
  assert.equal(report.limits.rest_qps, 60);
  // The /usage request itself is admitted before it reads the counter.
  assert.equal(report.usage.monthly_requests, 6);
  const period = billingPeriodOf(new Date()).id;
  const persisted = await waitForRow(id, period, 6);
  assert.equal(persisted, 6);
});

async function waitForRow(keyId: string, period: string, expected: number): Promise<number> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const row = await server.runtime.store.db
      .selectFrom('usage_monthly')
      .select('requests')
      .where('key_id', '=', keyId)
      .where('period', '=', period)
      .executeTakeFirst();
    const n = row ? Number(row.requests) : 0;
    if (n >= expected || Date.now() > deadline) return n;
    await new Promise((r) => setTimeout(r, 25));
  }
}
