// The stored book encoding is exact: decoding gives back the very numbers recorded, including the ones floats get
// wrong (0.1 + 0.2), many-decimal sizes, huge and tiny values; and a realistic book is small.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { BookLevel } from '../../../src/domain/book.js';
import { decodeBook, encodeBook, type RecordedBook } from '../../../src/store/book-snapshot-codec.js';
import { assertProperty } from '../../support/property.js';

const anyDouble = fc.double({ noDefaultInfinity: false });
const awkward = fc.constantFrom(
  0.1 + 0.2,
  0.3,
  1 - 0.9,
  0.07 * 100,
  123456.789012345,
  0.000001,
  5e-324,
  Number.MAX_VALUE,
  2 ** 53 + 2,
  1e21,
  -0,
  -0.25,
  0,
);
const price = fc.oneof(
  fc.integer({ min: 1, max: 999 }).map((p) => p / 1000),
  fc.integer({ min: 1, max: 99 }).map((p) => p * 0.01),
  awkward,
  anyDouble,
);
const size = fc.oneof(
  fc.integer({ min: 0, max: 10_000_000 }),
  fc.integer({ min: 0, max: 10 ** 9 }).map((s) => s / 10 ** 6),
  fc.double({ min: 0, max: 1e7, noNaN: true }),
  awkward,
  anyDouble,
);
const level = fc.tuple(price, size) as fc.Arbitrary<BookLevel>;
const book = fc
  .record({
    bids: fc.array(level, { maxLength: 60 }),
    asks: fc.array(level, { maxLength: 60 }),
    tick_size: fc.oneof(fc.constant(null), fc.constantFrom(0.01, 0.001, 0.1 + 0.2), anyDouble),
  })
  .map((b): RecordedBook => ({ ...b }));

test('decode(encode(book)) is the book, value for value (property)', () => {
  assertProperty(
    fc.property(book, (b) => {
      assert.deepStrictEqual(decodeBook(encodeBook(b)), b);
    }),
    {
      examples: [
        [{ bids: [[0.1 + 0.2, 0.1 + 0.2]], asks: [[0.7, 1e-7]], tick_size: 0.01 }],
        [{ bids: [[-0, 0]], asks: [[Number.NaN, Number.POSITIVE_INFINITY]], tick_size: -0 }],
        [{ bids: [], asks: [], tick_size: null }],
      ],
    },
  );
});

test('two books encode to the same bytes exactly when they are equal (property)', () => {
  // The recorder's "unchanged" test is a byte comparison.
  assertProperty(
    fc.property(book, book, (a, b) => {
      assert.equal(encodeBook(a).equals(encodeBook(b)), isDeepStrictEqual(a, b));
      assert.ok(encodeBook(a).equals(encodeBook(structuredClone(a))));
    }),
    {
      examples: [
        [
          { bids: [[0.5, 0]], asks: [], tick_size: null },
          { bids: [[0.5, -0]], asks: [], tick_size: null },
        ],
      ],
    },
  );
});

test('a 50-level book on a cent tick is a few bytes per level', () => {
  // Values as a venue's decimal strings parse to them (a computed 0.599 + 0.001 would not be one of them).
  const bids: BookLevel[] = Array.from({ length: 50 }, (_, i) => [
    (98 - i) / 100,
    Number((100 + i * 13.37).toFixed(2)),
  ]);
  const asks: BookLevel[] = Array.from({ length: 50 }, (_, i) => [(599 + i) / 1000, 250.5 + i]);
  const blob = encodeBook({ bids, asks, tick_size: 0.01 });
  assert.ok(blob.length < 100 * 5, `${blob.length} bytes`);
  // 0.1 + 0.2 in one size leaves that column raw, the prices still packed: the book is still exact.
  const odd = { bids, asks: [[0.6, 0.1 + 0.2] as BookLevel], tick_size: 0.01 };
  assert.deepStrictEqual(decodeBook(encodeBook(odd)), odd);
  assert.deepStrictEqual(decodeBook(blob), { bids, asks, tick_size: 0.01 });
});

test('a damaged blob is refused, not misread', () => {
  const blob = encodeBook({ bids: [[0.5, 10]], asks: [], tick_size: 0.01 });
  assert.throws(() => decodeBook(blob.subarray(0, blob.length - 1)));
  assert.throws(() => decodeBook(Buffer.concat([blob, Buffer.from([0])])));
  assert.throws(() => decodeBook(Buffer.from([9, 0, 0, 0xff])));
});
