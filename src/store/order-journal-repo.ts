// SQL of the order journal (migration 0005-orders). States: `sent` (written immediately before the request leaves,
// with the exchange's order id when the client computes it), `unknown` (sent, no definite answer), `accepted` (the
// exchange has it; `order_doc` is its last known state), `rejected` (the exchange said no; `error_code`/
// `error_message`). `pending` (written, not yet sent) is what servers before the two-write journal wrote first; the
// reconciler still settles such rows. Only the reconciler and the request that sent the order move a row out of
// `sent`/`unknown`, and only on the exchange's evidence.
// On SQLite an accepted order's update may be written behind (`updateBehind`): queued, and committed with every
// update queued within BEHIND_MS in one transaction, or before the next read or update of the journal, whichever
// comes first. Neither its answer nor the next order's insert waits for it (an insert does not carry the queue:
// its statement commits alone, which costs less than a transaction around it and the updates), and a steady flow of
// orders pays one commit per BEHIND_MS for their acceptances. What a crash loses is only that mark: the row stays
// `sent` and is settled with the exchange as any answer lost after sending is (when the order is next looked at,
// and by the reconciler for stored credentials).
import type { Kysely } from 'kysely';
import type { Database, OrderJournalTable } from './schema.js';
import type { SqliteWriter } from './sqlite-writer.js';

export const JOURNAL_STATES = ['pending', 'sent', 'unknown', 'accepted', 'rejected'] as const;
/** States waiting for the exchange's word. */
export const UNSETTLED: readonly JournalState[] = ['pending', 'sent', 'unknown'];
export type JournalState = (typeof JOURNAL_STATES)[number];

export interface JournalRow {
  id: number;
  customerId: string;
  exchange: string;
  clientOrderId: string;
  venueOrderId: string | null;
  idempotencyKey: string | null;
  requestHash: string;
  request: string;
  state: JournalState;
  orderDoc: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdMs: number;
  updatedMs: number;
}

export type NewJournalEntry = Pick<
  JournalRow,
  | 'customerId'
  | 'exchange'
  | 'clientOrderId'
  | 'venueOrderId'
  | 'idempotencyKey'
  | 'requestHash'
  | 'request'
  | 'state'
> & { nowMs: number };

export interface JournalUpdate {
  state: JournalState;
  venueOrderId?: string | null;
  orderDoc?: string | null;
  errorCode?: string | null;
  errorMessage?: string | null;
  nowMs: number;
}

type Row = Omit<OrderJournalTable, 'id'> & { id: number };

function toRow(r: Row): JournalRow {
  return {
    id: r.id,
    customerId: r.customer_id,
    exchange: r.exchange,
    clientOrderId: r.client_order_id,
    venueOrderId: r.venue_order_id,
    idempotencyKey: r.idempotency_key,
    requestHash: r.request_hash,
    request: r.request,
    state: r.state as JournalState,
    orderDoc: r.order_doc,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    createdMs: Number(r.created_ms),
    updatedMs: Number(r.updated_ms),
  };
}

/** The row an insert of `entry` just wrote under `id`: the entry's values, the columns it leaves null. */
function newRow(id: number, entry: NewJournalEntry): JournalRow {
  return {
    id,
    customerId: entry.customerId,
    exchange: entry.exchange,
    clientOrderId: entry.clientOrderId,
    venueOrderId: entry.venueOrderId,
    idempotencyKey: entry.idempotencyKey,
    requestHash: entry.requestHash,
    request: entry.request,
    state: entry.state,
    orderDoc: null,
    errorCode: null,
    errorMessage: null,
    createdMs: entry.nowMs,
    updatedMs: entry.nowMs,
  };
}

// The SQLite writer's SQL for the per-order writes: what the Kysely queries below compile to on SQLite, except that
// the insert has no RETURNING: SQLite runs one by buffering the row in an ephemeral table and stepping it back out,
// a good part of the insert's cost in the order bench's profile, for values the caller already holds (the entry
// and the rowid).
const SQLITE_INSERT =
  'insert into "order_journal" ("customer_id", "exchange", "client_order_id", "venue_order_id", ' +
  '"idempotency_key", "request_hash", "request", "state", "created_ms", "updated_ms") ' +
  `values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("customer_id", "idempotency_key") do nothing`;
const SQLITE_BY_IDEMPOTENCY_KEY =
  'select * from "order_journal" where "customer_id" = ? and "idempotency_key" = ?';

const OPTIONAL_COLUMNS = [
  ['venueOrderId', 'venue_order_id'],
  ['orderDoc', 'order_doc'],
  ['errorCode', 'error_code'],
  ['errorMessage', 'error_message'],
] as const;

function sqliteUpdate(
  id: number,
  update: JournalUpdate,
  onlyFrom: readonly JournalState[] | undefined,
): { sql: string; parameters: unknown[] } {
  let sql = 'update "order_journal" set "state" = ?, "updated_ms" = ?';
  const parameters: unknown[] = [update.state, update.nowMs];
  for (const [field, column] of OPTIONAL_COLUMNS) {
    const value = update[field];
    if (value === undefined) continue;
    sql += `, "${column}" = ?`;
    parameters.push(value);
  }
  sql += ' where "id" = ?';
  parameters.push(id);
  if (onlyFrom) {
    sql += ` and "state" in (${onlyFrom.map(() => '?').join(', ')})`;
    parameters.push(...onlyFrom);
  }
  return { sql, parameters };
}

/** The longest an update written behind waits to be committed. */
export const BEHIND_MS = 50;
/** Queued updates past this many are committed at once, so a burst does not hold an unbounded queue. */
export const BEHIND_MAX = 1_000;

interface BehindUpdate {
  id: number;
  update: JournalUpdate;
  onlyFrom: readonly JournalState[] | undefined;
}

/** One per store (main.ts makes it): the updates it writes behind are seen only by reads made through it. */
export class OrderJournalRepo {
  /** Updates written behind, in the order they were made (SQLite only). */
  private readonly behind: BehindUpdate[] = [];
  private behindTimer: NodeJS.Timeout | null = null;

  /** `writer` (SQLite) runs the per-order writes synchronously on cached statements (sqlite-writer.ts). */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly writer: SqliteWriter | null = null,
  ) {}

  /**
   * `update`, written behind on SQLite (see above): every later read and write of the journal sees it, but it is
   * durable only once written. For updates a crash may lose because reconciling restores them from the exchange
   * (an accepted order); never for a rejection, which is the exchange's word and not asked again. Elsewhere (several
   * nodes share PostgreSQL, and another node reads the table) it is `update`.
   */
  async updateBehind(id: number, update: JournalUpdate, onlyFrom?: readonly JournalState[]): Promise<void> {
    if (!this.writer) {
      await this.update(id, update, onlyFrom);
      return;
    }
    this.behind.push({ id, update, onlyFrom });
    // Never thrown at the order: a failed commit leaves them queued and armed (writeBehind), as the timer's does.
    if (this.behind.length >= BEHIND_MAX) await this.flush().catch(() => undefined);
    else this.arm();
  }

  /** Writes every update written behind (the server calls it before it closes the store). */
  async flush(): Promise<void> {
    if (this.behind.length === 0) return;
    const writer = this.writer;
    if (writer?.available) {
      this.writeBehind(writer);
      return;
    }
    // A Kysely transaction holds the writer connection: these queue behind it, ahead of any later query.
    for (const { id, update, onlyFrom } of this.takeBehind()) {
      await this.update(id, update, onlyFrom).catch(() => false);
    }
  }

  /**
   * Commits the queued updates on the writer connection in one transaction. An update that fails (a value the store
   * refuses) is dropped rather than kept to fail every later flush: its row stays `sent`, to be reconciled. When the
   * transaction fails they stay queued, and its error is rethrown.
   */
  private writeBehind(writer: SqliteWriter): void {
    const taken = this.takeBehind();
    try {
      writer.atomically(() => {
        for (const { id, update, onlyFrom } of taken) {
          const { sql, parameters } = sqliteUpdate(id, update, onlyFrom);
          try {
            writer.run(sql, parameters);
          } catch {
            // Dropped, as above.
          }
        }
      });
    } catch (error) {
      this.behind.unshift(...taken);
      this.arm();
      throw error;
    }
  }

  /** Makes sure the queue is written within BEHIND_MS should no journal read or update come first. */
  private arm(): void {
    this.behindTimer ??= setTimeout(() => {
      this.behindTimer = null;
      // A failed commit keeps them queued and armed again; the next journal read or update meets it itself.
      this.flush().catch(() => undefined);
    }, BEHIND_MS).unref();
  }

  private takeBehind(): BehindUpdate[] {
    if (this.behindTimer) {
      clearTimeout(this.behindTimer);
      this.behindTimer = null;
    }
    return this.behind.splice(0);
  }

  /**
   * Writes a row, or returns the row already holding this customer's idempotency key (then nothing is written: the
   * caller answers with that row instead of sending again).
   */
  async insert(entry: NewJournalEntry): Promise<{ row: JournalRow; created: boolean }> {
    if (this.writer?.available) {
      const writer = this.writer;
      const parameters = [
        entry.customerId,
        entry.exchange,
        entry.clientOrderId,
        entry.venueOrderId,
        entry.idempotencyKey,
        entry.requestHash,
        entry.request,
        entry.state,
        entry.nowMs,
        entry.nowMs,
      ];
      // Updates written behind stay queued (see above): the insert commits alone.
      const { changes, rowid } = writer.insert(SQLITE_INSERT, parameters);
      if (changes > 0) return { row: newRow(rowid, entry), created: true };
      return this.taken(entry);
    }
    if (this.behind.length > 0) await this.flush();
    const inserted = await this.db
      .insertInto('order_journal')
      .values({
        customer_id: entry.customerId,
        exchange: entry.exchange,
        client_order_id: entry.clientOrderId,
        venue_order_id: entry.venueOrderId,
        idempotency_key: entry.idempotencyKey,
        request_hash: entry.requestHash,
        request: entry.request,
        state: entry.state,
        created_ms: entry.nowMs,
        updated_ms: entry.nowMs,
      })
      .onConflict((oc) => oc.columns(['customer_id', 'idempotency_key']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { row: toRow(inserted), created: true };
    return this.taken(entry);
  }

  /** The row holding the entry's idempotency key, after an insert that conflicted on it. */
  private async taken(entry: NewJournalEntry): Promise<{ row: JournalRow; created: false }> {
    const existing =
      entry.idempotencyKey === null
        ? undefined
        : await this.byIdempotencyKey(entry.customerId, entry.idempotencyKey);
    if (!existing) throw new Error('order journal insert conflicted without an existing row');
    return { row: existing, created: false };
  }

  async byIdempotencyKey(customerId: string, key: string): Promise<JournalRow | undefined> {
    if (this.behind.length > 0) await this.flush();
    if (this.writer?.available) {
      const r = this.writer.get<Row>(SQLITE_BY_IDEMPOTENCY_KEY, [customerId, key]);
      return r ? toRow(r) : undefined;
    }
    const r = await this.db
      .selectFrom('order_journal')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    return r ? toRow(r) : undefined;
  }

  /** A customer's order on one exchange by the exchange's id or by our client order id. */
  async find(customerId: string, exchange: string, id: string): Promise<JournalRow | undefined> {
    if (this.behind.length > 0) await this.flush();
    const r = await this.db
      .selectFrom('order_journal')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('exchange', '=', exchange)
      .where((eb) => eb.or([eb('venue_order_id', '=', id), eb('client_order_id', '=', id)]))
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return r ? toRow(r) : undefined;
  }

  async byId(id: number): Promise<JournalRow | undefined> {
    if (this.behind.length > 0) await this.flush();
    const r = await this.db.selectFrom('order_journal').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toRow(r) : undefined;
  }

  /** A customer's rows on one exchange created inside [fromMs, toMs], newest first. */
  async list(
    customerId: string,
    exchange: string,
    options: { states?: readonly JournalState[]; fromMs?: number; toMs?: number; limit: number },
  ): Promise<JournalRow[]> {
    if (this.behind.length > 0) await this.flush();
    let q = this.db
      .selectFrom('order_journal')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('exchange', '=', exchange);
    if (options.states) q = q.where('state', 'in', [...options.states]);
    if (options.fromMs !== undefined) q = q.where('created_ms', '>=', options.fromMs);
    if (options.toMs !== undefined) q = q.where('created_ms', '<=', options.toMs);
    const rows = await q.orderBy('id', 'desc').limit(options.limit).execute();
    return rows.map(toRow);
  }

  /** Rows still waiting for the exchange's word, least recently tried first (the reconciler's batch). */
  async unsettled(olderThanMs: number, limit: number): Promise<JournalRow[]> {
    if (this.behind.length > 0) await this.flush();
    const rows = await this.db
      .selectFrom('order_journal')
      .selectAll()
      .where('state', 'in', [...UNSETTLED])
      .where('updated_ms', '<=', olderThanMs)
      .orderBy('updated_ms')
      .limit(limit)
      .execute();
    return rows.map(toRow);
  }

  /**
   * Moves a row to `update.state`. `onlyFrom` guards the move: a row already settled by someone else (another
   * request, the reconciler, another node) is left alone and false is returned.
   */
  async update(id: number, update: JournalUpdate, onlyFrom?: readonly JournalState[]): Promise<boolean> {
    if (this.behind.length > 0) await this.flush();
    if (this.writer?.available) {
      const { sql, parameters } = sqliteUpdate(id, update, onlyFrom);
      return this.writer.run(sql, parameters) > 0;
    }
    let q = this.db
      .updateTable('order_journal')
      .set({
        state: update.state,
        updated_ms: update.nowMs,
        ...(update.venueOrderId !== undefined ? { venue_order_id: update.venueOrderId } : {}),
        ...(update.orderDoc !== undefined ? { order_doc: update.orderDoc } : {}),
        ...(update.errorCode !== undefined ? { error_code: update.errorCode } : {}),
        ...(update.errorMessage !== undefined ? { error_message: update.errorMessage } : {}),
      })
      .where('id', '=', id);
    if (onlyFrom) q = q.where('state', 'in', [...onlyFrom]);
    const res = await q.executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Marks a reconciliation attempt that found nothing yet, so the next batch tries other rows first. */
  async touch(id: number, nowMs: number): Promise<void> {
    if (this.behind.length > 0) await this.flush();
    await this.db
      .updateTable('order_journal')
      .set({ updated_ms: nowMs })
      .where('id', '=', id)
      .where('state', 'in', [...UNSETTLED])
      .execute();
  }
}
