// The SQLite store checkpoints its WAL in a worker thread, not in the commit that fills it: the writer connection's
// own checkpoint is raised to a bound while the worker copies the WAL into the database file, and when the worker
// stops the writer checkpoints every 1000 pages again.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../../src/store/database.js';
import { OrderJournalRepo } from '../../../src/store/order-journal-repo.js';
import {
  BOUND_PAGES,
  type CheckpointClock,
  type CheckpointReport,
  checkpointDue,
} from '../../../src/store/wal-checkpointer.js';

let dir: string;
let store: Store;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'omnibook-wal-'));
  store = openStore({ dataDir: dir });
  await store.migrate();
});

after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pragma(statement: string): Promise<Record<string, number>> {
  const { rows } = await sql.raw<Record<string, number>>(`pragma ${statement}`).execute(store.db);
  return rows[0] as Record<string, number>;
}

test('the writer leaves checkpoints to the worker, which copies the WAL into the database file', {
  timeout: 120_000,
}, async () => {
  const checkpointer = store.walCheckpointer;
  assert.ok(checkpointer, 'a SQLite store has a checkpointer');
  assert.equal((await pragma('wal_autocheckpoint')).wal_autocheckpoint, BOUND_PAGES);
  const reports: CheckpointReport[] = [];
  checkpointer.on('checkpoint', (r) => reports.push(r));
  const failed = once(checkpointer, 'failed').then(([error]) => {
    throw error;
  });
  const journal = new OrderJournalRepo(store.db, store.sqliteWriter);
  for (let i = 0; i < 50; i++) {
    await journal.insert({
      customerId: 'cust-wal',
      exchange: 'kalshi',
      clientOrderId: `coid-wal-${i}`,
      venueOrderId: null,
      idempotencyKey: null,
      requestHash: 'h',
      request: JSON.stringify({ i, pad: 'x'.repeat(500) }),
      state: 'sent',
      nowMs: i,
    });
  }
  // Only the worker reports, and only checkpoints that copied frames written since its last one.
  const [report] = (await Promise.race([once(checkpointer, 'checkpoint'), failed])) as [CheckpointReport];
  assert.ok(report.checkpointed > 0 && report.checkpointed <= report.log, JSON.stringify(report));
});

test('the worker checkpoints at a quiet look, or after maxIntervalMs under writes that never pause', () => {
  const clock: CheckpointClock = { version: null, pending: false, lastMs: 0 };
  const look = (version: number, nowMs: number) => checkpointDue(clock, version, nowMs, 1_000);
  const ran = (nowMs: number) => {
    clock.lastMs = nowMs;
    clock.pending = false;
  };
  assert.equal(look(7, 100), true, 'the first look copies whatever is in the WAL already');
  ran(100);
  assert.equal(look(7, 200), false, 'nothing committed since: nothing to copy');
  // Commits at every look: no checkpoint lands on them until a second has passed since the last one.
  assert.equal(look(8, 300), false);
  assert.equal(look(9, 400), false);
  assert.equal(look(10, 1_099), false);
  assert.equal(look(11, 1_100), true);
  ran(1_100);
  // A commit, then a look that finds none after it: the pause is the moment to checkpoint.
  assert.equal(look(12, 1_200), false);
  assert.equal(look(12, 1_300), true);
  // Frames a reader still held stay pending: the next quiet look tries again.
  clock.lastMs = 1_300;
  assert.equal(look(12, 1_400), true);
  ran(1_400);
  assert.equal(look(12, 1_500), false);
});

test('once the worker has stopped the writer connection checkpoints on its own again', async () => {
  await store.walCheckpointer?.stop();
  assert.equal((await pragma('wal_autocheckpoint')).wal_autocheckpoint, 1000);
});
