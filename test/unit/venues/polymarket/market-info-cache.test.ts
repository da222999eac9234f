import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MarketInfoCache } from '../../../../src/venues/polymarket/market-info-cache.js';
import type { VenueContext } from '../../../../src/venues/port.js';

const ctx = {} as VenueContext;

function counting() {
  const calls: string[] = [];
  let now = 0;
  const cache = new MarketInfoCache(
    async (_ctx, id) => {
      calls.push(id);
      return { id, read: calls.length };
    },
    1_000,
    2,
    () => now,
  );
  return {
    cache,
    calls,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

test('an entry is reused until it is ttl old, keyed case-insensitively', async () => {
  const { cache, calls, advance } = counting();
  assert.deepEqual(await cache.get(ctx, '0xAB'), { value: { id: '0xAB', read: 1 }, cached: false });
  assert.deepEqual(await cache.get(ctx, '0xab'), { value: { id: '0xAB', read: 1 }, cached: true });
  advance(999);
  assert.equal((await cache.get(ctx, '0xab')).cached, true);
  advance(1);
  assert.deepEqual(await cache.get(ctx, '0xab'), { value: { id: '0xab', read: 2 }, cached: false });
  assert.equal(calls.length, 2);
});

test('fresh and invalidate ask the exchange again', async () => {
  const { cache, calls } = counting();
  await cache.get(ctx, '0x1');
  assert.equal((await cache.get(ctx, '0x1', true)).cached, false);
  cache.invalidate('0X1');
  assert.equal((await cache.get(ctx, '0x1')).cached, false);
  assert.equal(calls.length, 3);
});

test('concurrent misses share one request, and a failed one is not kept', async () => {
  let fail = true;
  let calls = 0;
  const cache = new MarketInfoCache(async () => {
    calls++;
    await Promise.resolve();
    if (fail) throw new Error('down');
    return 'info';
  });
  const both = await Promise.allSettled([cache.get(ctx, '0x1'), cache.get(ctx, '0x1')]);
  assert.deepEqual(
    both.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.equal(calls, 1);
  fail = false;
  assert.deepEqual(await cache.get(ctx, '0x1'), { value: 'info', cached: false });
  assert.equal(calls, 2);
});

test('the cache is bounded: a full cache starts over', async () => {
  const { cache, calls } = counting();
  await cache.get(ctx, '0x1');
  await cache.get(ctx, '0x2');
  await cache.get(ctx, '0x3');
  assert.equal((await cache.get(ctx, '0x3')).cached, true);
  assert.equal((await cache.get(ctx, '0x1')).cached, false);
  assert.equal(calls.length, 4);
});
