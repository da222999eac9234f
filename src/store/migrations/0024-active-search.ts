// Keyword search over the active share (PostgreSQL; SQLite's FTS5 needs nothing new, see below). Most of a venue's
// history is closed or resolved markets (about nine in ten), while the default search asks for active ones only. A
// GIN bitmap over every status fetched every matching heap row and threw nine in ten away on `status`; these
// partial indexes hold the active rows alone, so the first request of a common-enough query fetches only what it
// keeps. The planner uses them when the query's `status = 'active'` is known at planning (Kysely's statements are
// unnamed, planned with their values).
// SQLite: FTS5 answers status as a tag token in the same MATCH, in rowid order, and a page stops at its limit; the
// CPU per first request measured the same at a tenth active as at three quarters.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create index markets_active_tsv_question_idx on markets using gin (tsv_question)
    where status = 'active'`.execute(db);
  await sql`create index markets_active_tsv_desc_only_idx on markets
    using gin (ts_delete(tsv_all, tsvector_to_array(tsv_question))) where status = 'active'`.execute(db);
  await sql`analyze markets`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop index markets_active_tsv_desc_only_idx`.execute(db);
  await sql`drop index markets_active_tsv_question_idx`.execute(db);
}
