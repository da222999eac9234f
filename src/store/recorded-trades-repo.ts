// SQL for recorded public trades (migration 0018): batched writes that keep the first copy of a trade heard twice, a
// range read in venue-time order for replay, and retention by whole UTC days as for book snapshots.
import type { Kysely } from 'kysely';
import { dayOf, INSERT_ROWS } from './book-snapshots-repo.js';
import type { Database, RecordedTradesTable } from './schema.js';

/** One recorded trade of a recorded instrument (`recorded_books.id`). */
export interface RecordedTradeRow {
  bookId: number;
  tradeId: string;
  /** The venue's time of the trade, Unix ms. */
  tsMs: number;
  /** When we heard it, Unix ms. */
  ingestMs: number;
  /** Exact decimal text. */
  price: string;
  size: string;
  side: 'buy' | 'sell';
  aggressorSide: 'buy' | 'sell' | null;
  sourceChannel: string;
}

/** Where a range read resumes: after this trade in (ts_ms, trade_id) order. */
export interface TradeCursor {
  tsMs: number;
  tradeId: string;
}

export class RecordedTradesRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Writes trades, `INSERT_ROWS` to a statement (within both dialects' bound-variable limits); a trade already
   * stored for the book (same venue id) is kept as it was.
   */
  async insertMany(rows: readonly RecordedTradeRow[]): Promise<void> {
    for (let at = 0; at < rows.length; at += INSERT_ROWS) {
      await this.db
        .insertInto('recorded_trades')
        .values(rows.slice(at, at + INSERT_ROWS).map(toColumns))
        .onConflict((oc) => oc.columns(['book_id', 'trade_id']).doNothing())
        .execute();
    }
  }

  /** Trades of one book with `fromMs <= ts_ms <= toMs`, after `after` when given, oldest first. */
  async range(
    bookId: number,
    fromMs: number,
    toMs: number,
    after: TradeCursor | null,
    limit: number,
  ): Promise<RecordedTradeRow[]> {
    let q = this.db
      .selectFrom('recorded_trades')
      .selectAll()
      .where('book_id', '=', bookId)
      .where('ts_ms', '>=', fromMs)
      .where('ts_ms', '<=', toMs);
    if (after !== null) {
      q = q.where((eb) =>
        eb.or([
          eb('ts_ms', '>', after.tsMs),
          eb.and([eb('ts_ms', '=', after.tsMs), eb('trade_id', '>', after.tradeId)]),
        ]),
      );
    }
    const rows = await q.orderBy('ts_ms').orderBy('trade_id').limit(limit).execute();
    return rows.map(fromColumns);
  }

  /** Deletes every trade of a UTC day before `day`; returns how many rows went. */
  async dropBefore(day: number): Promise<number> {
    const result = await this.db.deleteFrom('recorded_trades').where('day', '<', day).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function toColumns(r: RecordedTradeRow): RecordedTradesTable {
  return {
    book_id: r.bookId,
    trade_id: r.tradeId,
    ts_ms: r.tsMs,
    ingest_ms: r.ingestMs,
    day: dayOf(r.tsMs),
    price: r.price,
    size: r.size,
    side: r.side,
    aggressor_side: r.aggressorSide,
    source_channel: r.sourceChannel,
  };
}

function fromColumns(r: RecordedTradesTable): RecordedTradeRow {
  return {
    bookId: r.book_id,
    tradeId: r.trade_id,
    tsMs: Number(r.ts_ms),
    ingestMs: Number(r.ingest_ms),
    price: r.price,
    size: r.size,
    side: r.side,
    aggressorSide: r.aggressor_side,
    sourceChannel: r.source_channel,
  };
}
