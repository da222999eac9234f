// Fee escrow settlement state (wire contract §5 fee_auth). One row per builder fee the server pulls into the
// FeeEscrow contract, keyed by the fee_auth's order_id (the escrow id, which the contract also takes only once), with
// the order it was taken for (customer, exchange, our client order id: the journal row). It is written `held`
// immediately before the pull and set `settled` once the contract closed the escrow (distributed and/or refunded),
// so the background settlement job (fee-settlement-job.ts) can find every fee still held without parsing the
// journal, and finds a fee pulled for an order that was never sent (a crash between the pull and the send). The
// chain stays the authority: `held` means "settle it unless the contract says it is closed already".
// Fees pulled before this migration (their id is only in order_journal.request's charge_ref) are copied in as held;
// the job reads each one's state on chain and marks those settled already.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('fee_escrows')
    .addColumn('order_id', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('exchange', 'text', (c) => c.notNull())
    .addColumn('client_order_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    // The fee_auth's deadline (Unix s): after it the contract takes no pull under this id, so a fee the chain does
    // not hold by then never will be (0 for fees copied from the journal, which were pulled before it was written).
    .addColumn('deadline_s', 'bigint', (c) => c.notNull().defaultTo(0))
    // What the settlement distributed: filled of size (integers, millionths of a share); null until settled.
    .addColumn('filled_units', 'text')
    .addColumn('size_units', 'text')
    .addColumn('created_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_ms', 'bigint', (c) => c.notNull())
    .execute();
  // The job's scan: held fees, least recently tried first.
  await db.schema
    .createIndex('fee_escrows_state_idx')
    .on('fee_escrows')
    .columns(['state', 'updated_ms'])
    .execute();

  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const chargeRef = postgres
    ? sql`(request::json ->> 'charge_ref')`
    : sql`json_extract(request, '$.charge_ref')`;
  await sql`insert into fee_escrows (order_id, customer_id, exchange, client_order_id, state, created_ms, updated_ms)
    select ${chargeRef}, customer_id, exchange, client_order_id, 'held', created_ms, created_ms
    from order_journal where request like '%"charge_ref"%' and ${chargeRef} is not null
    on conflict (order_id) do nothing`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('fee_escrows').execute();
}
