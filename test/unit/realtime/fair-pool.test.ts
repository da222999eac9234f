// The fair-share rule of the pools of polled wallets and books: a lone customer gets half, the next one room of
// its own, a full pool refuses what is new but never what is already polled, and releases give room back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FairPool } from '../../../src/realtime/fair-pool.js';

function take(pool: FairPool, customer: string, units: string[]): Array<string | null> {
  return units.map((u) => pool.acquire(customer, u)?.reason ?? null);
}

test('a customer alone gets half the pool; the next one gets a share of its own', () => {
  const pool = new FairPool('watched wallets', 8);
  assert.deepEqual(take(pool, 'a', ['1', '2', '3', '4', '5']), [null, null, null, null, 'share']);
  // Two customers hold: b's share is floor(8 / 3) = 2.
  assert.deepEqual(take(pool, 'b', ['6', '7', '8']), [null, null, 'share']);
  assert.equal(pool.size, 6);
});

test('a full pool refuses new units, never one already polled; a release gives the room back', () => {
  const pool = new FairPool('polled books', 2);
  assert.deepEqual(take(pool, 'a', ['x', 'y']), [null, 'share']);
  assert.deepEqual(take(pool, 'b', ['y']), [null]);
  assert.equal(pool.acquire('c', 'z')?.reason, 'full');
  assert.equal(pool.acquire('c', 'x'), null, 'joining what is polled costs the exchange nothing');
  pool.release('a', 'x');
  assert.equal(pool.acquire('c', 'z')?.reason, 'full', 'c still holds x');
  pool.release('c', 'x');
  assert.equal(pool.size, 1);
  assert.equal(pool.acquire('c', 'z'), null);
});

test("a customer's several subscriptions of one unit are one holding, released with the last", () => {
  const pool = new FairPool('watched wallets', 4);
  assert.deepEqual(take(pool, 'a', ['1', '1', '2', '3']), [null, null, null, 'share']);
  pool.release('a', '1');
  assert.equal(pool.acquire('a', '3')?.reason, 'share', 'still holding 1 and 2');
  pool.release('a', '1');
  assert.equal(pool.acquire('a', '3'), null);
});
