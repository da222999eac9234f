// The order journal. A row is written (customer, exchange, our client order id, the request) before the order is
// sent, so an answer lost to a timeout, a reset or a crash leaves a row to reconcile with the exchange instead of a
// blind re-send. `venue_order_id` is known before sending where the exchange's id is computed by the client
// (Polymarket's order hash) and after the answer otherwise (Kalshi). `idempotency_key` (unique per customer) makes
// a retried POST /orders return the first result; `request_hash` tells a retry from a different order under the
// same key. `order_doc` is the last Order the exchange confirmed (JSON text), `error_code`/`error_message` the
// rejection the first answer carried. Timestamps are Unix ms so the reconciler can compare them in SQL.
import { type Kysely, PostgresAdapter } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('order_journal')
    .addColumn('id', 'integer', (c) =>
      postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('exchange', 'text', (c) => c.notNull())
    .addColumn('client_order_id', 'text', (c) => c.notNull())
    .addColumn('venue_order_id', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('order_doc', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('order_journal_client_uq', ['exchange', 'client_order_id'])
    .addUniqueConstraint('order_journal_idem_uq', ['customer_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('order_journal_venue_idx')
    .on('order_journal')
    .columns(['customer_id', 'exchange', 'venue_order_id'])
    .execute();
  // The reconciler's scan: unsettled rows, oldest first.
  await db.schema
    .createIndex('order_journal_state_idx')
    .on('order_journal')
    .columns(['state', 'updated_ms'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('order_journal').execute();
}
