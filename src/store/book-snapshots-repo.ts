// SQL for recorded order books: the id of each recorded instrument, snapshot rows written in batches, a range read
// in time order for GET /orderbook history, and retention as one indexed delete of whole days.
import type { Kysely } from 'kysely';
import type { ExchangeId } from '../domain/exchanges.js';
import type { Database } from './schema.js';

export interface RecordedInstrument {
  exchange: ExchangeId;
  market_id: string;
  token_id: string;
  svc_id: string;
  outcome: string;
}

export interface SnapshotRow {
  bookId: number;
  tsMs: number;
  /** The packed levels (book-snapshot-codec.ts). */
  levels: Buffer;
}

const DAY_MS = 86_400_000;

/**
 * Rows per INSERT statement. SQLite binds at most 32,766 variables to a statement and PostgreSQL 65,535; at 4 columns
 * a snapshot (and 10 a recorded trade) 1,000 rows stay well inside both.
 */
export const INSERT_ROWS = 1_000;

/** The UTC day (days since the epoch) a time falls in: the retention key. */
export function dayOf(tsMs: number): number {
  return Math.floor(tsMs / DAY_MS);
}

export class BookSnapshotsRepo {
  private readonly ids = new Map<string, number>();

  constructor(private readonly db: Kysely<Database>) {}

  /** The id of a recorded instrument, created on first use (and remembered: ids never change). */
  async bookId(book: RecordedInstrument): Promise<number> {
    const key = instrumentKey(book.exchange, book.market_id, book.token_id);
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    await this.db
      .insertInto('recorded_books')
      .values(book)
      .onConflict((oc) => oc.columns(['exchange', 'market_id', 'token_id']).doNothing())
      .execute();
    const id = await this.findBookId(book.exchange, book.market_id, book.token_id);
    if (id === null) throw new Error(`recorded book ${key} vanished after insert`);
    return id;
  }

  /** The id of an instrument that has been recorded, or null when it never was. */
  async findBookId(exchange: ExchangeId, marketId: string, tokenId: string): Promise<number | null> {
    const key = instrumentKey(exchange, marketId, tokenId);
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    const row = await this.db
      .selectFrom('recorded_books')
      .select('id')
      .where('exchange', '=', exchange)
      .where('market_id', '=', marketId)
      .where('token_id', '=', tokenId)
      .executeTakeFirst();
    if (!row) return null;
    this.ids.set(key, row.id);
    return row.id;
  }

  /**
   * Writes snapshots, `INSERT_ROWS` to a statement (a drain after a stall can hold thousands, past SQLite's bound
   * variables per statement); a row already stored for the same book and millisecond is kept.
   */
  async insertMany(rows: readonly SnapshotRow[]): Promise<void> {
    for (let at = 0; at < rows.length; at += INSERT_ROWS) {
      await this.db
        .insertInto('book_snapshots')
        .values(
          rows
            .slice(at, at + INSERT_ROWS)
            .map((r) => ({ book_id: r.bookId, ts_ms: r.tsMs, day: dayOf(r.tsMs), levels: r.levels })),
        )
        .onConflict((oc) => oc.columns(['book_id', 'ts_ms']).doNothing())
        .execute();
    }
  }

  /** Snapshots of one book with `fromMs <= ts_ms <= toMs` and `ts_ms > afterMs`, oldest first. */
  async range(
    bookId: number,
    fromMs: number,
    toMs: number,
    afterMs: number | null,
    limit: number,
  ): Promise<Array<{ tsMs: number; levels: Buffer }>> {
    let q = this.db
      .selectFrom('book_snapshots')
      .select(['ts_ms', 'levels'])
      .where('book_id', '=', bookId)
      .where('ts_ms', '>=', fromMs)
      .where('ts_ms', '<=', toMs);
    if (afterMs !== null) q = q.where('ts_ms', '>', afterMs);
    const rows = await q.orderBy('ts_ms').limit(limit).execute();
    return rows.map((r) => ({ tsMs: Number(r.ts_ms), levels: Buffer.from(r.levels) }));
  }

  /** The newest snapshot of a book (the recorder compares against it after a restart), or null. */
  async latest(bookId: number): Promise<{ tsMs: number; levels: Buffer } | null> {
    const row = await this.db
      .selectFrom('book_snapshots')
      .select(['ts_ms', 'levels'])
      .where('book_id', '=', bookId)
      .orderBy('ts_ms', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { tsMs: Number(row.ts_ms), levels: Buffer.from(row.levels) } : null;
  }

  /** Every recorded instrument with its id, in id order (replay loads a window of all of them). */
  async books(): Promise<Array<RecordedInstrument & { id: number }>> {
    const rows = await this.db.selectFrom('recorded_books').selectAll().orderBy('id').execute();
    return rows.map((r) => ({
      id: r.id,
      exchange: r.exchange as ExchangeId,
      market_id: r.market_id,
      token_id: r.token_id,
      svc_id: r.svc_id,
      outcome: r.outcome,
    }));
  }

  /** The newest snapshot of a book at or before `tsMs` (its state when a replay starts there), or null. */
  async atOrBefore(bookId: number, tsMs: number): Promise<{ tsMs: number; levels: Buffer } | null> {
    const row = await this.db
      .selectFrom('book_snapshots')
      .select(['ts_ms', 'levels'])
      .where('book_id', '=', bookId)
      .where('ts_ms', '<=', tsMs)
      .orderBy('ts_ms', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { tsMs: Number(row.ts_ms), levels: Buffer.from(row.levels) } : null;
  }

  /** Deletes every snapshot recorded before UTC day `day`; returns how many rows went. */
  async dropBefore(day: number): Promise<number> {
    const result = await this.db.deleteFrom('book_snapshots').where('day', '<', day).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function instrumentKey(exchange: string, marketId: string, tokenId: string): string {
  return `${exchange}\u0000${marketId}\u0000${tokenId}`;
}
