// Every same_market link carries a resolution check (issue 32): each side's deadline and settlement source and the
// differences found, stored as JSON beside the link's evidence. Null on rows written before this migration and on
// co_dependent rows; the engine rewrites every link on the first pass after an upgrade (the lexicon version is part
// of each market's fingerprint).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('market_links').addColumn('resolution_check', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('market_links').dropColumn('resolution_check').execute();
}
