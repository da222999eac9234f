// Recorded trades on both dialects: batches split under the bound-variable limits, a trade heard twice is stored once, a time range reads back in (time, id)
// order a page at a time with exact decimal text, and retention drops whole days.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { BookSnapshotsRepo, dayOf } from '../../../src/store/book-snapshots-repo.js';
import { type RecordedTradeRow, RecordedTradesRepo } from '../../../src/store/recorded-trades-repo.js';
import { onBothDialects } from './dialects.js';

const DAY_MS = 86_400_000;
const T0 = Date.UTC(2026, 10, 20, 23, 59, 0);

function trade(bookId: number, tradeId: string, tsMs: number, price = '0.53'): RecordedTradeRow {
  return {
    bookId,
    tradeId,
    tsMs,
    ingestMs: tsMs + 40,
    price,
    size: '12.345678',
    side: 'buy',
    aggressorSide: null,
    sourceChannel: 'test_ws_trade',
  };
}

onBothDialects('recorded trades store', (store) => {
  let repo: RecordedTradesRepo;
  let book: number;
  let other: number;

  before(async () => {
    repo = new RecordedTradesRepo(store().db);
    const books = new BookSnapshotsRepo(store().db);
    book = await books.bookId({
      exchange: 'kalshi',
      market_id: 'KXTRADES',
      token_id: 'KXTRADES:yes',
      svc_id: 'kalshi:KXTRADES',
      outcome: 'Yes',
    });
    other = await books.bookId({
      exchange: 'kalshi',
      market_id: 'KXOTHER',
      token_id: 'KXOTHER:yes',
      svc_id: 'kalshi:KXOTHER',
      outcome: 'Yes',
    });
  });

  test('a trade heard twice is kept once, as first written', async () => {
    await repo.insertMany([trade(book, 't-dup', T0, '0.41')]);
    await repo.insertMany([trade(book, 't-dup', T0, '0.99'), trade(other, 't-dup', T0, '0.77')]);
    const mine = await repo.range(book, T0, T0, null, 10);
    assert.deepEqual(
      mine.map((t) => [t.tradeId, t.price]),
      [['t-dup', '0.41']],
    );
    const theirs = await repo.range(other, T0, T0, null, 10);
    assert.deepEqual(
      theirs.map((t) => [t.tradeId, t.price]),
      [['t-dup', '0.77']],
    );
  });

  test('a window reads in (time, id) order, a page at a time, decimals exact', async () => {
    // Two trades share a millisecond: the id orders them, and a page boundary between them loses neither.
    const rows = [
      trade(book, 'b', T0 + 1_000),
      trade(book, 'a', T0 + 1_000),
      trade(book, 'c', T0 + 2_000, '0.000001'),
      trade(book, 'd', T0 + 3_000),
    ];
    await repo.insertMany(rows);
    const seen: string[] = [];
    let after = null;
    for (;;) {
      const page = await repo.range(book, T0 + 1, T0 + 3_000, after, 1);
      if (page.length === 0) break;
      const last = page[page.length - 1]!;
      seen.push(last.tradeId);
      after = { tsMs: last.tsMs, tradeId: last.tradeId };
    }
    assert.deepEqual(seen, ['a', 'b', 'c', 'd']);
    const [c] = await repo.range(book, T0 + 2_000, T0 + 2_000, null, 5);
    assert.deepEqual(c, trade(book, 'c', T0 + 2_000, '0.000001'));
  });

  test('retention drops whole UTC days of trades', async () => {
    await repo.insertMany([trade(book, 'next-day', T0 + DAY_MS)]);
    const dropped = await repo.dropBefore(dayOf(T0 + DAY_MS));
    assert.ok(dropped >= 5, `dropped ${dropped}`);
    const left = await repo.range(book, 0, T0 + 2 * DAY_MS, null, 50);
    assert.deepEqual(
      left.map((t) => t.tradeId),
      ['next-day'],
    );
  });

  test("4,000 trades in one call (past SQLite's bound variables in one statement) are written whole", async () => {
    const start = T0 + 5 * DAY_MS;
    await repo.insertMany(Array.from({ length: 4_000 }, (_, i) => trade(other, `big-${i}`, start + i)));
    const rows = await repo.range(other, start, start + 4_000, null, 5_000);
    assert.equal(rows.length, 4_000);
  });
});
