import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import { createWorld } from '../../../sim/shared/world.js';
import { loadFixture } from '../../support/fixtures.js';

let sim: LimitlessSim;
before(async () => {
  sim = await startLimitlessSim({ seed: 11, size: 80 });
});
after(() => sim.close());

const fixture = loadFixture('limitless', 'http_get_markets_slug_orderbook.json') as Record<string, unknown>;

async function manifest(): Promise<Record<string, string[]>> {
  return (await (await fetch(`${sim.url}/__sim/manifest`)).json()) as Record<string, string[]>;
}
async function firstSlug(): Promise<string> {
  const slug = Object.values(await manifest())[0]?.[0];
  assert.ok(slug);
  return slug;
}

test('manifest lists exactly the propositions the world lists on limitless', async () => {
  const ids = createWorld({ seed: 11, size: 80 })
    .listedOn('limitless')
    .map((p) => p.id);
  assert.ok(ids.length > 0);
  assert.deepEqual(Object.keys(await manifest()).sort(), [...ids].sort());
});

test('orderbook keys cover the recorded fixture and the book is sane', async () => {
  const res = await fetch(`${sim.url}/markets/${await firstSlug()}/orderbook`);
  assert.equal(res.status, 200);
  const book = (await res.json()) as {
    bids: Array<Record<string, string>>;
    asks: Array<Record<string, string>>;
  } & Record<string, unknown>;
  for (const key of Object.keys(fixture)) assert.ok(key in book, `missing ${key}`);
  const fixtureLevel = (fixture.bids as Array<Record<string, unknown>>)[0] ?? {};
  for (const key of Object.keys(fixtureLevel)) assert.ok(key in (book.bids[0] ?? {}), `level missing ${key}`);
  const bids = book.bids.map((l) => Number(l.price));
  const asks = book.asks.map((l) => Number(l.price));
  assert.deepEqual(
    bids,
    [...bids].sort((a, b) => b - a),
  );
  assert.deepEqual(
    asks,
    [...asks].sort((a, b) => a - b),
  );
  assert.ok((bids[0] ?? 1) < (asks[0] ?? 0));
  for (const l of [...book.bids, ...book.asks])
    assert.equal(Number(l.size) % 1_000_000, 0, 'raw 1e6 share units');
});

test('advance moves books deterministically; unknown slug is 404', async () => {
  const slug = await firstSlug();
  const a = await (await fetch(`${sim.url}/markets/${slug}/orderbook`)).json();
  assert.deepEqual(await (await fetch(`${sim.url}/markets/${slug}/orderbook`)).json(), a);
  await fetch(`${sim.url}/__sim/advance`, { method: 'POST' });
  assert.notDeepEqual(await (await fetch(`${sim.url}/markets/${slug}/orderbook`)).json(), a);
  assert.equal((await fetch(`${sim.url}/markets/no-such-market/orderbook`)).status, 404);
});

test('rate-limit fault answers 429 with Retry-After, and clears', async () => {
  const slug = await firstSlug();
  const set = (body: unknown) =>
    fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify(body) });
  await set({ rate_limit: { retry_after: 3 } });
  const res = await fetch(`${sim.url}/markets/${slug}/orderbook`);
  assert.equal(res.status, 429);
  assert.equal(res.headers.get('retry-after'), '3');
  await set({ error_rate: 1 });
  assert.equal((await fetch(`${sim.url}/markets/${slug}/orderbook`)).status, 500);
  await set({});
  assert.equal((await fetch(`${sim.url}/markets/${slug}/orderbook`)).status, 200);
});
