// Records L2 snapshots of the books it is asked to record, for GET /orderbook history. Each book is held on its
// venue's stream through LiveBooks (venues without a native stream poll behind the same interface), so a recorded
// book costs no request of its own beyond the stream. A state is written when it differs from the last one written
// for that book (a byte comparison of the packed levels), and at most once per `intervalMs`: a change inside the
// interval is written when the interval ends, as the book then stands. Rows are written in batches by one writer
// so a burst of changes never piles up concurrent inserts.
import type { OrderBook } from '../domain/book.js';
import type { BookHold } from '../services/market-data/live-books.js';
import type { MarketTarget } from '../services/market-data/market-target.js';
import { encodeBook } from '../store/book-snapshot-codec.js';
import type { RecordedInstrument, SnapshotRow } from '../store/book-snapshots-repo.js';
import type { LoggerLike, VenueAdapter } from '../venues/port.js';

/** What the recorder needs of LiveBooks. */
export interface BookSource {
  hold(
    venue: VenueAdapter,
    market: MarketTarget['market'],
    outcome: MarketTarget['outcome'],
    onChange?: (book: OrderBook) => void,
  ): BookHold;
}

/** What the recorder needs of BookSnapshotsRepo. */
export interface SnapshotSink {
  bookId(book: RecordedInstrument): Promise<number>;
  insertMany(rows: readonly SnapshotRow[]): Promise<void>;
}

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
}

interface QueuedRow {
  recording: Recording;
  tsMs: number;
  levels: Buffer;
}

export class BookRecorder {
  private readonly recordings = new Map<string, Recording>();
  private readonly clock: RecorderClock;
  private queue: QueuedRow[] = [];
  private writing: Promise<void> | null = null;
  private writtenCount = 0;
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
      };
      fresh.hold = this.options.books.hold(target.venue, target.market, target.outcome, (book) =>
        this.changed(fresh, book),
      );
      this.recordings.set(key, fresh);
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

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
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

  private settleWaiters(): void {
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.writtenCount >= w.target) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }
}
