// Foundation tables: API keys (hashed, never in clear) and persisted monthly request counters.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('is_builder', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('qps_limit', 'double precision')
    .addColumn('burst', 'double precision')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_customer_idx').on('api_keys').column('customer_id').execute();

  await db.schema
    .createTable('usage_monthly')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_monthly_pk', ['key_id', 'period'])
    .execute();

  await db.schema
    .createTable('schema_meta')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('schema_meta').execute();
  await db.schema.dropTable('usage_monthly').execute();
  await db.schema.dropTable('api_keys').execute();
}
