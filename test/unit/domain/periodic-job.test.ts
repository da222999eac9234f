// The periodic-job runner on virtual time: the test owns the clock and the timers (nothing waits on the wall
// clock), each pass is a promise the test settles, and the lease table is an in-memory one with the same rule as
// `SyncStateRepo.acquireLease` (free, expired, or already ours). Covered: the tick and its pauses, one pass at a
// time, nextPass/whenPasses, stop while a pass runs, a failing pass, the lease (one leader, a lost lease aborts
// the pass, a renewal failing for a whole ttl, release on stop after a renewal in flight).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type LeaseStore,
  type PassReport,
  PeriodicJob,
  type PeriodicJobOptions,
  type Schedule,
} from '../../../src/domain/periodic-job.js';
import { deferred } from '../../support/deferred.js';

/** Lets every promise callback queued so far (and those they queue) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

class VirtualTime {
  now = Date.UTC(2026, 0, 1);
  private seq = 0;
  private timers: Array<{ id: number; at: number; fn: () => void }> = [];
  readonly clock = () => this.now;
  readonly schedule: Schedule = (fn, ms) => {
    const timer = { id: ++this.seq, at: this.now + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  };

  /** Moves time on by `ms`, firing each timer that falls due on the way, in order, and letting its work run. */
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      await settle();
      const [due] = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id);
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.now = Math.max(this.now, due.at);
      due.fn();
    }
    this.now = end;
    await settle();
  }

  /** How long until each pending timer fires. */
  pending(): number[] {
    return this.timers.map((t) => t.at - this.now).sort((a, b) => a - b);
  }
}

/** A job whose passes are promises the test hands out; `signals` records each pass's signal. */
class ScriptedJob extends PeriodicJob {
  readonly signals: AbortSignal[] = [];
  private readonly queued: Array<Promise<PassReport>> = [];

  /** The next pass will end when the returned handle is resolved (or rejected). */
  hold() {
    const d = deferred<PassReport>();
    // Rejected before the pass takes it: marked handled here, the pass still sees the rejection.
    d.promise.catch(() => undefined);
    this.queued.push(d.promise);
    return d;
  }

  protected runPass(signal: AbortSignal): Promise<PassReport> {
    this.signals.push(signal);
    return this.queued.shift() ?? Promise.resolve({ error: null });
  }
}

class MemoryLeases implements LeaseStore {
  holder: string | null = null;
  expiresAt = 0;
  failing = false;
  gate: Promise<void> | null = null;
  readonly log: string[] = [];

  async acquireLease(name: string, holder: string, nowMs: number, ttlMs: number): Promise<boolean> {
    assert.equal(name, 'test-lease');
    if (this.gate) await this.gate;
    if (this.failing) throw new Error('database down');
    if (this.holder !== null && this.holder !== holder && this.expiresAt >= nowMs) return false;
    this.holder = holder;
    this.expiresAt = nowMs + ttlMs;
    this.log.push(`acquire ${holder}`);
    return true;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    assert.equal(name, 'test-lease');
    if (this.holder === holder) this.holder = null;
    this.log.push(`release ${holder}`);
  }
}

const quiet = { info: () => undefined, warn: () => undefined };

function jobOf(time: VirtualTime, extra: Partial<PeriodicJobOptions> = {}): ScriptedJob {
  return new ScriptedJob({
    name: 'test-job',
    label: 'test',
    logger: quiet,
    intervalMs: 1_000,
    clock: time.clock,
    schedule: time.schedule,
    ...extra,
  });
}

function leasedJob(time: VirtualTime, leases: MemoryLeases, nodeId: string): ScriptedJob {
  return jobOf(time, leaseOf(leases, nodeId));
}

function leaseOf(leases: MemoryLeases, nodeId: string): Partial<PeriodicJobOptions> {
  return { lease: { store: leases, name: 'test-lease', ttlMs: 3_000 }, nodeId };
}

/** A job started on fresh virtual time with its first pass running, held until the test ends it. */
async function passInFlight(extra: Partial<PeriodicJobOptions> = {}) {
  const time = new VirtualTime();
  const job = jobOf(time, extra);
  job.start();
  const pass = job.hold();
  await time.advance(0);
  return { time, job, pass };
}

test('a pass on start, then one an interval after each pass ends, reported in state()', async () => {
  const time = new VirtualTime();
  const job = jobOf(time);
  assert.deepEqual(job.state(), {
    name: 'test-job',
    health: 'starting',
    last_run_at: null,
    last_error: null,
  });
  job.start();
  job.start();
  const first = job.hold();
  await time.advance(0);
  assert.equal(job.signals.length, 1, 'one pass on start, however often start() is called');
  assert.equal(job.state().health, 'starting', 'still starting while the first pass runs');
  await time.advance(5_000);
  assert.equal(job.signals.length, 1, 'no other pass while one runs, however long it takes');
  assert.deepEqual(time.pending(), []);
  first.resolve({ error: null });
  await time.advance(0);
  assert.equal(job.passCount, 1);
  assert.deepEqual(job.state(), {
    name: 'test-job',
    health: 'running',
    last_run_at: new Date(time.now).toISOString(),
    last_error: null,
  });
  assert.deepEqual(time.pending(), [1_000], 'the next pass is timed from the end of this one');
  await time.advance(999);
  assert.equal(job.signals.length, 1);
  job.hold().resolve({ error: 'venue x: down' });
  await time.advance(1);
  assert.equal(job.passCount, 2);
  assert.equal(job.state().health, 'degraded');
  assert.equal(job.state().last_error, 'venue x: down');
  await time.advance(1_000);
  assert.equal(job.passCount, 3);
  assert.deepEqual(job.state().health, 'running');
  await job.stop();
});

test('runNow() while a pass runs waits for that pass instead of starting another', async () => {
  const { time, job, pass } = await passInFlight();
  const asked = [job.runNow(), job.runNow()];
  await time.advance(0);
  assert.equal(job.signals.length, 1, 'one pass in flight');
  pass.resolve({ error: null });
  await Promise.all(asked);
  assert.equal(job.passCount, 1);
  assert.deepEqual(time.pending(), [1_000], 'one next pass scheduled, not one per caller');
  // Asked between passes: runs now, and the pending timer is replaced rather than doubled.
  await job.runNow();
  assert.equal(job.passCount, 2);
  assert.deepEqual(time.pending(), [1_000]);
  await job.stop();
});

test('nextPass() waits for a pass that starts after the call; whenPasses(n) for the n-th', async () => {
  const time = new VirtualTime();
  const job = jobOf(time);
  const resolved: string[] = [];
  void job.whenPasses(2).then(() => resolved.push('second'));
  job.start();
  const first = job.hold();
  await time.advance(0);
  // The first pass is running: it started before this call, so the one after it is awaited.
  void job.nextPass().then(() => resolved.push('next'));
  first.resolve({ error: null });
  await time.advance(0);
  assert.equal(job.passCount, 1);
  assert.deepEqual(resolved, []);
  await time.advance(1_000);
  assert.equal(job.passCount, 2);
  assert.deepEqual(resolved.sort(), ['next', 'second']);
  await job.whenPasses(1);
  // Between passes, the next pass is the one awaited.
  let done = false;
  void job.nextPass().then(() => {
    done = true;
  });
  await time.advance(999);
  assert.equal(done, false);
  await time.advance(1);
  assert.equal(done, true);
  await job.stop();
});

test('stop() while a pass runs aborts it, waits for it, does not count it, and wakes every waiter', async () => {
  const { time, job, pass } = await passInFlight();
  const waiting = job.whenPasses(5);
  let stopped = false;
  const stopping = job.stop().then(() => {
    stopped = true;
  });
  await time.advance(0);
  assert.equal(job.signals[0]?.aborted, true, 'the pass was told to stop');
  assert.equal(stopped, false, 'stop() waits for the pass to end');
  pass.resolve({ error: 'half done' });
  await stopping;
  await waiting;
  assert.equal(job.passCount, 0, 'a pass cut short is not counted');
  assert.deepEqual(job.state(), { name: 'test-job', health: 'stopped', last_run_at: null, last_error: null });
  assert.deepEqual(time.pending(), [], 'nothing left scheduled');
  // Final: no start again, no pass on demand, and waiters resolve at once.
  job.start();
  await job.runNow();
  await job.nextPass();
  await time.advance(10_000);
  assert.equal(job.signals.length, 1);
  assert.equal(job.state().health, 'stopped');
});

test('a pass that throws makes the job degraded and is retried after retryDelayMs; a good pass clears it', async () => {
  const time = new VirtualTime();
  const delays: number[] = [];
  const job = jobOf(time, {
    retryDelayMs: (failures) => {
      delays.push(failures);
      return 100 * failures;
    },
  });
  job.start();
  job.hold().reject(new Error('database down'));
  await time.advance(0);
  assert.equal(job.state().health, 'degraded');
  assert.equal(job.state().last_error, 'database down');
  assert.equal(job.passCount, 0);
  assert.deepEqual(time.pending(), [100]);
  job.hold().reject(new Error('still down'));
  await time.advance(100);
  assert.deepEqual(time.pending(), [200], 'the second failure in a row waits longer');
  await time.advance(200);
  assert.deepEqual(delays, [1, 2]);
  assert.equal(job.passCount, 1);
  assert.equal(job.state().health, 'running');
  assert.equal(job.state().last_error, null);
  assert.deepEqual(time.pending(), [1_000]);
  await job.stop();
});

test('two nodes on one lease: one runs passes, the standby reports running, and takes over after stop()', async () => {
  const time = new VirtualTime();
  const leases = new MemoryLeases();
  const a = leasedJob(time, leases, 'node-a');
  const b = leasedJob(time, leases, 'node-b');
  a.start();
  b.start();
  await time.advance(0);
  assert.equal(a.isLeader, true);
  assert.equal(b.isLeader, false);
  assert.equal(a.passCount, 1);
  assert.equal(b.passCount, 0);
  assert.equal(b.signals.length, 0, 'a standby runs no pass');
  assert.equal(b.state().health, 'running', 'a standby is healthy');
  await time.advance(10_000);
  assert.equal(b.signals.length, 0);
  assert.ok(a.passCount >= 10);
  assert.equal(leases.holder, 'node-a', 'renewed every third of the ttl while passes run and between them');

  await a.stop();
  assert.equal(leases.holder, null, 'released on stop');
  // The standby's next lease check (every third of the ttl) takes it.
  const taken = b.whenPasses(1);
  await time.advance(1_000);
  await taken;
  assert.equal(b.isLeader, true);
  await b.stop();
  assert.deepEqual(leases.log.slice(-2), ['acquire node-b', 'release node-b']);
});

test('a lease lost mid-pass aborts the pass; it is not counted and the node stands by', async () => {
  const leases = new MemoryLeases();
  const { time, job, pass } = await passInFlight(leaseOf(leases, 'node-a'));
  assert.equal(job.isLeader, true);
  // Another node took the lease (ours expired during a pause, say).
  leases.holder = 'node-b';
  leases.expiresAt = time.now + 60_000;
  await time.advance(1_000);
  assert.equal(job.isLeader, false);
  assert.equal(job.signals[0]?.aborted, true, 'the pass was told the lease is gone');
  pass.resolve({ error: null });
  await time.advance(0);
  assert.equal(job.passCount, 0);
  assert.equal(job.state().health, 'starting', 'a pass cut short changes no state');
  await time.advance(1_000);
  assert.equal(job.signals.length, 1, 'no pass without the lease');
  assert.equal(job.state().health, 'running');
  await job.stop();
  assert.equal(leases.holder, 'node-b', 'a lease not ours is not released');
});

test('renewals failing for a whole ttl give the lease up; a failing renewal before that does not', async () => {
  const leases = new MemoryLeases();
  const { time, job, pass } = await passInFlight(leaseOf(leases, 'node-a'));
  leases.failing = true;
  await time.advance(2_000);
  assert.equal(job.isLeader, true, 'two failed renewals, less than a ttl since the last good one');
  assert.equal(job.signals[0]?.aborted, false);
  await time.advance(1_000);
  assert.equal(job.isLeader, false, 'a whole ttl without a renewal');
  assert.equal(job.signals[0]?.aborted, true);
  pass.resolve({ error: null });
  leases.failing = false;
  await time.advance(1_000);
  assert.equal(job.isLeader, true, 'taken again once the table answers');
  await job.stop();
});

test('stop() waits for a renewal in flight before releasing, so the lease is not taken back after release', async () => {
  const time = new VirtualTime();
  const leases = new MemoryLeases();
  const job = leasedJob(time, leases, 'node-a');
  job.start();
  await time.advance(0);
  assert.equal(job.isLeader, true);
  const gate = deferred<void>();
  leases.gate = gate.promise;
  await time.advance(1_000);
  const stopping = job.stop();
  await time.advance(0);
  assert.equal(leases.log.at(-1), 'acquire node-a', 'not released while a renewal is in flight');
  leases.gate = null;
  gate.resolve();
  await stopping;
  assert.equal(leases.log.at(-1), 'release node-a');
  assert.equal(leases.holder, null);
});

test('without a lease every node runs passes', async () => {
  const time = new VirtualTime();
  const job = jobOf(time);
  assert.equal(job.isLeader, true);
  job.start();
  await time.advance(0);
  assert.equal(job.passCount, 1);
  await job.stop();
});
