// SQL of the order journal (migration 0005-orders). States: `sent` (written immediately before the request leaves,
// with the exchange's order id when the client computes it), `unknown` (sent, no definite answer), `accepted` (the
// exchange has it; `order_doc` is its last known state), `rejected` (the exchange said no; `error_code`/
// `error_message`). `pending` (written, not yet sent) is what servers before the two-write journal wrote first; the
// reconciler still settles such rows. Only the reconciler and the request that sent the order move a row out of
// `sent`/`unknown`, and only on the exchange's evidence.
// On SQLite writes may be held behind: an accepted order's update (`updateBehind`), and, with an intent log (the
// server's journal), every new row, appended to the log before its order is sent instead of committed (see
// order-intent-log.ts; an update written behind for such a row is made to it before it is committed). What is held
// is committed in one transaction, in the order it was made, when BEHIND_MS ends, before the next read or update of
// the journal, or at BEHIND_MAX held, whichever comes first; then the log is emptied, and rows a killed process left
// in it are committed when the journal opens. Neither an order's answer nor the next order waits for those commits,
// and a steady flow of orders pays one commit per BEHIND_MS. What a crash loses is only an acceptance: the row stays
// `sent` and is settled with the exchange as any answer lost after sending is (when the order is next looked at,
// and by the reconciler for stored credentials).
import type { Kysely } from 'kysely';
import type { OrderIntentLog } from './order-intent-log.js';
import { checkValue } from './reject-nul-plugin.js';
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
  /** The request's fingerprint, which a retry under `idempotencyKey` must match; '' for an order sent without a key. */
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
/** The largest id the table ever gave (AUTOINCREMENT never reuses one), or 0. */
const SQLITE_LAST_ID =
  'select max(coalesce((select "seq" from "sqlite_sequence" where "name" = \'order_journal\'), 0), ' +
  'coalesce((select max("id") from "order_journal"), 0)) as "id"';
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
  kind: 'update';
  id: number;
  update: JournalUpdate;
  onlyFrom: readonly JournalState[] | undefined;
}

/** A row in the intent log, to be committed to the table (its id given when it was logged). */
interface BehindInsert {
  kind: 'insert';
  row: JournalRow;
}

type BehindWrite = BehindUpdate | BehindInsert;

/** Makes `update` to a row not yet committed, as sqliteUpdate's SET does to a committed one. */
function applyUpdate(row: JournalRow, update: JournalUpdate): void {
  row.state = update.state;
  row.updatedMs = update.nowMs;
  for (const [field] of OPTIONAL_COLUMNS) {
    const value = update[field];
    if (value !== undefined) row[field] = value;
  }
}

/** The customer's Idempotency-Key as the intent log's lookup key, or null for a row without one. */
function loggedKey(customerId: string, idempotencyKey: string | null): string | null {
  return idempotencyKey === null ? null : `${customerId}\u0000${idempotencyKey}`;
}

/** A logged row's columns (its id already given, its updates made), for Kysely and the writer's statement alike. */
function queuedInsertValues(row: JournalRow) {
  return {
    id: row.id,
    customer_id: row.customerId,
    exchange: row.exchange,
    client_order_id: row.clientOrderId,
    venue_order_id: row.venueOrderId,
    idempotency_key: row.idempotencyKey,
    request_hash: row.requestHash,
    request: row.request,
    state: row.state,
    order_doc: row.orderDoc,
    error_code: row.errorCode,
    error_message: row.errorMessage,
    created_ms: row.createdMs,
    updated_ms: row.updatedMs,
  };
}

const QUEUED_COLUMNS = Object.keys(queuedInsertValues(newRow(0, {} as NewJournalEntry)));
/** A logged row committed on the writer connection; a row already there is left as it is. */
const SQLITE_INSERT_QUEUED =
  `insert into "order_journal" (${QUEUED_COLUMNS.map((c) => `"${c}"`).join(', ')}) ` +
  `values (${QUEUED_COLUMNS.map(() => '?').join(', ')}) on conflict do nothing`;

/** The writer statement's parameters: the values in QUEUED_COLUMNS' order (the object's own). */
function queuedInsertParameters(row: JournalRow): unknown[] {
  return Object.values(queuedInsertValues(row));
}

/** A row read back from the intent log, or null for a record that is not one (never written by this code). */
function loggedRow(record: unknown): JournalRow | null {
  if (typeof record !== 'object' || record === null) return null;
  const r = record as Partial<JournalRow>;
  const text = (v: unknown) => typeof v === 'string';
  const textOrNull = (v: unknown) => v === null || typeof v === 'string';
  const ok =
    Number.isSafeInteger(r.id) &&
    text(r.customerId) &&
    text(r.exchange) &&
    text(r.clientOrderId) &&
    textOrNull(r.venueOrderId) &&
    textOrNull(r.idempotencyKey) &&
    text(r.requestHash) &&
    text(r.request) &&
    text(r.state) &&
    textOrNull(r.orderDoc) &&
    textOrNull(r.errorCode) &&
    textOrNull(r.errorMessage) &&
    Number.isFinite(r.createdMs) &&
    Number.isFinite(r.updatedMs);
  return ok ? (r as JournalRow) : null;
}

/** One per store (main.ts makes it): the writes it holds behind are seen only by reads made through it. */
export class OrderJournalRepo {
  /** Writes held behind, in the order they were made (SQLite only). */
  private readonly behind: BehindWrite[] = [];
  private behindTimer: NodeJS.Timeout | null = null;
  /**
   * Rows in the intent log not yet committed, by id, as they will be committed: an update written behind for one is
   * made to it here instead of queued after it, so the order's row is committed once, in its final state.
   */
  private readonly loggedRows = new Map<number, JournalRow>();
  /** The same rows by customer and Idempotency-Key (the table's unique key). */
  private readonly loggedKeys = new Map<string, JournalRow>();
  /**
   * With an intent log, the last id given to a row: this repository gives every row its id (it is the table's only
   * writer, one per store), so a logged row's and a row inserted through Kysely meanwhile never meet. Null without.
   */
  private lastId: number | null = null;
  /** A flush on Kysely's path under way: a caller that flushes first waits for it too. */
  private flushing: Promise<void> | null = null;
  /**
   * Inserts on Kysely's path under way. Until they end every insert takes that path, behind them: the table's unique
   * key then judges a repeated Idempotency-Key, where a row logged meanwhile (the writer free again between a
   * transaction's commit and their turn) would have missed theirs.
   */
  private kyselyInserts = 0;

  /**
   * `writer` (SQLite) runs the per-order writes synchronously on cached statements (sqlite-writer.ts). With
   * `intents` too, a new row is appended to that log instead of committed before its order is sent (see
   * order-intent-log.ts), and committed with the writes held behind; rows a previous process left in the log are
   * committed here, before anything can read the journal.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly writer: SqliteWriter | null = null,
    private readonly intents: OrderIntentLog | null = null,
  ) {
    if (intents && writer) {
      this.recoverIntents(intents, writer);
      this.lastId = Number(writer.get<{ id: number }>(SQLITE_LAST_ID, [])?.id ?? 0);
    }
  }

  /** Commits the rows a killed process left in the intent log (those already in the table stay as they are). */
  private recoverIntents(intents: OrderIntentLog, writer: SqliteWriter): void {
    const rows = intents.records().flatMap((record) => loggedRow(record) ?? []);
    if (rows.length > 0) {
      writer.atomically(() => {
        for (const row of rows) writer.run(SQLITE_INSERT_QUEUED, queuedInsertParameters(row));
      });
    }
    intents.clear();
  }

  /**
   * `update`, written behind on SQLite (see above): every later read and write of the journal sees it, but it is
   * durable only once written. For updates a crash may lose because reconciling restores them from the exchange
   * (an accepted order); never for a rejection, which is the exchange's word and not asked again. A row still in the
   * intent log takes the update itself (so it is committed once, settled). Elsewhere (several nodes share
   * PostgreSQL, and another node reads the table) it is `update`.
   */
  async updateBehind(id: number, update: JournalUpdate, onlyFrom?: readonly JournalState[]): Promise<void> {
    if (!this.writer) {
      await this.update(id, update, onlyFrom);
      return;
    }
    const logged = this.loggedRows.get(id);
    if (logged) {
      // What the UPDATE would do to the row once committed: its guard decides, here as there.
      if (onlyFrom === undefined || onlyFrom.includes(logged.state)) applyUpdate(logged, update);
      return;
    }
    this.behind.push({ kind: 'update', id, update, onlyFrom });
    // Never thrown at the order: a failed commit leaves them queued and armed (writeBehind), as the timer's does.
    if (this.behind.length >= BEHIND_MAX) await this.flush().catch(() => undefined);
    else this.arm();
  }

  /** Writes everything held behind (the server calls it before it closes the store). */
  async flush(): Promise<void> {
    // Whatever that flush could not write is queued again, and written (or failed) here.
    while (this.flushing) await this.flushing.catch(() => undefined);
    if (this.behind.length === 0) return;
    const writer = this.writer;
    if (writer?.available) {
      this.writeBehind(writer);
      return;
    }
    const flushing = this.writeBehindThroughKysely();
    this.flushing = flushing;
    try {
      await flushing;
    } finally {
      if (this.flushing === flushing) this.flushing = null;
    }
  }

  /**
   * A Kysely transaction holds the writer connection: the queued writes go through Kysely, queued behind it and
   * ahead of any later query, one by one.
   */
  private async writeBehindThroughKysely(): Promise<void> {
    const taken = this.takeBehind();
    for (const [i, write] of taken.entries()) {
      if (write.kind === 'update') {
        await this.updateNow(write.id, write.update, write.onlyFrom).catch(() => false);
        continue;
      }
      // From here an update written behind for this row is queued after it, not made to a row already on its way.
      this.loggedRows.delete(write.row.id);
      try {
        await this.db
          .insertInto('order_journal')
          .values(queuedInsertValues(write.row))
          .onConflict((oc) => oc.doNothing())
          .execute();
      } catch (error) {
        // A row of an order already sent is never dropped: it and what followed it wait for the next flush.
        this.behind.unshift(...taken.slice(i));
        this.arm();
        throw error;
      }
      this.committed(write.row);
    }
    if (!this.logging()) this.emptyLog();
  }

  /**
   * Commits the queued writes on the writer connection in one transaction, then empties the intent log. An update
   * that fails (a value the store refuses) is dropped rather than kept to fail every later flush: its row stays
   * `sent`, to be reconciled. A row never is: when the transaction fails everything stays queued (and logged), and
   * its error is rethrown.
   */
  private writeBehind(writer: SqliteWriter): void {
    const taken = this.takeBehind();
    try {
      writer.atomically(() => {
        for (const write of taken) {
          if (write.kind === 'insert') {
            writer.run(SQLITE_INSERT_QUEUED, queuedInsertParameters(write.row));
            continue;
          }
          const { sql, parameters } = sqliteUpdate(write.id, write.update, write.onlyFrom);
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
    for (const write of taken) if (write.kind === 'insert') this.committed(write.row);
    if (!this.logging()) this.emptyLog();
  }

  /**
   * Whether writes are held behind or a flush is under way: every read and direct write of the journal flushes first
   * then (a getter, so the common case costs no await).
   */
  private get holding(): boolean {
    return this.behind.length > 0 || this.flushing !== null;
  }

  /**
   * Whether a logged row still waits in the queue. Called once a flush has committed what it took (and none other
   * is under way), it tells whether the log holds only committed rows, so may be emptied.
   */
  private logging(): boolean {
    return this.behind.some((write) => write.kind === 'insert');
  }

  /** A logged row is in the table now: its key is the table's to guard. */
  private committed(row: JournalRow): void {
    this.loggedRows.delete(row.id);
    const key = loggedKey(row.customerId, row.idempotencyKey);
    if (key !== null) this.loggedKeys.delete(key);
  }

  /**
   * Empties the intent log once every row in it is committed. Should that fail, the rows stay in it, to be found
   * already committed (and left as they are) when the journal next opens: nothing to fail the order or read over.
   */
  private emptyLog(): void {
    try {
      this.intents?.clear();
    } catch {
      // As above.
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

  private takeBehind(): BehindWrite[] {
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
    // A logged row holds its key until it is committed (then the table's unique key does).
    const key = loggedKey(entry.customerId, entry.idempotencyKey);
    const logged = key === null ? undefined : this.loggedKeys.get(key);
    if (logged) return { row: { ...logged }, created: false };
    if (this.intents && this.writer?.available && this.kyselyInserts === 0) {
      return this.log(entry, this.intents, this.writer);
    }
    if (this.writer?.available && !this.intents) {
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
    this.kyselyInserts++;
    try {
      return await this.insertThroughKysely(entry);
    } finally {
      this.kyselyInserts--;
    }
  }

  /** The insert while the writer connection is held (or behind one that was): after what is held behind. */
  private async insertThroughKysely(entry: NewJournalEntry): Promise<{ row: JournalRow; created: boolean }> {
    if (this.holding) await this.flush();
    const id = this.lastId === null ? undefined : ++this.lastId;
    const inserted = await this.db
      .insertInto('order_journal')
      .values({
        ...(id !== undefined ? { id } : {}),
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

  /**
   * The intent log's insert: the same checks as the table's (its NUL check, the customer's Idempotency-Key against
   * committed and logged rows), an id of its own, one append, and the row queued to be committed behind.
   */
  private log(
    entry: NewJournalEntry,
    intents: OrderIntentLog,
    writer: SqliteWriter,
  ): { row: JournalRow; created: boolean } {
    const key = loggedKey(entry.customerId, entry.idempotencyKey);
    if (key !== null) {
      const committed = writer.get<Row>(SQLITE_BY_IDEMPOTENCY_KEY, [entry.customerId, entry.idempotencyKey]);
      if (committed) return { row: toRow(committed), created: false };
    }
    const row = newRow((this.lastId ?? 0) + 1, entry);
    checkValue(queuedInsertParameters(row));
    intents.append(row);
    this.lastId = row.id;
    // The queue's copy takes the updates written behind (updateBehind); the log keeps the row as sent.
    const queued = { ...row };
    this.loggedRows.set(row.id, queued);
    if (key !== null) this.loggedKeys.set(key, queued);
    this.behind.push({ kind: 'insert', row: queued });
    if (this.behind.length >= BEHIND_MAX && !this.flushing) this.writeBehindQuietly(writer);
    else this.arm();
    return { row, created: true };
  }

  /** Commits the queue now, leaving it queued and armed when that fails (the order already stands in the log). */
  private writeBehindQuietly(writer: SqliteWriter): void {
    try {
      this.writeBehind(writer);
    } catch {
      // Queued and armed again by writeBehind.
    }
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
    if (this.holding) await this.flush();
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
    if (this.holding) await this.flush();
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
    if (this.holding) await this.flush();
    const r = await this.db.selectFrom('order_journal').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toRow(r) : undefined;
  }

  /** A customer's rows on one exchange created inside [fromMs, toMs], newest first. */
  async list(
    customerId: string,
    exchange: string,
    options: { states?: readonly JournalState[]; fromMs?: number; toMs?: number; limit: number },
  ): Promise<JournalRow[]> {
    if (this.holding) await this.flush();
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
    if (this.holding) await this.flush();
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
    if (this.holding) await this.flush();
    return this.updateNow(id, update, onlyFrom);
  }

  /** `update` without writing what is held behind first (the flush's own updates). */
  private async updateNow(
    id: number,
    update: JournalUpdate,
    onlyFrom?: readonly JournalState[],
  ): Promise<boolean> {
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
    if (this.holding) await this.flush();
    await this.db
      .updateTable('order_journal')
      .set({ updated_ms: nowMs })
      .where('id', '=', id)
      .where('state', 'in', [...UNSETTLED])
      .execute();
  }
}
