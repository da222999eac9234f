// A same_market link may join two markets that ask the same question the other way round ("X above 100" against
// "X at or below 100"): the twin's Yes is then the market's No. `inverted` (0/1) says so; every link written before
// this migration, and every link the engine writes today, asks it the same way round (0).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('market_links')
    .addColumn('inverted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('market_links').dropColumn('inverted').execute();
}
