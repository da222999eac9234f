// The order journal on both dialects: a row per order, one per (customer, Idempotency-Key), found by either id,
// state moves guarded by the states they may leave, and the reconciler's scan of unsettled rows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OrderJournalRepo } from '../../../src/store/order-journal-repo.js';
import { onBothDialects } from './dialects.js';

onBothDialects('order journal', (store) => {
  const entry = (over: Partial<Parameters<OrderJournalRepo['insert']>[0]> = {}) => ({
    customerId: 'cust-a',
    exchange: 'kalshi',
    clientOrderId: `coid-${Math.random()}`,
    venueOrderId: null,
    idempotencyKey: null,
    requestHash: 'h1',
    request: '{"market_id":"KX"}',
    nowMs: 1_000,
    ...over,
  });

  test('an Idempotency-Key holds one row per customer; without a key every order is its own row', async () => {
    const repo = new OrderJournalRepo(store().db);
    const first = await repo.insert(entry({ idempotencyKey: 'k1' }));
    assert.equal(first.created, true);
    assert.equal(first.row.state, 'pending');
    const again = await repo.insert(entry({ idempotencyKey: 'k1', requestHash: 'h2' }));
    assert.equal(again.created, false);
    assert.equal(again.row.id, first.row.id);
    assert.equal(again.row.requestHash, 'h1');
    assert.equal((await repo.insert(entry({ idempotencyKey: 'k1', customerId: 'cust-b' }))).created, true);
    assert.equal((await repo.insert(entry())).created, true);
    assert.equal((await repo.insert(entry())).created, true);
  });

  test('state moves are guarded, rows are found by either id, unsettled rows are scanned oldest first', async () => {
    const repo = new OrderJournalRepo(store().db);
    const { row } = await repo.insert(entry({ customerId: 'cust-c', clientOrderId: 'coid-c', nowMs: 500 }));
    assert.equal(await repo.update(row.id, { state: 'sent', nowMs: 600 }, ['pending']), true);
    assert.equal(await repo.update(row.id, { state: 'sent', nowMs: 700 }, ['pending']), false);
    const scan = await repo.unsettled(650, 10);
    assert.ok(scan.some((r) => r.id === row.id));
    assert.equal(
      await repo.update(row.id, { state: 'accepted', venueOrderId: 'v-1', orderDoc: '{}', nowMs: 800 }, [
        'sent',
      ]),
      true,
    );
    assert.equal((await repo.find('cust-c', 'kalshi', 'v-1'))?.id, row.id);
    assert.equal((await repo.find('cust-c', 'kalshi', 'coid-c'))?.state, 'accepted');
    assert.equal(await repo.find('cust-a', 'kalshi', 'coid-c'), undefined, "never another customer's order");
    assert.ok(!(await repo.unsettled(10_000, 100)).some((r) => r.id === row.id));
    const listed = await repo.list('cust-c', 'kalshi', { limit: 10, fromMs: 400, toMs: 600 });
    assert.deepEqual(
      listed.map((r) => r.id),
      [row.id],
    );
  });
});
