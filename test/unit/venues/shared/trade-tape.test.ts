// The newest-first tape walker behind offset, page-number and keyset tapes: pages chained by cursor give every
// trade of the window once, in order, even when identical rows share a time and new trades push the tape down
// between two pages; a page budget ends a call early with a cursor; a forged cursor is the client's 400.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Trade } from '../../../../src/domain/book.js';
import { AppError } from '../../../../src/errors/app-error.js';
import type { TradesQuery } from '../../../../src/venues/port.js';
import { type TapeWalk, walkTape } from '../../../../src/venues/shared/trade-tape.js';
import { assertProperty } from '../../../support/property.js';

interface Row {
  key: string;
  ms: number;
}

function trade(row: Row): Trade {
  return {
    id: row.key,
    price: 0.5,
    size: 1,
    side: 'buy',
    aggressor_side: 'buy',
    timestamp: new Date(row.ms).toISOString(),
    outcome: 'Yes',
  };
}

/** An offset tape over `rows` (newest first, mutable between calls), pages of `size`. */
function offsetTape(rows: Row[], size: number, maxPages = 100): TapeWalk<number> & { reads: number } {
  const walk = {
    reads: 0,
    first: 0,
    maxPages,
    isHandle: (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0,
    fetchPage: async (offset: number) => {
      walk.reads += 1;
      const slice = rows.slice(offset, offset + size);
      return {
        rows: slice.map((r, i) => ({ trade: trade(r), resume: offset + i, key: r.key })),
        next: offset + size < rows.length ? offset + size : null,
      };
    },
  };
  return walk;
}

const all = (limit: number, cursor: string | null = null): TradesQuery => ({
  limit,
  startTs: null,
  endTs: null,
  cursor,
});

test('twins at one time and trades arriving between pages: every trade once, in order', async () => {
  const t0 = Date.parse('2026-06-01T00:00:10Z');
  const rows: Row[] = [
    { key: 'a', ms: t0 },
    { key: 'x', ms: t0 },
    { key: 'b', ms: t0 },
    { key: 'x', ms: t0 },
    { key: 'c', ms: t0 - 1_000 },
  ];
  const tape = offsetTape(rows, 2);
  const first = await walkTape(tape, all(2));
  assert.deepEqual(
    first.trades.map((t) => t.id),
    ['a', 'x'],
  );
  // Two new trades push every row down by two before the next page is asked for.
  rows.unshift({ key: 'new1', ms: t0 + 5_000 }, { key: 'new2', ms: t0 + 4_000 });
  const second = await walkTape(tape, all(2, first.cursor));
  assert.deepEqual(
    second.trades.map((t) => t.id),
    ['b', 'x'],
  );
  const third = await walkTape(tape, all(2, second.cursor));
  assert.deepEqual(
    third.trades.map((t) => t.id),
    ['c'],
  );
  assert.equal(third.cursor, null, 'the end of the tape has no next page');
});

test('the window keeps its trades and stops at the first older one; end_ts covers its whole second', async () => {
  const s = 1_780_000_000;
  const rows: Row[] = [
    { key: 'late', ms: (s + 11) * 1000 },
    { key: 'end', ms: (s + 10) * 1000 + 999 },
    { key: 'mid', ms: (s + 5) * 1000 },
    { key: 'start', ms: s * 1000 },
    { key: 'early', ms: s * 1000 - 1 },
    { key: 'never', ms: (s - 100) * 1000 },
  ];
  const tape = offsetTape(rows, 1);
  const page = await walkTape(tape, { limit: 10, startTs: s, endTs: s + 10, cursor: null });
  assert.deepEqual(
    page.trades.map((t) => t.id),
    ['end', 'mid', 'start'],
  );
  assert.equal(page.cursor, null);
  assert.equal(tape.reads, 5, 'no page past the first trade older than the window');
});

test('a spent page budget ends the call early with a cursor that carries on', async () => {
  const rows: Row[] = Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, ms: 1_000_000 - i * 1000 }));
  // Only the last rows are inside the window: the first call reads its two pages and finds none.
  const tape = offsetTape(rows, 2, 2);
  const window = { startTs: 0, endTs: Math.floor(rows[6]?.ms ?? 0) / 1000, limit: 5 };
  const first = await walkTape(tape, { ...window, cursor: null });
  assert.deepEqual(first.trades, []);
  assert.ok(first.cursor);
  // Two more pages: k4 and k5 are after the window, k6 and k7 inside it, and the budget is spent again.
  const second = await walkTape(tape, { ...window, cursor: first.cursor });
  assert.deepEqual(
    second.trades.map((t) => t.id),
    ['k6', 'k7'],
  );
  const third = await walkTape(tape, { ...window, cursor: second.cursor });
  assert.deepEqual(
    third.trades.map((t) => t.id),
    ['k8', 'k9'],
  );
  assert.equal(third.cursor, null);
});

test('a cursor this walker did not write is a 400', async () => {
  const tape = offsetTape([], 2);
  for (const forged of ['nonsense', '[]', '[-1]', '["x"]', '[0, "a", []]', '[0, 1, [2]]', '{}']) {
    await assert.rejects(walkTape(tape, all(1, forged)), (e: unknown) => {
      assert.ok(e instanceof AppError && e.code === 'validation_error', String(e));
      return true;
    });
  }
});

test('property: chained pages equal the window of the tape as it was, whatever arrives in between', async () => {
  const rowArb = fc.record({ key: fc.constantFrom('a', 'b', 'c', 'd'), ms: fc.integer({ min: 0, max: 20 }) });
  await assertProperty(
    fc.asyncProperty(
      fc.array(rowArb, { maxLength: 40 }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 7 }),
      fc.integer({ min: 1, max: 4 }),
      fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 20 }),
      fc.option(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 }))),
      async (raw, pageSize, limit, maxPages, arrivals, window) => {
        // Milliseconds spread whole seconds apart, so a window in seconds splits them cleanly.
        const rows: Row[] = raw
          .map((r) => ({ key: r.key as string, ms: r.ms * 1000 }))
          .sort((a, b) => b.ms - a.ms);
        const [lo, hi] = window ? [Math.min(...window), Math.max(...window)] : [null, null];
        const expected = rows.filter(
          (r) => (lo === null || r.ms >= lo * 1000) && (hi === null || r.ms <= hi * 1000),
        );
        const tape = offsetTape(rows, pageSize, maxPages);
        // Trades arrive between pages only while one call can read past everything it may have to skip: rows
        // sharing a millisecond beyond the page budget, re-read after a shift, are the documented limit.
        const shifts =
          pageSize * maxPages > rows.length + arrivals.reduce((a, b) => a + b, 0) ? arrivals : [];
        const got: string[] = [];
        let cursor: string | null = null;
        let newest = 100_000;
        for (let call = 0; call < 500; call++) {
          const page: { trades: Trade[]; cursor: string | null } = await walkTape(tape, {
            limit,
            startTs: lo,
            endTs: hi,
            cursor,
          });
          assert.ok(page.trades.length <= limit);
          got.push(...page.trades.map((t) => `${t.id}@${Date.parse(t.timestamp)}`));
          if (page.cursor === null) break;
          cursor = page.cursor;
          // Newer trades than any so far arrive at the top before the next pages (a bounded number of them:
          // an offset tape growing faster than it is read is never caught up with).
          for (let n = shifts[call] ?? 0; n > 0; n--) {
            newest += 1000;
            rows.unshift({ key: 'new', ms: newest });
          }
        }
        assert.deepEqual(
          got,
          expected.map((r) => `${r.key}@${r.ms}`),
        );
      },
    ),
    {
      examples: [
        // Twins at one time, a page budget of one row, and a trade arriving after the budget ran out.
        [
          [
            { key: 'a', ms: 0 },
            { key: 'a', ms: 0 },
          ],
          1,
          1,
          1,
          [0, 1],
          null,
        ],
        [
          [
            { key: 'a', ms: 0 },
            { key: 'a', ms: 0 },
          ],
          2,
          1,
          1,
          [1, 1],
          null,
        ],
      ],
    },
  );
});
