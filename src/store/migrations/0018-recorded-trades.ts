// Recorded public trades, for replay (issue 38): the recorder keeps each recorded book's trades beside its states so
// a replay can fill resting paper orders when recorded trades cross them. One row per trade of a recorded
// instrument (`recorded_books.id`), keyed by the venue's trade id so a trade heard twice (stream, then a REST
// backfill after a reconnect) is stored once. `ts_ms` is the venue's time of the trade, `ingest_ms` ours; `day` is
// the UTC day of `ts_ms`, the retention key shared with book_snapshots. Price and size are exact decimal text.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('recorded_trades')
    .addColumn('book_id', 'integer', (c) => c.notNull())
    .addColumn('trade_id', 'text', (c) => c.notNull())
    .addColumn('ts_ms', 'bigint', (c) => c.notNull())
    .addColumn('ingest_ms', 'bigint', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('price', 'text', (c) => c.notNull())
    .addColumn('size', 'text', (c) => c.notNull())
    .addColumn('side', 'text', (c) => c.notNull())
    .addColumn('aggressor_side', 'text')
    .addColumn('source_channel', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('recorded_trades_pk', ['book_id', 'trade_id'])
    .execute();
  // Range reads of a replay window, in time order; the trade id breaks ties between trades of one millisecond.
  await db.schema
    .createIndex('recorded_trades_time_idx')
    .on('recorded_trades')
    .columns(['book_id', 'ts_ms', 'trade_id'])
    .execute();
  await db.schema.createIndex('recorded_trades_day_idx').on('recorded_trades').column('day').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('recorded_trades').execute();
}
