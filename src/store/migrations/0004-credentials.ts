// Stored exchange credentials and managed wallet keys. One row per (customer, exchange, kind): `sealed` is the
// vault's envelope (src/vault/envelope.ts) and the only column holding a secret; the rest is what /wallet and
// onboarding answer without opening it. `master_key_id` repeats the id inside `sealed` so a rotation finds the
// records it has not reached with an index instead of parsing every row.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('credentials')
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('exchange', 'text', (c) => c.notNull())
    // exchange_credentials (mode self) | managed_wallet (mode managed)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('master_key_id', 'text', (c) => c.notNull())
    .addColumn('wallet_type', 'text')
    .addColumn('signature_type', 'integer')
    .addColumn('eoa_address', 'text')
    .addColumn('funder_address', 'text')
    .addColumn('chain_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('credentials_pk', ['customer_id', 'exchange', 'kind'])
    .execute();
  await db.schema
    .createIndex('credentials_master_key_idx')
    .on('credentials')
    .column('master_key_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('credentials').execute();
}
