// The venue circuit breaker's state machine, on a clock the test steps: consecutive failures open it, an open
// circuit refuses until its wait is over, one probe at a time in half-open, a probe's answer closes or reopens it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CircuitBreaker, type CircuitState } from '../../../src/domain/circuit-breaker.js';

function breaker(threshold = 3, openMs = 1_000) {
  let now = 0;
  const moves: Array<[CircuitState, CircuitState]> = [];
  const b = new CircuitBreaker(
    { failureThreshold: threshold, openMs },
    () => now,
    (from, to) => moves.push([from, to]),
  );
  return { b, moves, step: (ms: number) => (now += ms) };
}

function admitted(b: CircuitBreaker): { probe: boolean } {
  const a = b.admit();
  assert.ok(a.admitted, 'expected the call to be let through');
  return a;
}

test('failures below the threshold, or broken by a success, keep it closed', () => {
  const { b } = breaker(3);
  b.failure(admitted(b), 'x');
  b.failure(admitted(b), 'x');
  b.success(admitted(b));
  b.failure(admitted(b), 'x');
  b.failure(admitted(b), 'x');
  assert.equal(b.state, 'closed');
  assert.equal(b.consecutiveFailures, 2);
});

test('the threshold opens it; an open circuit refuses with the time left, then lets one probe through', () => {
  const { b, moves, step } = breaker(2, 1_000);
  b.failure(admitted(b), 'first');
  b.failure(admitted(b), 'second');
  assert.equal(b.state, 'open');
  assert.equal(b.lastError, 'second');
  step(400);
  assert.deepEqual(b.admit(), { admitted: false, retryAfterMs: 600 });
  step(600);
  assert.equal(b.state, 'half_open');
  const probe = admitted(b);
  assert.equal(probe.probe, true);
  // While the probe is out, everyone else is refused.
  assert.equal(b.admit().admitted, false);
  b.success(probe);
  assert.equal(b.state, 'closed');
  assert.equal(b.consecutiveFailures, 0);
  assert.deepEqual(moves, [
    ['closed', 'open'],
    ['open', 'half_open'],
    ['half_open', 'closed'],
  ]);
  assert.equal(b.transitions('open'), 1);
  assert.equal(b.transitions('closed'), 1);
});

test('a failed probe opens it for another full wait', () => {
  const { b, step } = breaker(1, 1_000);
  b.failure(admitted(b));
  step(1_000);
  b.failure(admitted(b), 'still down');
  assert.equal(b.state, 'open');
  step(999);
  assert.equal(b.admit().admitted, false);
  step(1);
  assert.equal(admitted(b).probe, true);
  assert.equal(b.transitions('open'), 2);
});

test('a released probe (no evidence) lets the next call probe instead', () => {
  const { b, step } = breaker(1, 10);
  b.failure(admitted(b));
  step(10);
  b.release(admitted(b));
  assert.equal(b.state, 'half_open');
  assert.equal(admitted(b).probe, true);
});

test('late answers to calls let through before it opened change nothing', () => {
  const { b } = breaker(1, 1_000);
  const early = admitted(b);
  const late = admitted(b);
  b.failure(early);
  assert.equal(b.state, 'open');
  b.success(late);
  assert.equal(b.state, 'open');
  b.failure(late);
  assert.equal(b.consecutiveFailures, 1);
});
