import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { BookLevel } from '../../../src/domain/book.js';
import { applyBookChanges, diffBookSides } from '../../../src/domain/book-diff.js';
import { assertProperty } from '../../support/property.js';

const side = (descending: boolean) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: 99 }), { maxLength: 12 })
    .chain((prices) =>
      fc.tuple(...prices.map((p) => fc.integer({ min: 1, max: 500 }).map((s): BookLevel => [p / 100, s]))),
    )
    .map((levels) => [...levels].sort((a, b) => (descending ? b[0] - a[0] : a[0] - b[0])));

test('applying the diff of two books to the first gives the second (property)', () => {
  assertProperty(
    fc.property(side(true), side(false), side(true), side(false), (b1, a1, b2, a2) => {
      const changes = diffBookSides({ bids: b1, asks: a1 }, { bids: b2, asks: a2 });
      assert.deepEqual(applyBookChanges(b1, changes, 'bid'), b2);
      assert.deepEqual(applyBookChanges(a1, changes, 'ask'), a2);
      if (JSON.stringify([b1, a1]) === JSON.stringify([b2, a2])) assert.equal(changes.length, 0);
    }),
    { examples: [] },
  );
});

test('a removed level is a change to size 0', () => {
  const changes = diffBookSides({ bids: [[0.5, 10]], asks: [] }, { bids: [], asks: [[0.6, 3]] });
  assert.deepEqual(changes, [
    { side: 'bid', price: 0.5, size: 0 },
    { side: 'ask', price: 0.6, size: 3 },
  ]);
});
