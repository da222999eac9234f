// The builder program (spec §4 builder endpoints, wire contract §5). `builders` holds one row per builder customer:
// its QPS pool and fee tier, and `pool_version`, which every change to the builder's end-users bumps first so the
// change holds a write lock on that row (a PostgreSQL row lock, SQLite's writer lock) before it reads the pool sum:
// two concurrent creations cannot both fit into the same spare QPS. `builder_users` is one row per end-user: the
// end-user's own API key (its id, and the clear key sealed by the vault, because the builder reads it back in every
// BuilderUser), the external id the builder knows it by (unique among the builder's active end-users only, so an
// external id may be onboarded again after a deactivation), and its status. `credentials.deactivated_at` lets a
// deactivation retire a customer's wallets and credentials without destroying a managed wallet's key (an operator
// may still need it to recover funds), while every read the API makes ignores them.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('builders')
    .addColumn('customer_id', 'text', (c) => c.primaryKey())
    .addColumn('qps_pool', 'real', (c) => c.notNull())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('pool_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('builder_users')
    .addColumn('customer_id', 'text', (c) => c.primaryKey())
    .addColumn('builder_id', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('eoa_address', 'text')
    .addColumn('qps_limit', 'real', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('sealed_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deactivated_at', 'text')
    .execute();
  // The list's keyset: a builder's end-users in creation order.
  await db.schema
    .createIndex('builder_users_list_idx')
    .on('builder_users')
    .columns(['builder_id', 'created_at', 'customer_id'])
    .execute();
  // external_id idempotency among active end-users (a partial index on both dialects).
  await db.schema
    .createIndex('builder_users_external_uq')
    .on('builder_users')
    .columns(['builder_id', 'external_id'])
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();
  await db.schema.alterTable('credentials').addColumn('deactivated_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('credentials').dropColumn('deactivated_at').execute();
  await db.schema.dropTable('builder_users').execute();
  await db.schema.dropTable('builders').execute();
}
