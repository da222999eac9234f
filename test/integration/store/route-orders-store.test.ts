// Routed orders and paired executions on both dialects (migration 0012-route-orders): one row per (customer,
// Idempotency-Key) whoever inserts first, found by key and by public id only for its own customer and kind, listed
// newest first in keyset pages, and legs replaced only when they are still the legs the writer read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type NewRoute, RouteOrdersRepo } from '../../../src/store/route-orders-repo.js';
import { onBothDialects } from './dialects.js';

let ids = 0;
const route = (over: Partial<NewRoute> = {}): NewRoute => ({
  id: `route-${++ids}`,
  kind: 'route',
  customerId: 'cust-a',
  idempotencyKey: `key-${ids}`,
  requestHash: 'h1',
  request: '{"amount":"5"}',
  plan: '{}',
  legs: '{"legs":[]}',
  round: 1,
  nowMs: 1_000 + ids,
  ...over,
});

onBothDialects('route orders', (store) => {
  test('one row per customer and Idempotency-Key: a second insert answers the first row', async () => {
    const repo = new RouteOrdersRepo(store().db);
    const first = await repo.insert(route({ idempotencyKey: 'same' }));
    assert.equal(first.created, true);
    const second = await repo.insert(route({ idempotencyKey: 'same', requestHash: 'h2' }));
    assert.equal(second.created, false);
    assert.equal(second.row.id, first.row.id);
    assert.equal(second.row.requestHash, 'h1');
    // Another customer's key is its own.
    const other = await repo.insert(route({ idempotencyKey: 'same', customerId: 'cust-b' }));
    assert.equal(other.created, true);
    // Concurrent inserts under one key: one row.
    const raced = await Promise.all([0, 1, 2, 3].map(() => repo.insert(route({ idempotencyKey: 'raced' }))));
    assert.equal(raced.filter((r) => r.created).length, 1);
    assert.equal(new Set(raced.map((r) => r.row.id)).size, 1);
  });

  test('read by key and by id for its own customer and kind only', async () => {
    const repo = new RouteOrdersRepo(store().db);
    const { row } = await repo.insert(route({ customerId: 'cust-c', kind: 'arbitrage' }));
    assert.equal((await repo.byKey('cust-c', row.idempotencyKey))?.id, row.id);
    assert.equal((await repo.byId('cust-c', 'arbitrage', row.id))?.seq, row.seq);
    assert.equal(await repo.byId('cust-c', 'route', row.id), undefined);
    assert.equal(await repo.byId('cust-d', 'arbitrage', row.id), undefined);
    assert.equal((await repo.bySeq(row.seq))?.id, row.id);
  });

  test('listed newest first, in keyset pages', async () => {
    const repo = new RouteOrdersRepo(store().db);
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await repo.insert(route({ customerId: 'cust-list' }))).row);
    await repo.insert(route({ customerId: 'cust-list', kind: 'arbitrage' }));
    const page1 = await repo.list('cust-list', 'route', { limit: 3 });
    assert.deepEqual(
      page1.map((r) => r.id),
      made
        .slice(2)
        .reverse()
        .map((r) => r.id),
    );
    const page2 = await repo.list('cust-list', 'route', { beforeSeq: page1.at(-1)?.seq as number, limit: 3 });
    assert.deepEqual(
      page2.map((r) => r.id),
      made
        .slice(0, 2)
        .reverse()
        .map((r) => r.id),
    );
  });

  test('legs are replaced only when still the legs read (compare-and-set)', async () => {
    const repo = new RouteOrdersRepo(store().db);
    const { row } = await repo.insert(route());
    assert.equal(await repo.replaceLegs(row.seq, row.legs, '{"legs":[1]}', 2, 5_000), true);
    assert.equal(await repo.replaceLegs(row.seq, row.legs, '{"legs":[2]}', 2, 6_000), false);
    const now = await repo.bySeq(row.seq);
    assert.equal(now?.legs, '{"legs":[1]}');
    assert.equal(now?.round, 2);
    assert.equal(now?.updatedMs, 5_000);
    assert.equal(now?.createdMs, row.createdMs);
  });
});
