// Escrowed builder fees on both dialects (migration 0009-fee-settlement): one row per escrow id, held until settled,
// moves only out of held (the settling caller's split wins a race with a caller that found it settled already), the
// job's scan least recently tried first, and the migration's copy of fees pulled before it (journal charge_ref).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import { FeeEscrowsRepo } from '../../../src/store/fee-escrows-repo.js';
import * as migration from '../../../src/store/migrations/0009-fee-settlement.js';
import { OrderJournalRepo } from '../../../src/store/order-journal-repo.js';
import { onBothDialects } from './dialects.js';

const id = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const fee = (n: number, nowMs = 1_000) => ({
  orderId: id(n),
  customerId: 'cust-fee',
  exchange: 'polymarket',
  clientOrderId: `coid-${n}`,
  deadlineS: 1_900_000_000,
  nowMs,
});

onBothDialects('fee escrows', (store) => {
  const repo = () => new FeeEscrowsRepo(store().db);

  test('an escrow id is recorded once; a second record of it is refused', async () => {
    assert.equal(await repo().insert(fee(1)), true);
    assert.equal(await repo().insert({ ...fee(1), clientOrderId: 'another' }), false);
    const row = await repo().byOrderId(id(1));
    assert.equal(row?.state, 'held');
    assert.equal(row?.clientOrderId, 'coid-1');
    assert.equal(row?.deadlineS, 1_900_000_000);
    assert.equal(row?.filledUnits, null);
  });

  test('settled moves a held fee once, with its split; forget drops only held fees', async () => {
    await repo().insert(fee(2));
    assert.equal(await repo().settled(id(2), { filled: 3_000_000n, size: 10_000_000n }, 2_000), true);
    assert.equal(await repo().settled(id(2), { filled: 1n, size: 1n }, 3_000), false, 'settled once');
    const row = await repo().byOrderId(id(2));
    assert.equal(row?.state, 'settled');
    assert.equal(row?.filledUnits, 3_000_000n);
    assert.equal(row?.sizeUnits, 10_000_000n);
    assert.equal(row?.updatedMs, 2_000);
    await repo().forget(id(2));
    assert.equal((await repo().byOrderId(id(2)))?.state, 'settled', 'a settled fee is never forgotten');
    await repo().insert(fee(3));
    await repo().forget(id(3));
    assert.equal(await repo().byOrderId(id(3)), undefined);
    assert.equal(await repo().insert(fee(3)), true, 'a forgotten escrow id may be recorded again');
  });

  test('the settling caller records its split even after a racing caller marked the row settled', async () => {
    await repo().insert(fee(4));
    assert.equal(await repo().settled(id(4), null, 2_000), true);
    assert.equal(await repo().settled(id(4), null, 2_500), false);
    assert.equal(await repo().settled(id(4), { filled: 5n, size: 10n }, 3_000), true);
    assert.equal((await repo().byOrderId(id(4)))?.filledUnits, 5n);
    assert.equal(
      await repo().settled(id(4), { filled: 7n, size: 10n }, 4_000),
      false,
      'a recorded split stays',
    );
    assert.equal((await repo().byOrderId(id(4)))?.filledUnits, 5n);
  });

  test('held lists held fees untried since the cutoff, least recently tried first; touch moves one back', async () => {
    for (const [n, at] of [
      [10, 500],
      [11, 100],
      [12, 300],
      [13, 9_000],
    ] as const) {
      await repo().insert(fee(n, at));
    }
    await repo().settled(id(12), null, 400);
    const ours = (rows: Awaited<ReturnType<FeeEscrowsRepo['held']>>) =>
      rows.filter((r) => r.orderId >= id(10) && r.orderId <= id(13)).map((r) => r.orderId);
    assert.deepEqual(ours(await repo().held(1_000, 100)), [id(11), id(10)]);
    await repo().touch(id(11), 800);
    assert.deepEqual(ours(await repo().held(1_000, 100)), [id(10), id(11)]);
    assert.deepEqual(ours(await repo().held(600, 100)), [id(10)]);
  });

  test('the migration copies fees journalled before it as held (journal charge_ref)', async () => {
    const journal = new OrderJournalRepo(store().db);
    const journalled = async (n: number, request: Record<string, unknown>) =>
      journal.insert({
        customerId: 'cust-old',
        exchange: 'polymarket',
        clientOrderId: `old-${n}`,
        venueOrderId: null,
        idempotencyKey: null,
        requestHash: 'h',
        request: JSON.stringify({ market_id: 'm', ...request }),
        state: 'accepted',
        nowMs: 7_000 + n,
      });
    await journalled(1, { charge_ref: id(101) });
    await journalled(2, {});
    await journalled(3, { charge_ref: id(103) });
    const db = store().db as unknown as Kysely<unknown>;
    await migration.down(db);
    await migration.up(db);
    const copied = await store()
      .db.selectFrom('fee_escrows')
      .selectAll()
      .where('customer_id', '=', 'cust-old')
      .orderBy('order_id')
      .execute();
    assert.deepEqual(
      copied.map((r) => [r.order_id, r.client_order_id, r.state, Number(r.created_ms), Number(r.deadline_s)]),
      [
        [id(101), 'old-1', 'held', 7_001, 0],
        [id(103), 'old-3', 'held', 7_003, 0],
      ],
    );
  });
});
