// Keyword search with another status given (PostgreSQL; SQLite's FTS5 answers status as a tag token in its MATCH).
// The active share has its own GIN indexes (0024, 0026); every other status shared indexes over all rows, so a
// search with `status=closed` fetched the heap row of every match of every status to check `status` and threw
// most away: at a million markets, three quarters active, `warriors knicks` matched 5,485 rows of which 945 were
// closed, and its page and count each read 5,400 heap pages (2.3 s for its first request on a loaded machine).
// Each other status gets partial indexes of its own, as active has, and the all-status ones go: every search names
// one status (the filter has no `all`), so none of them was read once each status had its own. A row is in one
// status's indexes, so the total GIN size stays what it was and a write updates fewer indexes than before.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

/** Every status but active (which has its own since 0024 and 0026); the market status enum (domain/market.ts). */
const OTHER_STATUSES = ['closed', 'resolved', 'archived'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const status of OTHER_STATUSES) {
    const where = sql`where status = ${sql.lit(status)}`;
    await sql`create index ${sql.id(`markets_${status}_tsv_question_idx`)} on markets using gin (tsv_question)
      ${where}`.execute(db);
    await sql`create index ${sql.id(`markets_${status}_tsv_all_idx`)} on markets using gin (tsv_all)
      ${where}`.execute(db);
    await sql`create index ${sql.id(`markets_${status}_tsv_desc_only_idx`)} on markets
      using gin (ts_delete(tsv_all, tsvector_to_array(tsv_question))) ${where}`.execute(db);
  }
  await sql`drop index markets_tsv_question_idx`.execute(db);
  await sql`drop index markets_tsv_all_idx`.execute(db);
  await sql`drop index markets_tsv_desc_only_idx`.execute(db);
  await sql`analyze markets`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create index markets_tsv_question_idx on markets using gin (tsv_question)`.execute(db);
  await sql`create index markets_tsv_all_idx on markets using gin (tsv_all)`.execute(db);
  await sql`create index markets_tsv_desc_only_idx on markets
    using gin (ts_delete(tsv_all, tsvector_to_array(tsv_question)))`.execute(db);
  for (const status of OTHER_STATUSES) {
    for (const kind of ['tsv_question', 'tsv_all', 'tsv_desc_only']) {
      await sql`drop index ${sql.id(`markets_${status}_${kind}_idx`)}`.execute(db);
    }
  }
}
