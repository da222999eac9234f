import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { attemptDeadline } from '../../../../src/venues/shared/attempt-deadline.js';

test("a caller's signal already aborted aborts the attempt at once, for the caller's reason", () => {
  const parent = new AbortController();
  parent.abort(new Error('caller gone'));
  const deadline = attemptDeadline(parent.signal, 1_000);
  assert.equal(deadline.signal.aborted, true);
  assert.equal((deadline.signal.reason as Error).message, 'caller gone');
});

test("the caller's abort reaches the attempt; its timer then no longer matters", (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const parent = new AbortController();
  const deadline = attemptDeadline(parent.signal, 1_000);
  assert.equal(deadline.signal.aborted, false);
  parent.abort(new Error('shutting down'));
  assert.equal((deadline.signal.reason as Error).message, 'shutting down');
  t.mock.timers.tick(1_000);
  assert.equal((deadline.signal.reason as Error).message, 'shutting down');
});

test('the timeout aborts with a TimeoutError, as AbortSignal.timeout does', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const parent = new AbortController();
  const deadline = attemptDeadline(parent.signal, 1_000);
  t.mock.timers.tick(999);
  assert.equal(deadline.signal.aborted, false);
  t.mock.timers.tick(1);
  assert.equal(deadline.signal.aborted, true);
  assert.equal((deadline.signal.reason as Error).name, 'TimeoutError');
});

test("clear stops the timer and leaves no listener on the caller's signal", (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const parent = new AbortController();
  const deadline = attemptDeadline(parent.signal, 1_000);
  assert.equal(getEventListeners(parent.signal, 'abort').length, 1);
  deadline.clear();
  assert.equal(getEventListeners(parent.signal, 'abort').length, 0);
  t.mock.timers.tick(1_000);
  parent.abort();
  assert.equal(deadline.signal.aborted, false);
});
