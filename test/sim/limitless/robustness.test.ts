// The Limitless simulator never answers 5xx to what a client sends: random paths, queries, methods, headers and
// Socket.IO payloads get the venue's 4xx (or a 200) in JSON, and the server keeps serving afterwards.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { io } from 'socket.io-client';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import { assertProperty } from '../../support/property.js';
import { waitFor } from '../../support/server.js';

let sim: LimitlessSim;
let slug: string;
before(async () => {
  sim = await startLimitlessSim({ seed: 2, size: 40 });
  slug = Object.values(sim.manifest)[0]?.[0] as string;
});
after(() => sim.close());

const SEGMENTS = [
  'markets',
  'active',
  'search',
  'portfolio',
  'orderbook',
  'historical-price',
  'events',
  'pnl-chart',
];
const PARAMS = [
  'page',
  'limit',
  'interval',
  'from',
  'to',
  'query',
  'timeframe',
  'sortBy',
  'similarityThreshold',
];

test('random requests get a JSON answer below 500', async () => {
  const segment = fc.oneof(
    fc.constantFrom(...SEGMENTS, '%', '%E0%A4%A', '..', `0x${'a'.repeat(40)}`),
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
  );
  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
  const query = fc
    .array(
      fc.tuple(fc.constantFrom(...PARAMS), fc.oneof(fc.string({ maxLength: 8 }), fc.integer().map(String))),
      {
        maxLength: 3,
      },
    )
    .map((pairs) => (pairs.length ? `?${new URLSearchParams(pairs).toString()}` : ''));
  await assertProperty(
    fc.asyncProperty(
      fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'),
      path,
      query,
      fc.constantFrom<Record<string, string>>(
        {},
        { 'lmts-api-key': 'x', 'lmts-timestamp': 'y', 'lmts-signature': 'z' },
        { 'x-api-key': '' },
      ),
      async (method, p, q, headers) => {
        const res = await fetch(`${sim.url}${p}${q}`, { method, headers });
        assert.ok(res.status < 500, `${method} ${p}${q} -> ${res.status}`);
        await res.json();
      },
    ),
    { numRuns: 300, examples: [] },
  );
  assert.equal((await fetch(`${sim.url}/markets/${slug}/orderbook`)).status, 200);
});

test('malformed Socket.IO payloads get `exception` and leave the connection usable', async () => {
  const socket = io(`${sim.wsUrl}/markets`, { transports: ['websocket'], reconnection: false });
  const events: string[] = [];
  socket.onAny((event: string) => events.push(event));
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    for (const bad of [
      null,
      42,
      'x',
      [],
      { marketSlugs: 'x' },
      { marketSlugs: [1] },
      { marketAddresses: {} },
    ]) {
      socket.emit('subscribe_market_prices', bad);
    }
    socket.emit('unsubscribe', null);
    socket.emit('no_such_event', { a: 1 });
    await waitFor(
      async () => events.filter((e) => e === 'exception').length >= 7 || undefined,
      10_000,
      'exceptions',
    );
    socket.emit('subscribe_market_prices', { marketSlugs: [slug, 'unknown-slug'] });
    await waitFor(
      async () => events.includes('system') || undefined,
      10_000,
      'a good subscription still works',
    );
    assert.ok(socket.connected);
  } finally {
    socket.disconnect();
  }
});
