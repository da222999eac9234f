import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionSeats } from '../../../src/realtime/connection-seats.js';

const limits = { maxUnauthenticated: 2, perCustomer: { free: 1, pro: 2, scale: 3, admin: 0 } };

test('unauthenticated seats run out at the cap and come back when released or authenticated', () => {
  const seats = new ConnectionSeats(limits);
  seats.open();
  seats.open();
  assert.equal(seats.hasRoom, false);
  seats.release(null);
  assert.equal(seats.hasRoom, true);
  seats.open();
  assert.equal(seats.authenticate('cus_a', 'pro'), true, 'authenticating frees the unauthenticated seat');
  assert.equal(seats.hasRoom, true);
  assert.equal(seats.unauthenticatedCount, 1);
});

test("a customer holds at most its tier's number; a refused seat stays unauthenticated until released", () => {
  const seats = new ConnectionSeats(limits);
  seats.open();
  assert.equal(seats.authenticate('cus_f', 'free'), true);
  seats.open();
  assert.equal(seats.authenticate('cus_f', 'free'), false);
  assert.equal(seats.unauthenticatedCount, 1);
  seats.release(null);
  assert.equal(seats.unauthenticatedCount, 0);
  seats.release('cus_f');
  seats.open();
  assert.equal(seats.authenticate('cus_f', 'free'), true, 'the released seat is taken again');
});

test('0 is no limit (admin by default)', () => {
  const seats = new ConnectionSeats({ maxUnauthenticated: 1_000, perCustomer: limits.perCustomer });
  for (let i = 0; i < 500; i++) {
    seats.open();
    assert.equal(seats.authenticate('cus_admin', 'admin'), true);
  }
});
