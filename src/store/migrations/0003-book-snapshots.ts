// Recorded order books. `recorded_books` names each book once (exchange, native market id, token) so a snapshot row
// carries a small integer instead of three strings; `book_snapshots` holds one row per recorded state: the book's
// id, the time it was recorded (ms), its UTC day (days since the epoch) and the packed levels
// (`store/book-snapshot-codec.ts`). The primary key (book_id, ts_ms) serves the range reads of GET /orderbook
// history; the day index makes retention one indexed `DELETE … WHERE day < ?`.
import { type Kysely, PostgresAdapter } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('recorded_books')
    .addColumn('id', 'integer', (c) =>
      postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('exchange', 'text', (c) => c.notNull())
    .addColumn('market_id', 'text', (c) => c.notNull())
    .addColumn('token_id', 'text', (c) => c.notNull())
    .addColumn('svc_id', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addUniqueConstraint('recorded_books_instrument_uq', ['exchange', 'market_id', 'token_id'])
    .execute();
  await db.schema
    .createTable('book_snapshots')
    .addColumn('book_id', 'integer', (c) => c.notNull())
    .addColumn('ts_ms', 'bigint', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('levels', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('book_snapshots_pk', ['book_id', 'ts_ms'])
    .execute();
  await db.schema.createIndex('book_snapshots_day_idx').on('book_snapshots').column('day').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('book_snapshots').execute();
  await db.schema.dropTable('recorded_books').execute();
}
