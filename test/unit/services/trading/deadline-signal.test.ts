// Trading calls share their deadline signal per 100 ms slot: the same signal within a slot, another past it, each
// ending with AbortSignal.timeout's TimeoutError and then dropped, so a later call never meets an aborted one.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { deadlineSignal } from '../../../../src/services/trading/deadline-signal.js';

test('calls whose deadlines fall in one slot share a signal; a later slot has its own', () => {
  const now = 1_000_000_000_000;
  const a = deadlineSignal(20_000, now + 1);
  assert.equal(deadlineSignal(20_000, now + 99), a);
  assert.equal(deadlineSignal(19_960, now + 50), a, 'by when it ends, not by the timeout asked');
  assert.notEqual(deadlineSignal(20_000, now + 101), a);
  assert.equal(a.aborted, false);
});

test('the signal aborts with a TimeoutError, and the next call gets a fresh one', async () => {
  const signal = deadlineSignal(1);
  // Many calls listen at once: no MaxListenersExceededWarning for a busy slot.
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  for (let i = 0; i < 50; i++) signal.addEventListener('abort', () => undefined, { once: true });
  // AbortSignal.timeout's timer does not hold the process open; this does until it fires.
  const alive = setInterval(() => undefined, 60_000);
  await once(signal, 'abort');
  clearInterval(alive);
  process.off('warning', onWarning);
  assert.equal((signal.reason as Error).name, 'TimeoutError');
  assert.deepEqual(
    warnings.map((w) => w.name).filter((n) => n === 'MaxListenersExceededWarning'),
    [],
  );
  const next = deadlineSignal(60_000);
  assert.notEqual(next, signal);
  assert.equal(next.aborted, false);
});
