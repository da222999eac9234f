// What a request may change, read from the store: a fingerprint of every table the API writes (keys, stored
// credentials and wallets, builders and their end-users, links, the catalogue) and the order journal's newest id.
// The fuzz takes one after every request; a rejected request (4xx/5xx) must leave it as it was, but for the one
// trace the design asks for: an order the exchange refused is journalled as `rejected` (orders-service.ts).
// Left out on purpose: usage counters and rate-limit buckets (every request, rejected or not, counts), and the
// journal's existing rows (the order reconciler settles them in the background, whatever the fuzz sends), and the
// recorder's books (a book read is registered for recording asynchronously, so it can land during a later request).
// The journal is read as the server sees it: what it holds behind (SQLite) is committed first.
import { sql } from 'kysely';
import type { Runtime } from '../../../src/main.js';

export interface StoreState {
  /** Aggregates of the tables the API writes, as text so that both dialects compare alike. */
  tables: Record<string, string>;
  /** The order journal's newest id. */
  journalMaxId: number;
}

const TABLES = {
  api_keys:
    "select count(*) || '/' || count(revoked_at) || '/' || coalesce(max(created_at), '') from api_keys",
  credentials:
    "select count(*) || '/' || count(deactivated_at) || '/' || coalesce(max(updated_at), '') from credentials",
  builders:
    "select count(*) || '/' || coalesce(sum(pool_version), 0) || '/' || coalesce(sum(qps_pool), 0) from builders",
  builder_users:
    "select count(*) || '/' || count(deactivated_at) || '/' || coalesce(sum(qps_limit), 0) || '/' || " +
    "coalesce(max(created_at), '') from builder_users",
  market_links: "select count(*) || '/' || coalesce(max(updated_at), '') from market_links",
  markets:
    "select count(*) || '/' || coalesce(max(seq), 0) || '/' || coalesce(max(synced_at), '') from markets",
  events: "select count(*) || '/' || coalesce(max(synced_at), '') from events",
} as const;

/** One round trip: every aggregate as a scalar subquery of a single select. */
const SNAPSHOT = `select ${Object.entries(TABLES)
  .map(([name, query]) => `(${query}) as ${name}`)
  .join(', ')}, (select coalesce(max(id), 0) from order_journal) as journal_max_id`;

export async function storeState({ store, orderJournal }: Runtime): Promise<StoreState> {
  await orderJournal.flush();
  const { rows } = await sql.raw<Record<string, unknown>>(SNAPSHOT).execute(store.db);
  const row = rows[0] ?? {};
  const tables: Record<string, string> = {};
  for (const name of Object.keys(TABLES)) tables[name] = String(row[name]);
  return { tables, journalMaxId: Number(row.journal_max_id) };
}

/**
 * What changed from `before` to `after` that a rejected request may not change: a table's fingerprint, or a new
 * journal row in any state but `rejected`.
 */
export async function forbiddenChanges(
  { store }: Runtime,
  before: StoreState,
  after: StoreState,
): Promise<string[]> {
  const changes: string[] = [];
  for (const [name, value] of Object.entries(after.tables)) {
    if (before.tables[name] !== value) changes.push(`${name}: ${before.tables[name]} → ${value}`);
  }
  if (after.journalMaxId > before.journalMaxId) {
    const rows = await store.db
      .selectFrom('order_journal')
      .select(['id', 'state'])
      .where('id', '>', before.journalMaxId)
      .execute();
    for (const row of rows) {
      if (row.state !== 'rejected') changes.push(`order_journal: new row ${row.id} in state ${row.state}`);
    }
  }
  return changes;
}
