// The order journal on both dialects: a row per order, one per (customer, Idempotency-Key), found by either id,
// state moves guarded by the states they may leave, the reconciler's scan of unsettled rows, and updates written
// behind. On SQLite each case runs three times: through Kysely, through the writer's cached statements, and with
// the intent log the server uses (rows logged before sending, committed behind, recovered after a kill).
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, type TestContext, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Store } from '../../../src/store/database.js';
import { OrderIntentLog } from '../../../src/store/order-intent-log.js';
import { BEHIND_MAX, BEHIND_MS, OrderJournalRepo } from '../../../src/store/order-journal-repo.js';
import type { Database } from '../../../src/store/schema.js';
import { onBothDialects } from './dialects.js';

const entry = (over: Partial<Parameters<OrderJournalRepo['insert']>[0]> = {}) => ({
  customerId: 'cust-a',
  exchange: 'kalshi',
  clientOrderId: `coid-${Math.random()}`,
  venueOrderId: null,
  idempotencyKey: null,
  requestHash: 'h1',
  request: '{"market_id":"KX"}',
  state: 'sent' as const,
  nowMs: 1_000,
  ...over,
});

const logDir = mkdtempSync(join(tmpdir(), 'omnibook-intents-'));
after(() => rmSync(logDir, { recursive: true, force: true }));
let logs = 0;
/** A fresh intent log file (or, given a name, that one again: what a restarted server opens). */
const intentLog = (file = join(logDir, `intents-${++logs}`)) => new OrderIntentLog(file);
const logLines = (log: OrderIntentLog) => readFileSync(log.file, 'utf8').split('\n').filter(Boolean);

onBothDialects('order journal', (store) => {
  for (const via of ['kysely', 'writer', 'intents'] as const) suite(store, via);

  test('SQLite: a write while a Kysely transaction is open waits for it instead of joining it', async (t) => {
    const { db, sqliteWriter } = store();
    if (!sqliteWriter) return t.skip('SQLite only');
    const repo = new OrderJournalRepo(db, sqliteWriter);
    const tx = await holdTransaction(db, 'rollback');
    assert.equal(sqliteWriter.available, false);
    const inserting = repo.insert(entry({ clientOrderId: 'coid-tx' }));
    tx.release();
    assert.equal(await tx.ended, 'rolled back');
    const { row } = await inserting;
    assert.equal((await repo.byId(row.id))?.clientOrderId, 'coid-tx', 'the row outlived the rollback');
    assert.equal(sqliteWriter.available, true);
  });
});

/** A Kysely transaction held open on the connection until `release()`, then committed or rolled back. */
async function holdTransaction(
  db: Kysely<Database>,
  end: 'commit' | 'rollback',
): Promise<{ release(): void; ended: Promise<string> }> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const ended = db
    .transaction()
    .execute(async () => {
      open();
      await held;
      if (end === 'rollback') throw new Error('roll back');
    })
    .then(
      () => 'committed',
      () => 'rolled back',
    );
  await opened;
  return { release, ended };
}

/** The row's state as stored, read past the repository (so past anything it holds back). */
async function storedState(store: Store, id: number): Promise<string | undefined> {
  const r = await store.db
    .selectFrom('order_journal')
    .select('state')
    .where('id', '=', id)
    .executeTakeFirst();
  return r?.state;
}

onBothDialects('order journal: updates written behind', (store) => {
  test('every read sees an update written behind; an insert commits alone and leaves it queued', async (t) => {
    const repo = new OrderJournalRepo(store().db, store().sqliteWriter);
    const accepted = { state: 'accepted' as const, orderDoc: '{"id":"v"}', nowMs: 2_000 };
    const { row: a } = await repo.insert(entry({ customerId: 'cust-behind' }));
    await repo.updateBehind(a.id, accepted, ['sent']);
    if (!store().sqliteWriter) {
      // PostgreSQL (several nodes may read it): written at once.
      assert.equal(await storedState(store(), a.id), 'accepted');
      return t.skip('written behind on SQLite only');
    }
    assert.equal(await storedState(store(), a.id), 'sent', 'not written yet');
    assert.equal((await repo.byId(a.id))?.state, 'accepted', 'a read writes it first');
    assert.equal(await storedState(store(), a.id), 'accepted');

    const { row: b } = await repo.insert(entry({ customerId: 'cust-behind' }));
    await repo.updateBehind(b.id, accepted, ['sent']);
    const { row: c } = await repo.insert(entry({ customerId: 'cust-behind' }));
    assert.equal(await storedState(store(), c.id), 'sent', 'the insert is committed at once');
    assert.equal(await storedState(store(), b.id), 'sent', 'the insert did not carry it');
    assert.equal((await repo.byId(b.id))?.state, 'accepted');
    assert.equal(await storedState(store(), b.id), 'accepted');

    // Its guard still holds: a row another request settled first is left as it is.
    await repo.update(c.id, { state: 'rejected', errorCode: 'x', errorMessage: 'no', nowMs: 2_100 }, [
      'sent',
    ]);
    await repo.updateBehind(c.id, accepted, ['sent']);
    assert.equal((await repo.find('cust-behind', 'kalshi', c.clientOrderId))?.state, 'rejected');
  });

  test('SQLite: updates queued within BEHIND_MS are written together when it ends, inserts or not; flush writes them at once', async (t) => {
    const { db, sqliteWriter } = store();
    if (!sqliteWriter) return t.skip('SQLite only');
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const repo = new OrderJournalRepo(db, sqliteWriter);
    const { row: a } = await repo.insert(entry());
    const { row: b } = await repo.insert(entry());
    await repo.updateBehind(a.id, { state: 'accepted', orderDoc: '{}', nowMs: 2_000 }, ['sent']);
    t.mock.timers.tick(BEHIND_MS - 1);
    const { row: later } = await repo.insert(entry());
    await repo.updateBehind(later.id, { state: 'accepted', orderDoc: '{}', nowMs: 2_000 }, ['sent']);
    assert.equal(await storedState(store(), a.id), 'sent');
    t.mock.timers.tick(1);
    assert.equal(await storedState(store(), a.id), 'accepted');
    assert.equal(await storedState(store(), later.id), 'accepted', 'queued since, written with it');
    await repo.updateBehind(b.id, { state: 'accepted', orderDoc: '{}', nowMs: 2_000 }, ['sent']);
    await repo.flush();
    assert.equal(await storedState(store(), b.id), 'accepted');
  });

  test('SQLite: an update the store refuses is dropped, not kept to fail the orders after it', async (t) => {
    const { db, sqliteWriter } = store();
    if (!sqliteWriter) return t.skip('SQLite only');
    const repo = new OrderJournalRepo(db, sqliteWriter);
    const { row: a } = await repo.insert(entry());
    await repo.updateBehind(a.id, { state: 'accepted', orderDoc: '{"id":"\u0000"}', nowMs: 2_000 }, ['sent']);
    const { row: b } = await repo.insert(entry());
    await repo.updateBehind(b.id, { state: 'accepted', orderDoc: '{}', nowMs: 2_000 }, ['sent']);
    await repo.flush();
    const { row: c } = await repo.insert(entry());
    assert.equal(await storedState(store(), a.id), 'sent', 'left for the reconciler');
    assert.equal(await storedState(store(), b.id), 'accepted');
    assert.equal(await storedState(store(), c.id), 'sent');
    assert.equal((await repo.byId(a.id))?.state, 'sent', 'not kept to fail the next flush');
  });

  test('SQLite: a burst queues at most BEHIND_MAX updates before writing them', async (t) => {
    const { db, sqliteWriter } = store();
    if (!sqliteWriter) return t.skip('SQLite only');
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const repo = new OrderJournalRepo(db, sqliteWriter);
    const rows = [];
    for (let i = 0; i < BEHIND_MAX; i++) rows.push((await repo.insert(entry())).row);
    for (const row of rows.slice(0, -1)) {
      await repo.updateBehind(row.id, { state: 'accepted', orderDoc: '{}', nowMs: 2_000 }, ['sent']);
    }
    assert.equal(await storedState(store(), rows[0]?.id ?? 0), 'sent');
    const last = rows.at(-1)?.id ?? 0;
    await repo.updateBehind(last, { state: 'accepted', orderDoc: '{}', nowMs: 2_000 }, ['sent']);
    assert.equal(await storedState(store(), rows[0]?.id ?? 0), 'accepted');
    assert.equal(await storedState(store(), last), 'accepted');
  });

  test('SQLite: while a Kysely transaction holds the connection, a read waits for it and still sees the update', async (t) => {
    const { db, sqliteWriter } = store();
    if (!sqliteWriter) return t.skip('SQLite only');
    const repo = new OrderJournalRepo(db, sqliteWriter);
    const { row } = await repo.insert(entry());
    await repo.updateBehind(row.id, { state: 'accepted', orderDoc: '{}', nowMs: 2_000 }, ['sent']);
    const tx = await holdTransaction(db, 'commit');
    const reading = repo.byId(row.id);
    tx.release();
    assert.equal(await tx.ended, 'committed');
    assert.equal((await reading)?.state, 'accepted');
  });
});

/** A journal with an intent log on the SQLite store, written out when the test ends; null on PostgreSQL (skipped). */
function loggingJournal(t: TestContext, store: Store, { mockTimers = false } = {}) {
  const { db, sqliteWriter } = store;
  if (!sqliteWriter) {
    t.skip('SQLite only');
    return null;
  }
  if (mockTimers) t.mock.timers.enable({ apis: ['setTimeout'] });
  const log = intentLog();
  const repo = new OrderJournalRepo(db, sqliteWriter, log);
  t.after(() => repo.flush());
  return { db, repo, log };
}

onBothDialects('order journal: intent log', (store) => {
  test('SQLite: a row is logged, not committed, until the queue is written; reads see it; the log is then emptied', async (t) => {
    const journal = loggingJournal(t, store(), { mockTimers: true });
    if (!journal) return;
    const { repo, log } = journal;
    const { row, created } = await repo.insert(entry({ customerId: 'cust-log' }));
    assert.equal(created, true);
    assert.equal(await storedState(store(), row.id), undefined, 'not committed yet');
    assert.equal(logLines(log).length, 1, 'logged before the insert returned');
    assert.deepEqual(await repo.byId(row.id), row, 'a read commits it first');
    assert.equal(await storedState(store(), row.id), 'sent');
    assert.deepEqual(logLines(log), [], 'emptied once committed');

    const { row: next } = await repo.insert(entry({ customerId: 'cust-log' }));
    assert.ok(next.id > row.id);
    t.mock.timers.tick(BEHIND_MS);
    assert.equal(await storedState(store(), next.id), 'sent', 'committed when BEHIND_MS ends');
    assert.deepEqual(logLines(log), []);
  });

  test('SQLite: an update written behind for a logged row is made to it, under its guard: the row is committed once, settled', async (t) => {
    const journal = loggingJournal(t, store(), { mockTimers: true });
    if (!journal) return;
    const { repo, log } = journal;
    const { row: a } = await repo.insert(entry({ customerId: 'cust-merge', idempotencyKey: 'k-merge' }));
    const { row: b } = await repo.insert(entry({ customerId: 'cust-merge' }));
    await repo.updateBehind(
      a.id,
      { state: 'accepted', venueOrderId: 'v-a', orderDoc: '{"id":"v-a"}', nowMs: 2_000 },
      ['sent', 'unknown'],
    );
    await repo.updateBehind(b.id, { state: 'accepted', orderDoc: '{}', nowMs: 2_000 }, ['unknown']);
    assert.equal(JSON.parse(logLines(log)[0] ?? '{}').state, 'sent', 'the log keeps the row as sent');
    assert.equal(a.state, 'sent', "the caller's row is its own");
    const replayed = await repo.insert(entry({ customerId: 'cust-merge', idempotencyKey: 'k-merge' }));
    assert.equal(replayed.row.state, 'accepted', 'a repeated key meets the row as it will be committed');
    t.mock.timers.tick(BEHIND_MS);
    assert.deepEqual(await repo.byId(a.id), {
      ...a,
      state: 'accepted',
      venueOrderId: 'v-a',
      orderDoc: '{"id":"v-a"}',
      updatedMs: 2_000,
    });
    assert.equal(await storedState(store(), b.id), 'sent', 'its guard (unknown only) left it sent');
  });

  test('SQLite: rows a killed process left in the log are committed when the journal opens, each once', async (t) => {
    const { db, sqliteWriter } = store();
    if (!sqliteWriter) return t.skip('SQLite only');
    t.mock.timers.enable({ apis: ['setTimeout'] });
    // A row already committed, to be logged again below (a kill between a commit and the log's emptying).
    const { row: committed } = await new OrderJournalRepo(db, sqliteWriter).insert(
      entry({ customerId: 'cust-kill' }),
    );
    const file = join(logDir, 'killed');
    const killed = new OrderJournalRepo(db, sqliteWriter, intentLog(file));
    const { row: a } = await killed.insert(entry({ customerId: 'cust-kill', idempotencyKey: 'k-kill' }));
    const { row: b } = await killed.insert(entry({ customerId: 'cust-kill', venueOrderId: '0xhash' }));
    // Its acceptance was only queued: what a kill loses, to be reconciled with the exchange.
    await killed.updateBehind(a.id, { state: 'accepted', orderDoc: '{}', nowMs: 2_000 }, ['sent']);
    assert.equal(await storedState(store(), a.id), undefined);
    // The committed row logged again, and a torn last line.
    appendFileSync(file, `${JSON.stringify({ ...committed, state: 'rejected' })}\n{"id": 99`);

    const restarted = intentLog(file);
    const journal = new OrderJournalRepo(db, sqliteWriter, restarted);
    t.after(() => journal.flush());
    assert.deepEqual(logLines(restarted), [], 'emptied once committed');
    assert.deepEqual(await journal.byId(a.id), a, 'the logged row, as logged');
    assert.deepEqual(await journal.byId(b.id), b);
    assert.equal((await journal.byId(committed.id))?.state, 'sent', 'a committed row is left as it is');
    assert.equal((await journal.byIdempotencyKey('cust-kill', 'k-kill'))?.id, a.id);
    const { row: c } = await journal.insert(entry({ customerId: 'cust-kill' }));
    assert.ok(c.id > b.id, 'ids continue past every row');
    const rows = await store()
      .db.selectFrom('order_journal')
      .select('id')
      .where('customer_id', '=', 'cust-kill')
      .execute();
    assert.equal(rows.length, 3, 'each row once');
  });

  test('SQLite: an Idempotency-Key held by a logged row is not used again before it is committed', async (t) => {
    const journal = loggingJournal(t, store());
    if (!journal) return;
    const { db, repo } = journal;
    const first = await repo.insert(entry({ customerId: 'cust-key', idempotencyKey: 'k' }));
    const again = await repo.insert(
      entry({ customerId: 'cust-key', idempotencyKey: 'k', requestHash: 'h2' }),
    );
    assert.equal(again.created, false);
    assert.deepEqual(again.row, first.row);
    await repo.flush();
    const rows = await db
      .selectFrom('order_journal')
      .select('id')
      .where('customer_id', '=', 'cust-key')
      .execute();
    assert.equal(rows.length, 1);
  });

  test('SQLite: while a Kysely transaction holds the connection, logged rows are committed through it in order, and ids stay unique', async (t) => {
    const journal = loggingJournal(t, store());
    if (!journal) return;
    const { db, repo, log } = journal;
    const { row: logged } = await repo.insert(entry({ customerId: 'cust-tx' }));
    await repo.updateBehind(logged.id, { state: 'accepted', orderDoc: '{}', nowMs: 2_000 }, ['sent']);
    const tx = await holdTransaction(db, 'commit');
    const inserting = repo.insert(entry({ customerId: 'cust-tx' }));
    tx.release();
    assert.equal(await tx.ended, 'committed');
    const { row: direct } = await inserting;
    assert.ok(direct.id > logged.id);
    assert.equal(await storedState(store(), logged.id), 'accepted', 'committed with its acceptance');
    assert.deepEqual(logLines(log), []);
    const { row: after } = await repo.insert(entry({ customerId: 'cust-tx' }));
    assert.ok(after.id > direct.id, 'the next logged id is past the one Kysely gave');
    assert.equal((await repo.byId(after.id))?.clientOrderId, after.clientOrderId);
  });

  test('SQLite: inserts that meet a flush going through Kysely keep one row per key and ids of their own', async (t) => {
    const journal = loggingJournal(t, store());
    if (!journal) return;
    const { db, repo, log } = journal;
    const { row: first } = await repo.insert(entry({ customerId: 'cust-race' }));
    const { row: keyed } = await repo.insert(entry({ customerId: 'cust-race', idempotencyKey: 'k-race' }));
    const tx = await holdTransaction(db, 'commit');
    // All three go through Kysely behind the transaction, while the first one's flush commits the logged rows one by
    // one: the repeated key must meet the logged row, and the new rows must not take the ids the logged ones hold.
    const inserting = [
      repo.insert(entry({ customerId: 'cust-race' })),
      repo.insert(entry({ customerId: 'cust-race', idempotencyKey: 'k-race', requestHash: 'h2' })),
      repo.insert(entry({ customerId: 'cust-race' })),
    ];
    tx.release();
    assert.equal(await tx.ended, 'committed');
    const [a, again, b] = await Promise.all(inserting);
    assert.equal(again?.created, false);
    assert.equal(again?.row.id, keyed.id);
    const ids = [first.id, keyed.id, a?.row.id, b?.row.id].map(Number).sort((x, y) => x - y);
    assert.equal(new Set(ids).size, 4);
    const rows = await db
      .selectFrom('order_journal')
      .select(['id', 'idempotency_key'])
      .where('customer_id', '=', 'cust-race')
      .execute();
    assert.deepEqual(
      rows.map((r) => Number(r.id)).sort((x, y) => x - y),
      ids,
      'every row committed, once',
    );
    assert.equal(rows.find((r) => r.idempotency_key === 'k-race')?.id, keyed.id);
    assert.deepEqual(logLines(log), []);
  });

  test('SQLite: a burst logs at most BEHIND_MAX rows before committing them', async (t) => {
    const journal = loggingJournal(t, store(), { mockTimers: true });
    if (!journal) return;
    const { repo, log } = journal;
    const rows = [];
    for (let i = 0; i < BEHIND_MAX - 1; i++) rows.push((await repo.insert(entry())).row);
    assert.equal(await storedState(store(), rows[0]?.id ?? 0), undefined);
    assert.equal(logLines(log).length, BEHIND_MAX - 1);
    const { row: last } = await repo.insert(entry());
    assert.equal(await storedState(store(), rows[0]?.id ?? 0), 'sent');
    assert.equal(await storedState(store(), last.id), 'sent');
    assert.deepEqual(logLines(log), []);
  });
});

function suite(store: () => Store, via: 'kysely' | 'writer' | 'intents'): void {
  // Each test's journal writes what it holds when the test ends, as a server does when it stops: ids are the table's
  // once written, and a journal still holding rows would give the next test's journal the same ids.
  const journal = (t: TestContext) => {
    const repo = new OrderJournalRepo(
      store().db,
      via === 'kysely' ? null : store().sqliteWriter,
      via === 'intents' ? intentLog() : null,
    );
    t.after(() => repo.flush());
    return repo;
  };
  const name = (title: string) => `${title} (${via})`;

  test(
    name('an Idempotency-Key holds one row per customer; without a key every order is its own row'),
    async (t) => {
      const repo = journal(t);
      const first = await repo.insert(entry({ idempotencyKey: `k1-${via}` }));
      assert.equal(first.created, true);
      assert.equal(first.row.state, 'sent');
      // The row an insert answers is the row stored (the writer builds it from the entry instead of RETURNING).
      assert.deepEqual(first.row, await repo.byId(first.row.id));
      assert.equal((await repo.byIdempotencyKey('cust-a', `k1-${via}`))?.id, first.row.id);
      assert.equal(await repo.byIdempotencyKey('cust-a', `k9-${via}`), undefined);
      const again = await repo.insert(entry({ idempotencyKey: `k1-${via}`, requestHash: 'h2' }));
      assert.equal(again.created, false);
      assert.equal(again.row.id, first.row.id);
      assert.equal(again.row.requestHash, 'h1');
      assert.equal(
        (await repo.insert(entry({ idempotencyKey: `k1-${via}`, customerId: `cust-b-${via}` }))).created,
        true,
      );
      assert.equal((await repo.insert(entry())).created, true);
      assert.equal((await repo.insert(entry())).created, true);
      await assert.rejects(repo.insert(entry({ request: '{"market_id":"K\u0000X"}' })), {
        code: 'bad_request',
      });
    },
  );

  test(
    name('state moves are guarded, rows are found by either id, unsettled rows are scanned oldest first'),
    async (t) => {
      const repo = journal(t);
      const { row } = await repo.insert(
        entry({ customerId: `cust-c-${via}`, clientOrderId: `coid-c-${via}`, nowMs: 500 }),
      );
      assert.equal(await repo.update(row.id, { state: 'unknown', nowMs: 600 }, ['sent']), true);
      assert.equal(await repo.update(row.id, { state: 'unknown', nowMs: 700 }, ['sent']), false);
      const scan = await repo.unsettled(650, 10);
      assert.ok(scan.some((r) => r.id === row.id));
      assert.equal(
        await repo.update(row.id, { state: 'accepted', venueOrderId: 'v-1', orderDoc: '{}', nowMs: 800 }, [
          'unknown',
        ]),
        true,
      );
      assert.equal((await repo.find(`cust-c-${via}`, 'kalshi', 'v-1'))?.id, row.id);
      assert.equal((await repo.find(`cust-c-${via}`, 'kalshi', `coid-c-${via}`))?.state, 'accepted');
      assert.equal(
        await repo.find('cust-a', 'kalshi', `coid-c-${via}`),
        undefined,
        "never another customer's order",
      );
      assert.ok(!(await repo.unsettled(10_000, 100)).some((r) => r.id === row.id));
      const listed = await repo.list(`cust-c-${via}`, 'kalshi', { limit: 10, fromMs: 400, toMs: 600 });
      assert.deepEqual(
        listed.map((r) => r.id),
        [row.id],
      );
    },
  );
}
