// Records L2 snapshots of the books it is asked to record, for GET /orderbook history. Each book is held on its
// venue's stream through LiveBooks (venues without a native stream poll behind the same interface), so a recorded
// book costs no request of its own beyond the stream. A state is written when it differs from the last one written
// for that book (a byte comparison of the packed levels), and at most once per `intervalMs`: a change inside the
// interval is written when the interval ends, as the book then stands. Rows are written in batches by one writer
// so a burst of changes never piles up concurrent inserts.
//
// With a trade sink it also records each book's public trades (for replay, issue 38): heard on the venue's stream
// where it carries them (`descriptor.features.streamTrades`), else read with `fetchTrades` once per `intervalMs`
// (at least TRADE_POLL_MIN_MS apart: the newest page since the last trade seen). Every trade is written by the
// same writer, with the venue's time and ours; price and size become exact decimal text once, here, from the
// number the adapter parsed.
import type { OrderBook, Trade } from '../domain/book.js';
import { Decimal } from '../domain/decimal.js';
import type { BookHold, BookObserver, StreamTrade } from '../services/market-data/live-books.js';
import type { MarketTarget } from '../services/market-data/market-target.js';
import { encodeBook } from '../store/book-snapshot-codec.js';
import type { RecordedInstrument, SnapshotRow } from '../store/book-snapshots-repo.js';
import type { RecordedTradeRow } from '../store/recorded-trades-repo.js';
import type { LoggerLike, VenueAdapter } from '../venues/port.js';

/** What the recorder needs of LiveBooks. */
export interface BookSource {
  hold(
    venue: VenueAdapter,
    market: MarketTarget['market'],
    outcome: MarketTarget['outcome'],
    observer?: BookObserver,
  ): BookHold;
}

/** What the recorder needs of BookSnapshotsRepo. */
export interface SnapshotSink {
  bookId(book: RecordedInstrument): Promise<number>;
  insertMany(rows: readonly SnapshotRow[]): Promise<void>;
}

/** What the recorder needs of RecordedTradesRepo. */
export interface TradeSink {
  insertMany(rows: readonly RecordedTradeRow[]): Promise<void>;
}

/** Rows per trade insert: 10 bound values a row stays under SQLite's and PostgreSQL's parameter limits. */
const TRADE_INSERT_MAX = 1_000;

/** The shortest pause between two trade reads of one book: a REST read, where the book interval may be 10 ms. */
export const TRADE_POLL_MIN_MS = 250;

/** Trades asked of `fetchTrades` per poll: the newest page since the last one seen. */
export const TRADE_POLL_LIMIT = 100;

/** Time and timers, injectable so tests step them. */
export interface RecorderClock {
  now(): number;
  /** Runs `fn` after `ms`; returns a cancel function. */
  schedule(fn: () => void, ms: number): () => void;
}

const systemClock: RecorderClock = {
  now: () => Date.now(),
  schedule(fn, ms) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface BookRecorderOptions {
  books: BookSource;
  sink: SnapshotSink;
  intervalMs: number;
  logger: LoggerLike;
  clock?: RecorderClock;
  /** Where public trades go; absent, no trade is recorded. */
  trades?: TradeSink;
}

interface Recording {
  key: string;
  refs: number;
  hold: BookHold | null;
  instrument: RecordedInstrument;
  latest: OrderBook | null;
  lastWritten: Buffer | null;
  lastWriteMs: number;
  cancelPending: (() => void) | null;
  /** Polling venues: the pending poll's timer, and where the next poll starts. */
  poll: TradePoll | null;
}

interface TradePoll {
  target: MarketTarget;
  cancel: (() => void) | null;
  abort: AbortController;
  /** The venue time of the newest trade seen (the next poll asks from its second), and the ids seen in it. */
  highMs: number;
  idsAtHigh: Set<string>;
}

interface QueuedRow {
  recording: Recording;
  tsMs: number;
  levels: Buffer;
}

type QueuedTrade = Omit<RecordedTradeRow, 'bookId'> & { recording: Recording };

export class BookRecorder {
  private readonly recordings = new Map<string, Recording>();
  private readonly clock: RecorderClock;
  private queue: QueuedRow[] = [];
  private tradeQueue: QueuedTrade[] = [];
  private writing: Promise<void> | null = null;
  private writtenCount = 0;
  private tradesWrittenCount = 0;
  private waiters: Array<{ target: number; resolve: () => void }> = [];
  private lastErrorText: string | null = null;
  private closed = false;

  constructor(private readonly options: BookRecorderOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Records one outcome's book until the returned function is called. Several callers may record the same book:
   * it is held once and released with the last of them. Throws what LiveBooks throws for a book that cannot be
   * followed (an outcome the venue refuses), leaving nothing behind.
   */
  record(target: MarketTarget): () => void {
    if (this.closed) throw new Error('the book recorder is closed');
    const instrument: RecordedInstrument = {
      exchange: target.venue.descriptor.id,
      market_id: target.market.exchange_market_id,
      token_id: target.outcome.token_id,
      svc_id: target.market.svc_id,
      outcome: target.outcome.name,
    };
    const key = `${instrument.exchange}\u0000${instrument.market_id}\u0000${instrument.token_id}`;
    let recording = this.recordings.get(key);
    if (!recording) {
      const fresh: Recording = {
        key,
        refs: 0,
        hold: null,
        instrument,
        latest: null,
        lastWritten: null,
        lastWriteMs: Number.NEGATIVE_INFINITY,
        cancelPending: null,
        poll: null,
      };
      const observer: BookObserver = { change: (book) => this.changed(fresh, book) };
      const recordTrades = this.options.trades !== undefined;
      if (recordTrades && target.venue.descriptor.features.streamTrades)
        observer.trade = (event) => this.streamTraded(fresh, event);
      fresh.hold = this.options.books.hold(target.venue, target.market, target.outcome, observer);
      this.recordings.set(key, fresh);
      if (
        recordTrades &&
        !target.venue.descriptor.features.streamTrades &&
        target.venue.marketData.fetchTrades
      )
        this.startPolling(fresh, target);
      recording = fresh;
      // A book another holder already follows is current now: record it at once rather than at its next move.
      const current = fresh.hold.current();
      if (current) this.changed(fresh, current);
    }
    const held = recording;
    held.refs += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.refs -= 1;
      if (held.refs === 0) this.stop(held);
    };
  }

  /**
   * Records a book for as long as someone holds it — the hook the WebSocket gateway calls for each book a client
   * subscribes to (and releases on unsubscribe or disconnect), so every subscribed book gains history.
   */
  recordWhileHeld(target: MarketTarget): () => void {
    return this.record(target);
  }

  /** How many distinct books are being recorded. */
  get recordingCount(): number {
    return this.recordings.size;
  }

  /** Snapshots written to the store since start. */
  get written(): number {
    return this.writtenCount;
  }

  /** Public trades written to the store since start (a trade heard twice counts once per hearing). */
  get tradesWritten(): number {
    return this.tradesWrittenCount;
  }

  /** The last write failure, or null when the last batch was stored. */
  get lastError(): string | null {
    return this.lastErrorText;
  }

  /** Resolves once `count` snapshots have been written in total (or the recorder closes). */
  whenWritten(count: number): Promise<void> {
    if (this.writtenCount >= count || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ target: count, resolve }));
  }

  /** Resolves when every snapshot taken so far is in the store. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Stops every recording, writes what was taken, and refuses new ones. */
  async close(): Promise<void> {
    this.closed = true;
    for (const recording of [...this.recordings.values()]) this.stop(recording);
    await this.flush();
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  private stop(recording: Recording): void {
    recording.cancelPending?.();
    recording.cancelPending = null;
    if (recording.poll) {
      recording.poll.cancel?.();
      recording.poll.abort.abort();
      recording.poll = null;
    }
    recording.hold?.release();
    if (this.recordings.get(recording.key) === recording) this.recordings.delete(recording.key);
  }

  private changed(recording: Recording, book: OrderBook): void {
    recording.latest = book;
    this.consider(recording);
  }

  private consider(recording: Recording): void {
    // A write is already scheduled for the end of the interval: it will take the book as it then stands.
    if (recording.cancelPending || !recording.latest) return;
    if (this.recordings.get(recording.key) !== recording) return;
    const levels = encodeBook({
      bids: recording.latest.bids,
      asks: recording.latest.asks,
      tick_size: recording.latest.tick_size,
    });
    if (recording.lastWritten?.equals(levels)) return;
    const now = this.clock.now();
    const due = recording.lastWriteMs + this.options.intervalMs;
    if (now < due) {
      recording.cancelPending = this.clock.schedule(() => {
        recording.cancelPending = null;
        this.consider(recording);
      }, due - now);
      return;
    }
    recording.lastWritten = levels;
    recording.lastWriteMs = now;
    this.queue.push({ recording, tsMs: now, levels });
    this.writing ??= this.drain();
  }

  private streamTraded(recording: Recording, event: StreamTrade): void {
    if (this.recordings.get(recording.key) !== recording) return;
    this.queueTrade(recording, event.trade, event.received_ts_ms, event.source_channel);
  }

  private queueTrade(recording: Recording, trade: Trade, ingestMs: number, sourceChannel: string): void {
    const tsMs = Date.parse(trade.timestamp);
    if (!Number.isFinite(tsMs)) {
      this.options.logger.warn(
        { trade: trade.id, timestamp: trade.timestamp },
        'trade without a time not recorded',
      );
      return;
    }
    this.tradeQueue.push({
      recording,
      tradeId: trade.id,
      tsMs,
      ingestMs,
      price: Decimal.fromNumber(trade.price).toString(),
      size: Decimal.fromNumber(trade.size).toString(),
      side: trade.side,
      aggressorSide: trade.aggressor_side,
      sourceChannel,
    });
    this.writing ??= this.drain();
  }

  private startPolling(recording: Recording, target: MarketTarget): void {
    recording.poll = {
      target,
      cancel: null,
      abort: new AbortController(),
      // From the second recording started: a first poll does not backfill the venue's older tape.
      highMs: Math.floor(this.clock.now() / 1000) * 1000,
      idsAtHigh: new Set(),
    };
    void this.pollTrades(recording);
  }

  /** One `fetchTrades` read of the newest page since the last trade seen; the next is scheduled when it ends. */
  private async pollTrades(recording: Recording): Promise<void> {
    const poll = recording.poll;
    if (!poll || this.recordings.get(recording.key) !== recording) return;
    poll.cancel = null;
    const { venue, market, outcome } = poll.target;
    const fetchTrades = venue.marketData.fetchTrades;
    if (!fetchTrades) return;
    try {
      const page = await fetchTrades.call(
        venue.marketData,
        {
          signal: poll.abort.signal,
          requestId: 'book-recorder',
          logger: this.options.logger,
          tenant: null,
        },
        market,
        outcome.name,
        { limit: TRADE_POLL_LIMIT, startTs: Math.floor(poll.highMs / 1000), endTs: null, cursor: null },
      );
      if (recording.poll !== poll) return;
      const ingestMs = this.clock.now();
      // The page is newest first: queue oldest first so rows are written in time order.
      for (const trade of [...page.trades].reverse()) {
        const tsMs = Date.parse(trade.timestamp);
        if (!(tsMs >= poll.highMs) || (tsMs === poll.highMs && poll.idsAtHigh.has(trade.id))) continue;
        if (tsMs > poll.highMs) {
          poll.highMs = tsMs;
          poll.idsAtHigh = new Set();
        }
        poll.idsAtHigh.add(trade.id);
        this.queueTrade(recording, trade, ingestMs, page.sourceChannel);
      }
    } catch (error) {
      if (recording.poll !== poll) return;
      this.options.logger.warn(
        { err: error, exchange: venue.descriptor.id, market: market.exchange_market_id },
        'recorded trades not read',
      );
    }
    if (recording.poll !== poll) return;
    poll.cancel = this.clock.schedule(
      () => void this.pollTrades(recording),
      Math.max(this.options.intervalMs, TRADE_POLL_MIN_MS),
    );
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0 || this.tradeQueue.length > 0) {
        if (this.tradeQueue.length > 0) await this.drainTrades();
        if (this.queue.length === 0) continue;
        const batch = this.queue;
        this.queue = [];
        try {
          const rows = await Promise.all(
            batch.map(async (q) => ({
              bookId: await this.options.sink.bookId(q.recording.instrument),
              tsMs: q.tsMs,
              levels: q.levels,
            })),
          );
          await this.options.sink.insertMany(rows);
          this.writtenCount += rows.length;
          this.lastErrorText = null;
        } catch (error) {
          // The batch is lost; the next change of each book is compared against nothing and written again.
          for (const q of batch) q.recording.lastWritten = null;
          this.lastErrorText = (error as Error).message;
          this.options.logger.warn({ err: error, rows: batch.length }, 'book snapshots not written');
        }
        this.settleWaiters();
      }
    } finally {
      this.writing = null;
    }
  }

  private async drainTrades(): Promise<void> {
    const sink = this.options.trades;
    const batch = this.tradeQueue;
    this.tradeQueue = [];
    if (!sink) return;
    try {
      const rows = await Promise.all(
        batch.map(async ({ recording, ...trade }) => ({
          ...trade,
          bookId: await this.options.sink.bookId(recording.instrument),
        })),
      );
      for (let i = 0; i < rows.length; i += TRADE_INSERT_MAX) {
        const chunk = rows.slice(i, i + TRADE_INSERT_MAX);
        await sink.insertMany(chunk);
        this.tradesWrittenCount += chunk.length;
      }
      this.lastErrorText = null;
    } catch (error) {
      // A polled trade is read again only if it is still on the venue's newest page; a streamed one is lost.
      this.lastErrorText = (error as Error).message;
      this.options.logger.warn({ err: error, rows: batch.length }, 'recorded trades not written');
    }
  }

  private settleWaiters(): void {
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.writtenCount >= w.target) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }
}
