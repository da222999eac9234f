// The skeleton every periodic background job shares (catalogue sync, fee settlement, order reconciler): a pass, a
// pause, repeat; passes counted so callers can wait for the next one; optionally a lease (the `leases` table) so
// one node runs the passes when several share a database; the state /healthz reports; stop. A subclass writes only
// its pass. Time and timers are injected so the skeleton is tested by stepping them, not by waiting.
//
// - One pass at a time: the next is scheduled when one ends (a slow pass delays the next instead of overlapping
//   it), and a pass asked for while one runs (`runNow`) waits for that one instead of starting another.
// - The lease is taken, or renewed, every third of its ttl whether a pass runs or not. A node that loses it (or
//   cannot renew it for a whole ttl) aborts its pass through the pass's signal; a standby retries it as often.
// - A pass cut short (stop, lost lease) is not counted and changes no state; a pass that throws makes the job
//   `degraded` and is retried after `retryDelayMs`.
// - stop() is final: it aborts the pass in flight, waits for it and for a renewal in flight (which would otherwise
//   take the lease back just after it was released), releases the lease and wakes every waiter.
import { randomBytes } from 'node:crypto';
import type { BackgroundJob, JobState } from './background-job.js';

/** The lease table's two operations (`SyncStateRepo`). */
export interface LeaseStore {
  /** Takes or renews the named lease for `ttlMs`; true when `holder` now holds it. */
  acquireLease(name: string, holder: string, nowMs: number, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
}

/** The part of a logger the runner writes to (structurally the venues' `LoggerLike`). */
export interface JobLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** Calls `fn` once after `ms`; returns a cancel. */
export type Schedule = (fn: () => void, ms: number) => () => void;

/** Node's timers, unref'd: a pending pass never keeps the process alive. */
export const nodeSchedule: Schedule = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export interface PeriodicJobOptions {
  /** The job's name in /healthz and /metrics. */
  name: string;
  /** Its name in log lines ("<label> pass failed", "<label> lease", "could not renew the <label> lease"). */
  label: string;
  logger: JobLogger;
  /** Pause after a pass that ran to its end. */
  intervalMs: number;
  /** Pause after a pass that threw, by failures in a row; `intervalMs` by default. */
  retryDelayMs?: (failures: number) => number;
  /** Held while passes run; without one, every node runs them. */
  lease?: { store: LeaseStore; name: string; ttlMs: number };
  /** Identifies this node as the lease holder; random by default. */
  nodeId?: string;
  clock?: () => number;
  schedule?: Schedule;
}

/** How a pass that ran to its end went: `error` (one line, or null) makes the job `degraded`. */
export interface PassReport {
  error: string | null;
}

export abstract class PeriodicJob implements BackgroundJob {
  readonly name: string;
  readonly nodeId: string;
  protected readonly clock: () => number;
  private readonly schedule: Schedule;
  private current: JobState;
  private started = false;
  private stopped = false;
  private stopping: Promise<void> = Promise.resolve();
  private cancelTick: (() => void) | null = null;
  private cancelRenewal: (() => void) | null = null;
  private cycling: Promise<void> | null = null;
  private pass: AbortController | null = null;
  private renewing: Promise<void> = Promise.resolve();
  private leader = false;
  private leaseRenewedAt = 0;
  private failures = 0;
  private passes = 0;
  private waiters: Array<{ target: number; resolve: () => void }> = [];

  constructor(private readonly periodic: PeriodicJobOptions) {
    this.name = periodic.name;
    this.nodeId = periodic.nodeId ?? `node-${randomBytes(6).toString('hex')}`;
    this.clock = periodic.clock ?? Date.now;
    this.schedule = periodic.schedule ?? nodeSchedule;
    this.current = { name: this.name, health: 'starting', last_run_at: null, last_error: null };
  }

  /**
   * One pass. `signal` aborts when the job stops or loses its lease: a pass checks it between units of work and
   * passes it to calls that take one.
   */
  protected abstract runPass(signal: AbortSignal): Promise<PassReport>;

  /** Whether this node may run passes now: it holds the lease, or the job has none. */
  get isLeader(): boolean {
    return this.periodic.lease ? this.leader : true;
  }

  /** Passes this node ran to their end. */
  get passCount(): number {
    return this.passes;
  }

  /** Resolves once a pass that starts after this call has completed (or the job stops). */
  nextPass(): Promise<void> {
    // A pass running now started before this call: the one after it is the first to start after.
    return this.whenPasses(this.passes + (this.cycling ? 2 : 1));
  }

  /** Resolves once this node has completed `count` passes (or the job stops). */
  whenPasses(count = 1): Promise<void> {
    if (this.passes >= count || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ target: count, resolve }));
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    if (this.periodic.lease) this.scheduleRenewal();
    this.scheduleTick(0);
  }

  /** Runs a pass now (then the next after the usual pause); while one runs, waits for it instead of starting one. */
  runNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.cycling ??= this.cycle().finally(() => {
      this.cycling = null;
    });
    return this.cycling;
  }

  stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.stopping = this.shutdown();
    }
    return this.stopping;
  }

  state(): JobState {
    return this.current;
  }

  private async shutdown(): Promise<void> {
    this.cancelTick?.();
    this.cancelRenewal?.();
    this.pass?.abort();
    await this.cycling;
    await this.renewing;
    const lease = this.periodic.lease;
    if (lease && this.leader) {
      this.leader = false;
      await lease.store
        .releaseLease(lease.name, this.nodeId)
        .catch((err) =>
          this.periodic.logger.warn({ err }, `could not release the ${this.periodic.label} lease`),
        );
    }
    this.current = { ...this.current, health: 'stopped' };
    this.settleWaiters(true);
  }

  private scheduleTick(ms: number): void {
    this.cancelTick = this.schedule(() => void this.runNow(), ms);
  }

  private scheduleRenewal(): void {
    this.cancelRenewal = this.schedule(() => {
      this.scheduleRenewal();
      this.renewing = this.renewLease();
    }, this.leaseCheckMs);
  }

  /** How often the lease is renewed, and a standby (or a node that just lost it) looks again. */
  private get leaseCheckMs(): number {
    return Math.max(50, (this.periodic.lease?.ttlMs ?? 0) / 3);
  }

  /** A lease check and, when this node may run it, a pass; then the next one is scheduled. */
  private async cycle(): Promise<void> {
    this.cancelTick?.();
    const wait = await this.cycleOnce();
    if (this.started && !this.stopped) this.scheduleTick(wait);
  }

  /** Resolves to the pause before the next cycle. */
  private async cycleOnce(): Promise<number> {
    const { lease, logger, label } = this.periodic;
    try {
      if (lease && !this.leader) await this.renewLease();
      let wait = this.periodic.intervalMs;
      if (!this.isLeader) {
        // A standby is healthy; it takes over within about one ttl of the leader's last renewal.
        this.current = { ...this.current, health: 'running' };
        wait = this.leaseCheckMs;
      } else if (!(await this.passOnce()) && lease) {
        // A pass cut short by a lost lease is followed by a quick lease check, not a full interval.
        wait = this.leaseCheckMs;
      }
      this.failures = 0;
      return wait;
    } catch (error) {
      this.failures++;
      logger.warn({ err: error, failures: this.failures }, `${label} pass failed`);
      this.current = { ...this.current, health: 'degraded', last_error: (error as Error).message };
      return this.periodic.retryDelayMs?.(this.failures) ?? this.periodic.intervalMs;
    }
  }

  /** Runs the subclass's pass; false when it was cut short (stop, lost lease). */
  private async passOnce(): Promise<boolean> {
    const pass = new AbortController();
    this.pass = pass;
    try {
      const report = await this.runPass(pass.signal);
      if (pass.signal.aborted) return false;
      this.passes++;
      this.current = {
        name: this.name,
        health: report.error === null ? 'running' : 'degraded',
        last_run_at: new Date(this.clock()).toISOString(),
        last_error: report.error,
      };
      this.settleWaiters(false);
      return true;
    } finally {
      this.pass = null;
    }
  }

  /** Takes or renews the lease; losing it (or failing to renew it for a whole ttl) aborts the pass in flight. */
  private async renewLease(): Promise<void> {
    const lease = this.periodic.lease;
    if (!lease || this.stopped) return;
    const { logger, label } = this.periodic;
    const now = this.clock();
    try {
      const held = await lease.store.acquireLease(lease.name, this.nodeId, now, lease.ttlMs);
      if (held) this.leaseRenewedAt = now;
      if (held !== this.leader) logger.info({ node: this.nodeId, leader: held }, `${label} lease`);
      this.setLeader(held);
    } catch (error) {
      logger.warn({ err: error }, `could not renew the ${label} lease`);
      if (this.leader && now - this.leaseRenewedAt >= lease.ttlMs) this.setLeader(false);
    }
  }

  private setLeader(held: boolean): void {
    if (this.leader && !held) this.pass?.abort();
    this.leader = held;
  }

  private settleWaiters(all: boolean): void {
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (all || this.passes >= w.target) w.resolve();
      else keep.push(w);
    }
    this.waiters = keep;
  }
}
