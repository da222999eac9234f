// The catalogue's version: one row, bumped by every write to `markets` in the same transaction. A node's cached
// list and search pages hold the version they were computed at, so a node learns of another node's (or an
// `omnibook sync` process's) writes by reading this row now and then, instead of recomputing every cached page on
// a timer: at a million markets those background recomputes, one per popular query every few seconds, took most of
// a PostgreSQL node's search throughput.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('catalogue_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into catalogue_version (id, version) values (1, 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('catalogue_version').execute();
}
