// The per-adapter credential cache on its own clock: reuse until the refresh margin before expiry, one issue for
// concurrent callers (a failure shared and not kept), invalidation that spares a newer credential, the size bound,
// and that neither JSON nor inspection shows a cached value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { CredentialCache } from '../../../../src/venues/shared/credential-cache.js';

function setup(maxEntries = 10) {
  let now = 1_000_000;
  const cache = new CredentialCache<string>({ maxEntries, refreshMarginMs: 100, now: () => now });
  let issued = 0;
  const issue = (lifetimeMs: number) => async () => {
    issued += 1;
    return { value: `secret-${issued}`, expiresAt: now + lifetimeMs };
  };
  return {
    cache,
    issue,
    issued: () => issued,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

test('a credential is reused until the refresh margin before its expiry, then issued again', async () => {
  const { cache, issue, issued, advance } = setup();
  assert.equal(await cache.get('w', issue(1_000)), 'secret-1');
  advance(899);
  assert.equal(await cache.get('w', issue(1_000)), 'secret-1');
  advance(1);
  assert.equal(await cache.get('w', issue(1_000)), 'secret-2', 'inside the margin: replaced before use');
  assert.equal(issued(), 2);
});

test('one that is already inside the margin when issued is handed out once and not kept', async () => {
  const { cache, issue, issued } = setup();
  assert.equal(await cache.get('w', issue(50)), 'secret-1');
  assert.equal(await cache.get('w', issue(50)), 'secret-2');
  assert.equal(issued(), 2);
  assert.equal(cache.size, 0);
});

test('concurrent callers of one wallet share one issue; other wallets issue their own', async () => {
  const { cache, issued } = setup();
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let calls = 0;
  const slow = async () => {
    calls += 1;
    const value = `slow-${calls}`;
    await gate;
    return { value, expiresAt: Number.POSITIVE_INFINITY };
  };
  const waiting = Promise.all([cache.get('w', slow), cache.get('w', slow), cache.get('w', slow)]);
  const other = cache.get('v', slow);
  release();
  assert.deepEqual(await waiting, ['slow-1', 'slow-1', 'slow-1']);
  assert.equal(await other, 'slow-2');
  assert.equal(calls, 2);
  assert.equal(issued(), 0);
});

test('a failed issue reaches every waiter, is not cached, and the next call tries again', async () => {
  const { cache, issue } = setup();
  let fail = true;
  const flaky = async () => {
    if (fail) throw new Error('venue down');
    return issue(1_000)();
  };
  const results = await Promise.allSettled([cache.get('w', flaky), cache.get('w', flaky)]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  fail = false;
  assert.equal(await cache.get('w', flaky), 'secret-1');
});

test('invalidate drops the refused credential but not a newer one', async () => {
  const { cache, issue } = setup();
  const first = await cache.get('w', issue(1_000));
  cache.invalidate('w', first);
  const second = await cache.get('w', issue(1_000));
  assert.notEqual(second, first);
  cache.invalidate('w', first); // a late 401 on the old credential
  assert.equal(await cache.get('w', issue(1_000)), second);
});

test('the cache is bounded: the least recently used wallet goes first', async () => {
  const { cache, issue, issued } = setup(2);
  await cache.get('a', issue(1_000));
  await cache.get('b', issue(1_000));
  await cache.get('a', issue(1_000)); // a is now the most recently used
  await cache.get('c', issue(1_000));
  assert.equal(cache.size, 2);
  assert.equal(issued(), 3);
  await cache.get('a', issue(1_000));
  assert.equal(issued(), 3, 'a stayed');
  await cache.get('b', issue(1_000));
  assert.equal(issued(), 4, 'b was evicted');
});

test('neither JSON nor inspection shows a cached value', async () => {
  const { cache, issue } = setup();
  await cache.get('0xabc', issue(1_000));
  assert.equal(JSON.stringify({ cache }), '{"cache":{"size":1}}');
  const shown = inspect(cache, { depth: 5, showHidden: true });
  assert.ok(!shown.includes('secret-1') && !shown.includes('0xabc'), shown);
});
