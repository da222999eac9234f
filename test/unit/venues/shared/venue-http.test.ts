import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { VenueStatusError, VenueTransportError } from '../../../../src/venues/shared/venue-errors.js';
import { parseRetryAfter, type TransportClock, VenueHttp } from '../../../../src/venues/shared/venue-http.js';
import { silentLogger } from '../../../contract/venues/harness.js';
import { waitFor } from '../../../support/server.js';

// A loopback server whose next answers the test scripts; it records what it received.
let server: Server;
let base: string;
let script: Array<(req: IncomingMessage, res: ServerResponse) => void> = [];
let received: Array<{ method: string; url: string; body: string; auth: string | undefined }> = [];

before(async () => {
  server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    received.push({
      method: req.method ?? '',
      url: req.url ?? '',
      body,
      auth: req.headers['x-sig'] as string,
    });
    const next = script.shift();
    if (next) next(req, res);
    else res.end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
});
after(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  script = [];
  received = [];
});

const ctx = (ms = 5_000) => ({
  signal: AbortSignal.timeout(ms),
  requestId: 't',
  logger: silentLogger,
  tenant: null,
});
const http = (over: Partial<ConstructorParameters<typeof VenueHttp>[0]> = {}) =>
  new VenueHttp({
    venue: 'kalshi',
    baseUrl: base,
    timeoutMs: 1_000,
    rateLimit: { requestsPerSecond: 1_000, burst: 1_000 },
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...over,
  });
const status =
  (code: number, headers: Record<string, string> = {}, body = '{"error":"nope"}') =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(code, headers);
    res.end(body);
  };

test('builds the URL under the base path with query values, and exposes the path as sent', async () => {
  const client = http();
  const res = await client.send(ctx(), {
    method: 'GET',
    path: '/markets',
    query: { limit: 5, status: 'open', none: undefined, tickers: ['A', 'B'] },
    idempotent: true,
    operation: 'list',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { ok: true });
  assert.equal(received[0]?.url, '/api/v2/markets?limit=5&status=open&tickers=A&tickers=B');
  assert.equal(client.pathOnWire('/markets'), '/api/v2/markets');
  await client.close();
});

test('a 429 is retried after Retry-After, even for a non-idempotent request, with fresh headers', async () => {
  script = [status(429, { 'retry-after': '0' })];
  let n = 0;
  const res = await http().send(ctx(), {
    method: 'POST',
    path: '/order',
    body: '{"a":1}',
    headers: () => ({ 'x-sig': `attempt-${++n}` }),
    idempotent: false,
    operation: 'create_order',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(
    received.map((r) => [r.body, r.auth]),
    [
      ['{"a":1}', 'attempt-1'],
      ['{"a":1}', 'attempt-2'],
    ],
  );
});

test('a 5xx is retried for idempotent requests only, then reported with the attempts made', async () => {
  script = [status(503), status(503), status(503)];
  const idem = await http()
    .send(ctx(), { method: 'GET', path: '/x', idempotent: true, operation: 'read' })
    .catch((e: unknown) => e);
  assert.ok(idem instanceof VenueStatusError && idem.status === 503 && idem.attempts === 3);
  assert.equal(idem.venueMessage(), 'nope');
  script = [status(500)];
  received = [];
  const post = await http()
    .send(ctx(), { method: 'POST', path: '/order', body: '{}', idempotent: false, operation: 'create_order' })
    .catch((e: unknown) => e);
  assert.ok(post instanceof VenueStatusError && post.attempts === 1);
  assert.equal(received.length, 1, 'an order is never sent twice after a 5xx');
});

test('a 4xx other than 429 is not retried', async () => {
  script = [status(400, {}, '{"message":"bad price"}')];
  const error = await http()
    .send(ctx(), { method: 'GET', path: '/x', idempotent: true, operation: 'read' })
    .catch((e: unknown) => e);
  assert.ok(error instanceof VenueStatusError && error.status === 400 && error.attempts === 1);
  assert.equal(error.venueMessage(), 'bad price');
});

test('a Retry-After longer than the policy allows gives up at once', async () => {
  script = [status(429, { 'retry-after': '60' })];
  const error = await http()
    .send(ctx(), { method: 'GET', path: '/x', idempotent: true, operation: 'read' })
    .catch((e: unknown) => e);
  assert.ok(error instanceof VenueStatusError && error.attempts === 1 && error.retryAfterMs === 60_000);
});

test('a timeout is a transport failure that may have been processed; an order is not re-sent', async () => {
  script = [() => undefined];
  const error = await http({ timeoutMs: 100 })
    .send(ctx(), { method: 'POST', path: '/order', body: '{}', idempotent: false, operation: 'create_order' })
    .catch((e: unknown) => e);
  assert.ok(error instanceof VenueTransportError, String(error));
  assert.equal(error.failure, 'timeout');
  assert.equal(error.maybeProcessed, true);
  assert.equal(received.length, 1);
});

test("the caller's deadline stops a request in flight: a timeout, not sent again", async () => {
  script = [() => undefined];
  const caller = new AbortController();
  const sending = http({ timeoutMs: 60_000 })
    .send(
      { ...ctx(), signal: caller.signal },
      { method: 'POST', path: '/order', body: '{}', idempotent: false, operation: 'create_order' },
    )
    .catch((e: unknown) => e);
  await waitFor(async () => received.length === 1);
  caller.abort();
  const error = await sending;
  assert.ok(error instanceof VenueTransportError, String(error));
  assert.equal(error.failure, 'timeout');
  assert.equal(received.length, 1);
});

test('connection refused is a transport failure that was certainly not processed', async () => {
  const error = await http({ baseUrl: 'http://127.0.0.1:9' })
    .send(ctx(), { method: 'POST', path: '/order', body: '{}', idempotent: false, operation: 'create_order' })
    .catch((e: unknown) => e);
  assert.ok(error instanceof VenueTransportError, String(error));
  assert.equal(error.failure, 'refused');
  assert.equal(error.maybeProcessed, false);
  assert.equal(error.attempts, 3, 'a request that never left may be retried');
});

test('an oversized answer is refused instead of buffered', async () => {
  script = [status(200, {}, 'x'.repeat(5_000))];
  const error = await http({ maxResponseBytes: 1_000 })
    .send(ctx(), { method: 'GET', path: '/x', idempotent: false, operation: 'read' })
    .catch((e: unknown) => e);
  assert.ok(error instanceof VenueTransportError && error.failure === 'too_large');
});

/**
 * A clock that only moves when the transport waits on it, recording each wait in `timeline`; `hold` makes a wait
 * last until the caller's signal aborts instead.
 */
function manualClock(timeline: string[], hold = false): TransportClock {
  let now = 1_700_000_000_000;
  return {
    now: () => now,
    sleep(ms, signal) {
      timeline.push(`wait ${ms} ms`);
      if (hold) {
        return new Promise((resolve) =>
          signal.addEventListener('abort', () => resolve(false), { once: true }),
        );
      }
      now += ms;
      return Promise.resolve(!signal.aborted);
    },
  };
}

const read = { method: 'GET', path: '/x', idempotent: true, operation: 'read' } as const;

test('requests are paced to the venue rate limit: the burst at once, then one token per 1/rate s', async () => {
  const timeline: string[] = [];
  const client = http({ rateLimit: { requestsPerSecond: 20, burst: 2 }, clock: manualClock(timeline) });
  for (let i = 1; i <= 4; i++) {
    await client.send(ctx(), read);
    timeline.push(`sent ${i}`);
  }
  // Two from the burst; the bucket is then empty and refills one token per 50 ms of the transport's clock.
  assert.deepEqual(timeline, ['sent 1', 'sent 2', 'wait 50 ms', 'sent 3', 'wait 50 ms', 'sent 4']);
  assert.equal(received.length, 4);
});

test('pacing stops at the caller deadline: the request waiting for a token is never sent', async () => {
  const timeline: string[] = [];
  const slow = http({ rateLimit: { requestsPerSecond: 0.1, burst: 1 }, clock: manualClock(timeline, true) });
  await slow.send(ctx(), read);
  timeline.push('sent 1');
  const caller = new AbortController();
  const second = slow.send({ ...ctx(), signal: caller.signal }, read).catch((e: unknown) => e);
  await waitFor(async () => timeline.includes('wait 10000 ms') || undefined, 10_000, 'the wait for a token');
  caller.abort();
  const error = await second;
  assert.ok(error instanceof VenueTransportError && error.maybeProcessed === false, String(error));
  assert.deepEqual(timeline, ['sent 1', 'wait 10000 ms']);
  assert.equal(received.length, 1, 'the paced request never left');
});

test('Retry-After accepts seconds and HTTP dates', () => {
  assert.equal(parseRetryAfter('2'), 2_000);
  assert.equal(parseRetryAfter(undefined), null);
  assert.equal(parseRetryAfter('soon'), null);
  const now = Date.UTC(2026, 4, 14, 12, 0, 0);
  assert.equal(parseRetryAfter(new Date(now + 3_000).toUTCString(), now), 3_000);
  assert.equal(parseRetryAfter(new Date(now - 3_000).toUTCString(), now), 0, 'a date past is no wait');
});

test('closing twice is harmless', async () => {
  const client = http();
  await client.send(ctx(), { method: 'GET', path: '/x', idempotent: true, operation: 'read' });
  await client.close();
  await client.close();
});

test('an unpaced client ignores the rate limit (simulators publish none)', async () => {
  const timeline: string[] = [];
  const client = http({
    rateLimit: { requestsPerSecond: 0.001, burst: 1 },
    unpaced: true,
    clock: manualClock(timeline, true),
  });
  for (let i = 0; i < 5; i++) await client.send(ctx(), read);
  assert.deepEqual(timeline, [], 'no wait for a token');
  assert.equal(received.length, 5);
  await client.close();
});
