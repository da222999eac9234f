// FreshCache: never answers a value past its TTL, runs one computation per key however many callers miss it at
// once, shares a failure with the callers that waited on it but does not keep it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FreshCache } from '../../../../src/services/market-data/fresh-cache.js';
import { deferred } from '../../../support/deferred.js';

test('concurrent misses share one computation; the value is reused until the TTL, then recomputed', async () => {
  let now = 0;
  const cache = new FreshCache<string>(500, { maxEntries: 100, now: () => now });
  let calls = 0;
  const pending = deferred<string>();
  const compute = () => {
    calls += 1;
    return pending.promise;
  };
  const waiting = Array.from({ length: 50 }, () => cache.get('k', compute));
  pending.resolve('v1');
  assert.deepEqual(new Set(await Promise.all(waiting)), new Set(['v1']));
  assert.equal(calls, 1);
  now = 499;
  assert.equal(await cache.get('k', async () => 'v2'), 'v1', 'younger than the TTL: reused');
  now = 500;
  assert.equal(cache.peek('k'), undefined, 'at the TTL the value is gone');
  assert.equal(await cache.get('k', async () => 'v2'), 'v2');
});

test('a failure reaches every caller that waited on it and is not cached', async () => {
  const cache = new FreshCache<string>(500, { maxEntries: 100, now: () => 0 });
  const pending = deferred<string>();
  const a = cache.get('k', () => pending.promise);
  const b = cache.get('k', async () => 'never');
  pending.reject(new Error('venue down'));
  await assert.rejects(a, /venue down/);
  await assert.rejects(b, /venue down/);
  assert.equal(await cache.get('k', async () => 'recovered'), 'recovered');
});

test('the oldest entry leaves first when the cache is full', async () => {
  const cache = new FreshCache<number>(1_000, { maxEntries: 2, now: () => 0 });
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('c', 3);
  assert.equal(cache.peek('a'), undefined);
  assert.equal(cache.peek('b'), 2);
  assert.equal(cache.peek('c'), 3);
});

test('a hit past refreshAfterMs is answered at once and starts one background recomputation', async () => {
  let now = 0;
  const cache = new FreshCache<string>(500, { now: () => now, refreshAfterMs: 300 });
  cache.set('k', 'v1');
  let calls = 0;
  const next = deferred<string>();
  const compute = () => {
    calls += 1;
    return next.promise;
  };
  now = 299;
  assert.equal(await cache.get('k', compute), 'v1');
  assert.equal(calls, 0, 'younger than refreshAfterMs: nothing recomputed');
  now = 300;
  assert.equal(await cache.get('k', compute), 'v1', 'the held value answers while the refresh runs');
  assert.equal(await cache.get('k', compute), 'v1');
  assert.equal(calls, 1, 'one refresh however many hits');
  next.resolve('v2');
  await next.promise;
  await Promise.resolve();
  assert.equal(cache.peek('k'), 'v2');
  now = 799;
  assert.equal(cache.peek('k'), 'v2', 'the refreshed value is aged from its own arrival');
});

test('a refresh still running at the TTL is joined: the expired value is never answered', async () => {
  let now = 0;
  const cache = new FreshCache<string>(500, { now: () => now, refreshAfterMs: 300 });
  cache.set('k', 'v1');
  const next = deferred<string>();
  let calls = 0;
  const compute = () => {
    calls += 1;
    return next.promise;
  };
  now = 300;
  assert.equal(await cache.get('k', compute), 'v1');
  now = 500;
  const joined = cache.get('k', compute);
  next.resolve('v2');
  assert.equal(await joined, 'v2');
  assert.equal(calls, 1);
});

test('a failed background refresh is dropped: the value lasts to its TTL, then the next caller meets the error', async () => {
  let now = 0;
  const cache = new FreshCache<string>(500, { now: () => now, refreshAfterMs: 300 });
  cache.set('k', 'v1');
  const failing = deferred<string>();
  now = 300;
  assert.equal(await cache.get('k', () => failing.promise), 'v1');
  failing.reject(new Error('venue down'));
  await failing.promise.catch(() => undefined);
  await Promise.resolve();
  assert.equal(cache.peek('k'), 'v1');
  now = 500;
  await assert.rejects(
    cache.get('k', async () => {
      throw new Error('still down');
    }),
    /still down/,
  );
});
