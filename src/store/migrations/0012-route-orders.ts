// Routed orders and paired (arbitrage) executions: the parent of orders sent as legs through the order journal.
// A row is written before any leg is sent and holds the plan (`legs`, JSON text: each leg's exchange, market, limit
// price and size, and the Idempotency-Key its journal row carries), so a retry of the same request after a crash
// finds every leg in the journal by that key and sends none twice. `kind` is `route` (POST /route/orders) or
// `arbitrage` (POST /arbitrage/execute); `idempotency_key` is unique per customer, `request_hash` tells a retry from
// a different request under the same key. `seq` orders a customer's rows for cursor paging; `id` is the public id.
import { type Kysely, PostgresAdapter } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('route_orders')
    .addColumn('seq', 'integer', (c) =>
      postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('legs', 'text', (c) => c.notNull())
    .addColumn('round', 'integer', (c) => c.notNull())
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('route_orders_idem_uq', ['customer_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('route_orders_customer_idx')
    .on('route_orders')
    .columns(['customer_id', 'kind', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('route_orders').execute();
}
