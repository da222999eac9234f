import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalisePath, PayloadDrift } from '../../../src/domain/payload-drift.js';

test('paths are counted with array indices folded, newest first, never more than five per payload', () => {
  let now = Date.parse('2026-12-01T00:00:00Z');
  const drift = new PayloadDrift(() => now);
  drift.record('polymarket', 'book', ['/bids/0/price', '/bids/1/price', '/asks/0/size']);
  now += 1000;
  drift.record('polymarket', 'book', ['/bids/7/price']);
  now += 1000;
  drift.record('kalshi', 'markets', ['/markets/3/yes_bid', '/a', '/b', '/c', '/d', '/e', '/f']);
  assert.equal(drift.total, 3);
  const latest = drift.latest();
  assert.deepEqual(
    latest.map((e) => [e.exchange, e.operation, e.path, e.count]),
    [
      ['kalshi', 'markets', '/markets/*/yes_bid', 1],
      ['kalshi', 'markets', '/a', 1],
      ['kalshi', 'markets', '/b', 1],
      ['kalshi', 'markets', '/c', 1],
      ['kalshi', 'markets', '/d', 1],
      ['polymarket', 'book', '/bids/*/price', 2],
      ['polymarket', 'book', '/asks/*/size', 1],
    ],
  );
  assert.equal(latest[5]?.last_seen, '2026-12-01T00:00:01.000Z');
});

test('distinct paths are bounded: past the bound, new ones are counted under (other)', () => {
  const drift = new PayloadDrift();
  for (let i = 0; i < 800; i++) drift.record('opinion', 'orderbook', [`/field_${i}`]);
  const counts = drift.counts();
  assert.equal(counts.length, 501);
  assert.equal(counts.find((e) => e.path === '(other)')?.count, 300);
});

test('normalisePath keeps a pointer shape and bounds its length', () => {
  assert.equal(normalisePath(''), '/');
  assert.equal(normalisePath('x/0'), '/x/*');
  assert.equal(normalisePath('/a/12/b/3'), '/a/*/b/*');
  assert.equal(normalisePath('/a12/b'), '/a12/b');
  assert.equal(normalisePath(`/${'x'.repeat(500)}`).length, 200);
});
