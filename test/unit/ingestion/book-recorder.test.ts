// The recorder's write rules with a stepped clock and an in-memory book source and sink: the first state at once
// (including a book already current at hold time), nothing for an unchanged book, at most one write per interval
// with the book as it stands at the interval's end, shared holds, and release; public trades heard on a stream,
// or polled (each trade once) where the stream carries none, as exact decimal text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OrderBook, Trade } from '../../../src/domain/book.js';
import type { Market } from '../../../src/domain/market.js';
import { BookRecorder, type BookSource, type RecorderClock } from '../../../src/ingestion/book-recorder.js';
import type { BookObserver, StreamTrade } from '../../../src/services/market-data/live-books.js';
import type { MarketTarget } from '../../../src/services/market-data/market-target.js';
import { decodeBook } from '../../../src/store/book-snapshot-codec.js';
import type { RecordedInstrument, SnapshotRow } from '../../../src/store/book-snapshots-repo.js';
import type { RecordedTradeRow } from '../../../src/store/recorded-trades-repo.js';
import type { TradesQuery, VenueAdapter } from '../../../src/venues/port.js';

class SteppedClock implements RecorderClock {
  private t = 1_000_000;
  private timers: Array<{ at: number; fn: () => void; live: boolean }> = [];

  now(): number {
    return this.t;
  }

  schedule(fn: () => void, ms: number): () => void {
    const timer = { at: this.t + ms, fn, live: true };
    this.timers.push(timer);
    return () => {
      timer.live = false;
    };
  }

  get pending(): number {
    return this.timers.filter((t) => t.live).length;
  }

  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.t = next.at;
      next.live = false;
      next.fn();
    }
    this.t = end;
    this.timers = this.timers.filter((t) => t.live);
  }
}

class FakeBooks implements BookSource {
  readonly listeners = new Map<string, BookObserver>();
  readonly current = new Map<string, OrderBook>();
  holds = 0;
  releases = 0;

  hold(_venue: VenueAdapter, _market: Market, outcome: MarketTarget['outcome'], observer?: BookObserver) {
    this.holds += 1;
    if (observer) this.listeners.set(outcome.token_id, observer);
    return {
      current: () => this.current.get(outcome.token_id) ?? null,
      release: () => {
        this.releases += 1;
        this.listeners.delete(outcome.token_id);
      },
    };
  }

  move(tokenId: string, bid: number): void {
    this.listeners.get(tokenId)?.change?.(book(tokenId, bid));
  }

  trade(tokenId: string, t: Trade, receivedMs: number): void {
    const event: StreamTrade = {
      type: 'trade',
      instrument: { market_id: 'KXT', outcome: 'Yes', token_id: tokenId },
      trade: t,
      source_channel: 'kalshi_ws_trade',
      received_ts_ms: receivedMs,
    };
    this.listeners.get(tokenId)?.trade?.(event);
  }
}

class MemorySink {
  rows: SnapshotRow[] = [];
  private ids = new Map<string, number>();

  async bookId(b: RecordedInstrument): Promise<number> {
    const key = `${b.exchange}/${b.market_id}/${b.token_id}`;
    if (!this.ids.has(key)) this.ids.set(key, this.ids.size + 1);
    return this.ids.get(key) as number;
  }

  async insertMany(rows: readonly SnapshotRow[]): Promise<void> {
    this.rows.push(...rows);
  }

  bids(): number[] {
    return this.rows.map((r) => decodeBook(r.levels).bids[0]?.[0] ?? -1);
  }
}

function book(tokenId: string, bid: number): OrderBook {
  return {
    exchange: 'kalshi',
    market_id: 'KXT',
    outcome: 'Yes',
    token_id: tokenId,
    bids: [[bid, 10]],
    asks: [[0.9, 5]],
    timestamp: new Date(0).toISOString(),
    tick_size: 0.01,
  };
}

function trade(id: string, price: number, size: number, atMs: number): Trade {
  return {
    id,
    price,
    size,
    side: 'buy',
    aggressor_side: 'buy',
    timestamp: new Date(atMs).toISOString(),
    outcome: 'Yes',
  };
}

function target(tokenId: string, venue?: Partial<VenueAdapter>): MarketTarget {
  return {
    venue: (venue ?? { descriptor: { id: 'kalshi' } }) as VenueAdapter,
    market: { svc_id: 'kalshi:KXT', exchange_market_id: 'KXT' } as Market,
    outcome: { name: 'Yes', token_id: tokenId },
  };
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function setup(intervalMs = 1_000) {
  const clock = new SteppedClock();
  const books = new FakeBooks();
  const sink = new MemorySink();
  const recorder = new BookRecorder({ books, sink, intervalMs, logger: silent, clock });
  return { clock, books, sink, recorder };
}

test('the first state is written at once; an unchanged book writes nothing', async () => {
  const { books, sink, recorder, clock } = setup();
  recorder.record(target('a'));
  books.move('a', 0.5);
  await recorder.whenWritten(1);
  clock.advance(5_000);
  books.move('a', 0.5);
  books.move('a', 0.5);
  await recorder.flush();
  assert.deepEqual(sink.bids(), [0.5]);
  assert.equal(clock.pending, 0, 'nothing scheduled for an unchanged book');
});

test('changes inside the interval are written once, at its end, as the book then stands', async () => {
  const { books, sink, recorder, clock } = setup(1_000);
  recorder.record(target('a'));
  books.move('a', 0.5);
  clock.advance(200);
  books.move('a', 0.51);
  clock.advance(200);
  books.move('a', 0.52);
  assert.equal(clock.pending, 1, 'one write waits for the end of the interval');
  clock.advance(600);
  await recorder.whenWritten(2);
  assert.deepEqual(sink.bids(), [0.5, 0.52]);
  assert.deepEqual(
    sink.rows.map((r) => r.tsMs - (sink.rows[0]?.tsMs ?? 0)),
    [0, 1_000],
  );
  // A change after a quiet interval is written at once.
  clock.advance(3_000);
  books.move('a', 0.53);
  await recorder.whenWritten(3);
  assert.equal((sink.rows[2]?.tsMs ?? 0) - (sink.rows[1]?.tsMs ?? 0), 3_000);
});

test('a book that moves and comes back inside the interval writes nothing more', async () => {
  const { books, sink, recorder, clock } = setup(1_000);
  recorder.record(target('a'));
  books.move('a', 0.5);
  clock.advance(100);
  books.move('a', 0.6);
  clock.advance(100);
  books.move('a', 0.5);
  clock.advance(1_000);
  await recorder.flush();
  assert.deepEqual(sink.bids(), [0.5]);
});

test('a book already current when recording starts is written at hold time', async () => {
  const { books, sink, recorder } = setup();
  books.current.set('a', book('a', 0.42));
  recorder.record(target('a'));
  await recorder.whenWritten(1);
  assert.deepEqual(sink.bids(), [0.42]);
});

test('two recorders of one book share one hold; the last release ends it', async () => {
  const { books, recorder } = setup();
  const first = recorder.record(target('a'));
  const second = recorder.recordWhileHeld(target('a'));
  assert.equal(books.holds, 1);
  assert.equal(recorder.recordingCount, 1);
  first();
  first();
  assert.equal(books.releases, 0);
  second();
  assert.equal(books.releases, 1);
  assert.equal(recorder.recordingCount, 0);
});

test('a released book cancels its pending write; close releases everything', async () => {
  const { books, sink, recorder, clock } = setup(1_000);
  const release = recorder.record(target('a'));
  recorder.record(target('b'));
  books.move('a', 0.5);
  books.move('a', 0.6);
  assert.equal(clock.pending, 1);
  release();
  assert.equal(clock.pending, 0);
  await recorder.close();
  assert.equal(books.releases, 2);
  assert.deepEqual(sink.bids(), [0.5]);
  assert.throws(() => recorder.record(target('c')), /closed/);
});

test('a failed write is reported and the book is written again on its next change', async () => {
  const { books, sink, recorder, clock } = setup(10);
  let fail = true;
  const insert = sink.insertMany.bind(sink);
  sink.insertMany = async (rows) => {
    if (fail) throw new Error('disk full');
    await insert(rows);
  };
  recorder.record(target('a'));
  books.move('a', 0.5);
  await recorder.flush();
  assert.equal(recorder.lastError, 'disk full');
  fail = false;
  clock.advance(10);
  books.move('a', 0.5);
  await recorder.whenWritten(1);
  assert.equal(recorder.lastError, null);
  assert.deepEqual(sink.bids(), [0.5]);
});

class MemoryTrades {
  rows: RecordedTradeRow[] = [];
  async insertMany(rows: readonly RecordedTradeRow[]): Promise<void> {
    this.rows.push(...rows);
  }
}

test('a streamed trade is written with the venue time, our time and exact decimal text', async () => {
  const clock = new SteppedClock();
  const books = new FakeBooks();
  const sink = new MemorySink();
  const trades = new MemoryTrades();
  const recorder = new BookRecorder({ books, sink, trades, intervalMs: 1_000, logger: silent, clock });
  const venue = { descriptor: { id: 'kalshi', features: { streamTrades: true } } } as unknown as VenueAdapter;
  recorder.record(target('a', venue));
  books.trade('a', trade('t1', 0.1 + 0.2, 12.5, 1_700_000_000_123), 1_700_000_000_456);
  await recorder.flush();
  assert.equal(recorder.tradesWritten, 1);
  assert.deepEqual(trades.rows, [
    {
      bookId: 1,
      tradeId: 't1',
      tsMs: 1_700_000_000_123,
      ingestMs: 1_700_000_000_456,
      // The double's shortest spelling, exactly: no rounding to a guessed tick.
      price: '0.30000000000000004',
      size: '12.5',
      side: 'buy',
      aggressorSide: 'buy',
      sourceChannel: 'kalshi_ws_trade',
    },
  ]);
});

test('a venue without stream trades is polled each interval from the newest trade seen, each trade once', async () => {
  const clock = new SteppedClock();
  const books = new FakeBooks();
  const sink = new MemorySink();
  const trades = new MemoryTrades();
  const start = clock.now();
  // The venue's tape, newest first as fetchTrades answers.
  let tape: Trade[] = [trade('old', 0.4, 1, start - 5_000)];
  const queries: TradesQuery[] = [];
  const venue = {
    descriptor: { id: 'limitless', features: { streamTrades: false } },
    marketData: {
      async fetchTrades(_ctx: unknown, _m: Market, _o: string, q: TradesQuery) {
        queries.push(q);
        return {
          trades: tape.filter((t) => q.startTs === null || Date.parse(t.timestamp) >= q.startTs * 1000),
          cursor: null,
          sourceChannel: 'limitless_market_events',
        };
      },
    },
  } as unknown as VenueAdapter;
  const recorder = new BookRecorder({ books, sink, trades, intervalMs: 1_000, logger: silent, clock });
  const release = recorder.record(target('a', venue));
  await recorder.flush();
  assert.equal(trades.rows.length, 0, 'a trade before recording started is not backfilled');
  tape = [trade('t2', 0.52, 3, start + 400), trade('t1', 0.51, 2, start + 300), ...tape];
  clock.advance(1_000);
  await new Promise((r) => setImmediate(r));
  await recorder.flush();
  tape = [trade('t3', 0.53, 1, start + 1_200), ...tape];
  clock.advance(1_000);
  await new Promise((r) => setImmediate(r));
  await recorder.flush();
  assert.deepEqual(
    trades.rows.map((r) => [r.tradeId, r.price, r.size, r.sourceChannel]),
    [
      ['t1', '0.51', '2', 'limitless_market_events'],
      ['t2', '0.52', '3', 'limitless_market_events'],
      ['t3', '0.53', '1', 'limitless_market_events'],
    ],
  );
  assert.equal(queries.length, 3);
  // Each poll asks from the second of the newest trade seen before it.
  assert.equal(queries[2]?.startTs, Math.floor((start + 400) / 1000));
  release();
  assert.equal(clock.pending, 0, 'a released book polls no more');
});
