// Keyword search at a million markets. PostgreSQL: tier 2 (every word across question and description, not every
// word in the question) was a negation no index answers, so a page of it walked `seq` through every row when few
// matched. The words of the description that are not in the question, indexed as an expression, turn it into a
// positive condition the planner estimates and a GIN bitmap answers. SQLite's FTS5 needs nothing new.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create index markets_tsv_desc_only_idx on markets
    using gin (ts_delete(tsv_all, tsvector_to_array(tsv_question)))`.execute(db);
  // The planner's estimates for the new expression come from ANALYZE.
  await sql`analyze markets`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop index markets_tsv_desc_only_idx`.execute(db);
}
