// The count of a keyword search (PostgreSQL). A list's total is every match across question and description (every
// tier), counted up to a cap; it was counted tier by tier, the question tier as a walk that had to find cap + 1
// matches, tens of thousands of walked rows for a common word at a million markets (30-200 ms measured, most of a
// query's first request). One GIN condition answers it: every word somewhere in `tsv_all`. This partial index holds
// the active rows' `tsv_all` alone, so the default search's count reads only the active share's posting lists and
// needs no heap row to recheck `status`.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create index markets_active_tsv_all_idx on markets using gin (tsv_all)
    where status = 'active'`.execute(db);
  await sql`analyze markets`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop index markets_active_tsv_all_idx`.execute(db);
}
