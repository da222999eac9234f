// Keyword search at a million markets (PostgreSQL; SQLite's FTS5 returns matches in rowid = seq order already and
// needs nothing new). GIN says which rows hold the words, not in which order, so a page had to either walk `seq`
// reading every fat heap row or fetch every match and sort it, and the planner, guessing how many rows two words
// share, picked the wrong one by orders of magnitude.
// - `markets_question_walk_idx`: (status, seq) carrying the question's tsvector and every other filter column, so
//   a tier-1 page walks seq as an index-only scan over narrow tuples (MarketsRepo's windowed scan).
// - `markets_tsv_desc_only_idx`: the description's words that are not in the question. Tier 2 ("every word across
//   question and description, not every word in the question") was a negation no index answers; with this it is
//   a positive condition the planner estimates and a GIN bitmap answers.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create index markets_question_walk_idx on markets (status, seq)
    include (exchange, volume_total, liquidity, tsv_question)`.execute(db);
  await sql`create index markets_tsv_desc_only_idx on markets
    using gin (ts_delete(tsv_all, tsvector_to_array(tsv_question)))`.execute(db);
  // The planner's estimates for the new expression come from ANALYZE.
  await sql`analyze markets`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop index markets_tsv_desc_only_idx`.execute(db);
  await sql`drop index markets_question_walk_idx`.execute(db);
}
