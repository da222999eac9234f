import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { handleControl, SimClock } from '../../../sim/shared/control.js';
import { SimFaults } from '../../../sim/shared/faults.js';
import { sendJson } from '../../../sim/shared/http.js';
import { SimRequestLog } from '../../../sim/shared/request-log.js';
import { waitFor } from '../../support/server.js';

// A bare simulator: the shared control surface in front of one venue route.
let server: Server;
let url: string;
const faults = new SimFaults();
const clock = new SimClock();
let step = 0;
let expiredAt: number | null = null;
const funded: Array<[string, string]> = [];
/** What happened, in order: the venue route handling a request, the test's own steps, answers arriving. */
const events: string[] = [];
const requests = new SimRequestLog();

before(async () => {
  const control = {
    faults,
    clock,
    hooks: {
      manifest: () => ({ p000001: ['m1'] }),
      advance: (n: number) => (step += n),
      onClockAdvanced: (now: number) => {
        expiredAt = now;
      },
      fund: (address: string, amount: string) => funded.push([address, amount]),
    },
    requests,
  };
  server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (await handleControl(req, res, path, control)) return;
    requests.record(req.method ?? 'GET', path);
    const target = { method: req.method ?? 'GET', path };
    events.push(`received ${target.method} ${path}`);
    const fault = await faults.gate(target);
    faults.holdResponse(res, target);
    faults.malformResponse(res, target);
    if (fault?.kind === 'rate_limited') {
      return sendJson(res, 429, { error: 'slow down' }, { 'retry-after': String(fault.retryAfterSeconds) });
    }
    if (fault) return sendJson(res, fault.status, { error: 'boom' });
    events.push(`handled ${target.method} ${path}`);
    sendJson(res, 200, { ok: true, n: 1, list: [{ s: 'x' }] });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const post = (path: string, body: unknown) =>
  fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body) });
const held = async () => ((await (await fetch(`${url}/__sim/held`)).json()) as { held: number }).held;

test('rate limit for a counted number of requests, then clear', async () => {
  assert.equal((await post('/__sim/faults', { rate_limit: { retry_after: 2, count: 2 } })).status, 200);
  const first = await fetch(`${url}/x`);
  assert.equal(first.status, 429);
  assert.equal(first.headers.get('retry-after'), '2');
  assert.equal((await fetch(`${url}/x`)).status, 429);
  assert.equal((await fetch(`${url}/x`)).status, 200);
});

test('error rate is deterministic: 0.5 fails every second request with the chosen status', async () => {
  await post('/__sim/faults', { error_rate: 0.5, error_status: 503 });
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await fetch(`${url}/x`)).status);
  assert.deepEqual(statuses, [200, 503, 200, 503, 200, 503]);
  assert.equal((await fetch(`${url}/__sim/faults`, { method: 'DELETE' })).status, 200);
  assert.equal((await fetch(`${url}/x`)).status, 200);
});

test('bad control input is 400 and changes nothing', async () => {
  await post('/__sim/faults', { latency_ms: 0 });
  for (const body of [{ error_rate: 2 }, { rate_limit: { count: 0 } }, { stall_feed: 'yes' }]) {
    assert.equal((await post('/__sim/faults', body)).status, 400, JSON.stringify(body));
  }
  assert.equal((await fetch(`${url}/__sim/faults`, { method: 'POST', body: '{nope' })).status, 400);
  assert.equal((await post('/__sim/advance', { steps: 0 })).status, 400);
  assert.equal((await post('/__sim/clock', { advance_seconds: -1 })).status, 400);
  assert.equal((await post('/__sim/fund', { address: '0x1', amount: '1.5' })).status, 400);
  assert.deepEqual(await (await fetch(`${url}/__sim/faults`)).json(), faults.settings);
  assert.equal(faults.settings.error_rate, 0);
  assert.equal((await fetch(`${url}/__sim/nope`)).status, 404);
});

test('clock, advance, manifest and fund reach the simulator hooks', async () => {
  const before = clock.now();
  const moved = (await (await post('/__sim/clock', { advance_seconds: 120 })).json()) as { now_ms: number };
  assert.ok(moved.now_ms >= before + 120_000);
  assert.equal(expiredAt, moved.now_ms);
  assert.deepEqual(await (await post('/__sim/advance', { steps: 3 })).json(), { step: 3 });
  assert.deepEqual(await (await fetch(`${url}/__sim/manifest`)).json(), { p000001: ['m1'] });
  assert.equal((await post('/__sim/fund', { address: '0xabc', amount: '1000000' })).status, 200);
  assert.deepEqual(funded, [['0xabc', '1000000']]);
  assert.equal((await post('/__sim/accounts', {})).status, 404, 'no account hook on this simulator');
});

test('faults can be aimed at one route', async () => {
  await post('/__sim/faults', { error_rate: 1, only: ['GET /orders*'] });
  assert.equal((await fetch(`${url}/orders/1`)).status, 500);
  assert.equal((await fetch(`${url}/book`)).status, 200, 'other routes are untouched');
  assert.equal((await post('/__sim/faults', { only: ['not a route'] })).status, 400);
  await fetch(`${url}/__sim/faults`, { method: 'DELETE' });
});

test('a held answer: the request is handled at once, its answer arrives only when the fault is cleared', async () => {
  // Far longer than any test runs: only the explicit release below can let the answer go.
  await post('/__sim/faults', { hold_response_ms: 120_000, only: ['POST /order'] });
  events.length = 0;
  const answered = fetch(`${url}/order`, { method: 'POST', body: '{}' }).then((res) => {
    events.push('answered');
    return res;
  });
  await waitFor(async () => (await held()) === 1 || undefined, 10_000, 'the answer to be held');
  assert.ok(events.includes('handled POST /order'), 'handled before its answer was held');
  // Another route is answered meanwhile; the held answer still has not arrived (ordering, not elapsed time).
  assert.equal((await fetch(`${url}/book`)).status, 200);
  const handledBoth = [
    'received POST /order',
    'handled POST /order',
    'received GET /book',
    'handled GET /book',
  ];
  assert.deepEqual(events, handledBoth);
  events.push('release');
  assert.equal((await fetch(`${url}/__sim/faults`, { method: 'DELETE' })).status, 200);
  assert.equal((await answered).status, 200);
  assert.deepEqual(events, [...handledBoth, 'release', 'answered']);
  assert.equal(await held(), 0);
});

test('a latency holds the request before it is handled, until it runs out or the fault is cleared', async () => {
  await post('/__sim/faults', { latency_ms: 120_000, only: ['POST /order'] });
  events.length = 0;
  const answered = fetch(`${url}/order`, { method: 'POST', body: '{}' }).then((res) => {
    events.push('answered');
    return res;
  });
  await waitFor(async () => (await held()) === 1 || undefined, 10_000, 'the request to be held');
  // A later request is handled first: the slowed one is still waiting out its latency.
  assert.equal((await fetch(`${url}/book`)).status, 200);
  const before = ['received POST /order', 'received GET /book', 'handled GET /book'];
  assert.deepEqual(events, before);
  events.push('release');
  await fetch(`${url}/__sim/faults`, { method: 'DELETE' });
  assert.equal((await answered).status, 200);
  assert.deepEqual(events, [...before, 'release', 'handled POST /order', 'answered']);
  assert.equal(await held(), 0);
});

test('GET /__sim/feed counts the stream frames a stalled feed withheld', async () => {
  const feed = async () => (await (await fetch(`${url}/__sim/feed`)).json()) as Record<string, unknown>;
  assert.deepEqual(await feed(), { stalled: false, withheld: 0 });
  assert.equal(faults.withhold(), false, 'a live feed delivers');
  await post('/__sim/faults', { stall_feed: true });
  assert.equal(faults.withhold(), true);
  assert.equal(faults.withhold(), true);
  assert.deepEqual(await feed(), { stalled: true, withheld: 2 });
  await fetch(`${url}/__sim/faults`, { method: 'DELETE' });
  assert.deepEqual(await feed(), { stalled: false, withheld: 2 }, 'a count, kept across fault changes');
});

test('venue requests are counted per route without their query; control calls are not; DELETE clears', async () => {
  await fetch(`${url}/__sim/requests`, { method: 'DELETE' });
  await fetch(`${url}/book?token_id=1`);
  await fetch(`${url}/book?token_id=2`);
  await post('/order', {});
  await fetch(`${url}/__sim/manifest`);
  const read = async () =>
    ((await (await fetch(`${url}/__sim/requests`)).json()) as { counts: unknown }).counts;
  assert.deepEqual(await read(), { 'GET /book': 2, 'POST /order': 1 });
  assert.equal((await fetch(`${url}/__sim/requests`, { method: 'DELETE' })).status, 200);
  assert.deepEqual(await read(), {});
});

test('the request log is bounded: routes past its size are counted together as other', () => {
  const log = new SimRequestLog();
  for (let i = 0; i < 2_500; i++) log.record('GET', `/orders/${i}`);
  log.record('GET', '/orders/0');
  const counts = new Map(Object.entries(log.snapshot()));
  assert.equal(counts.size, 2_001);
  assert.equal(counts.get('other'), 500);
  assert.equal(log.count('GET /orders/0'), 2, 'a route already known keeps its own count');
  log.record('POST', '/auth', 'clob');
  assert.equal(log.count('clob POST /auth'), 0, 'a new route past the bound is not kept apart');
  assert.equal(log.count('other'), 501);
});

test('malformed answers: cut short, or every value of the wrong type; errors and control calls untouched', async () => {
  try {
    assert.equal((await post('/__sim/faults', { malformed: 'truncated' })).status, 200);
    const cut = await fetch(`${url}/venue`);
    assert.equal(cut.status, 200);
    const text = await cut.text();
    const whole = JSON.stringify({ ok: true, n: 1, list: [{ s: 'x' }] });
    assert.equal(text, whole.slice(0, Math.floor(whole.length / 2)));
    assert.throws(() => JSON.parse(text));
    await post('/__sim/faults', { malformed: 'wrong_types' });
    const typed = await fetch(`${url}/venue`);
    assert.deepEqual(await typed.json(), { ok: '?', n: '?', list: [{ s: true }] });
    // An injected error is the venue's error, not a malformed answer.
    await post('/__sim/faults', { malformed: 'truncated', error_rate: 1, error_status: 502 });
    const failed = await fetch(`${url}/venue`);
    assert.deepEqual([failed.status, await failed.json()], [502, { error: 'boom' }]);
    assert.equal((await post('/__sim/faults', { malformed: 'garbled' })).status, 400);
  } finally {
    await fetch(`${url}/__sim/faults`, { method: 'DELETE' });
  }
  assert.deepEqual(await (await fetch(`${url}/venue`)).json(), { ok: true, n: 1, list: [{ s: 'x' }] });
});
