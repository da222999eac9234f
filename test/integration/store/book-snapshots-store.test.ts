// Recorded books on both dialects: instrument ids, batched inserts (split under the bound-variable limits), a time range read a page at a time, the exact
// levels back, and retention dropping whole days.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { decodeBook, encodeBook } from '../../../src/store/book-snapshot-codec.js';
import { BookSnapshotsRepo, dayOf } from '../../../src/store/book-snapshots-repo.js';
import { onBothDialects } from './dialects.js';

const DAY_MS = 86_400_000;
const T0 = Date.UTC(2026, 10, 20, 23, 59, 0);

onBothDialects('book snapshots store', (store) => {
  let repo: BookSnapshotsRepo;
  let bookA: number;
  let bookB: number;

  before(async () => {
    repo = new BookSnapshotsRepo(store().db);
    bookA = await repo.bookId({
      exchange: 'polymarket',
      market_id: '0xabc',
      token_id: '111',
      svc_id: 'polymarket:0xabc',
      outcome: 'Yes',
    });
    bookB = await repo.bookId({
      exchange: 'kalshi',
      market_id: 'KXTEST',
      token_id: 'KXTEST:yes',
      svc_id: 'kalshi:KXTEST',
      outcome: 'Yes',
    });
  });

  test('an instrument keeps its id; an unrecorded one has none', async () => {
    assert.notEqual(bookA, bookB);
    const again = new BookSnapshotsRepo(store().db);
    assert.equal(
      await again.bookId({
        exchange: 'polymarket',
        market_id: '0xabc',
        token_id: '111',
        svc_id: 'polymarket:0xabc',
        outcome: 'Yes',
      }),
      bookA,
    );
    assert.equal(await again.findBookId('polymarket', '0xabc', '222'), null);
  });

  test('inserted snapshots read back in time order, a page at a time, levels exact', async () => {
    const books = Array.from({ length: 7 }, (_, i) => ({
      bids: [[0.1 + 0.2, 10 + i] as [number, number]],
      asks: [[0.7, 1.000001 * i] as [number, number]],
      tick_size: 0.01,
    }));
    await repo.insertMany(
      books.map((b, i) => ({ bookId: bookA, tsMs: T0 + i * 30_000, levels: encodeBook(b) })),
    );
    await repo.insertMany([{ bookId: bookB, tsMs: T0, levels: encodeBook(books[0] ?? books[1]!) }]);
    // A duplicate (same book, same millisecond) is ignored, not an error.
    await repo.insertMany([{ bookId: bookA, tsMs: T0, levels: encodeBook(books[3]!) }]);

    const seen: number[] = [];
    let after: number | null = null;
    for (;;) {
      const page = await repo.range(bookA, T0, T0 + 6 * 30_000, after, 3);
      for (const row of page) {
        seen.push(row.tsMs);
        const i = (row.tsMs - T0) / 30_000;
        assert.deepStrictEqual(decodeBook(row.levels), books[i]);
      }
      if (page.length < 3) break;
      after = page[page.length - 1]?.tsMs ?? null;
    }
    assert.deepEqual(
      seen,
      books.map((_, i) => T0 + i * 30_000),
    );
    const window = await repo.range(bookA, T0 + 30_000, T0 + 90_000, null, 100);
    assert.deepEqual(
      window.map((r) => r.tsMs),
      [T0 + 30_000, T0 + 60_000, T0 + 90_000],
    );
    assert.equal((await repo.latest(bookA))?.tsMs, T0 + 6 * 30_000);
  });

  test('retention drops every snapshot of the days before the cut, and nothing after', async () => {
    const before = await repo.range(bookA, 0, T0 + DAY_MS * 10, null, 1000);
    const cutDay = dayOf(T0) + 1;
    const kept = before.filter((r) => dayOf(r.tsMs) >= cutDay).length;
    assert.ok(kept > 0 && kept < before.length, 'the rows straddle midnight');
    const dropped = await repo.dropBefore(cutDay);
    assert.equal(dropped, before.length - kept + 1, 'book A rows of the first day, and book B');
    assert.equal((await repo.range(bookA, 0, T0 + DAY_MS * 10, null, 1000)).length, kept);
    assert.equal(await repo.latest(bookB), null);
  });

  test("one drain of 9,000 states (past SQLite's 32,766 bound variables in one statement) is written whole", async () => {
    const bookC = await repo.bookId({
      exchange: 'opinion',
      market_id: 'BIG',
      token_id: 'BIG:yes',
      svc_id: 'opinion:BIG',
      outcome: 'Yes',
    });
    const levels = encodeBook({ bids: [[0.4, 1]], asks: [[0.6, 2]], tick_size: 0.01 });
    const start = T0 + 5 * DAY_MS;
    await repo.insertMany(
      Array.from({ length: 9_000 }, (_, i) => ({ bookId: bookC, tsMs: start + i, levels })),
    );
    const rows = await repo.range(bookC, start, start + 9_000, null, 10_000);
    assert.equal(rows.length, 9_000);
    assert.deepEqual([rows[0]?.tsMs, rows.at(-1)?.tsMs], [start, start + 8_999]);
  });
});
