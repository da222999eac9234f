// The server's background catalogue sync: holds the 'catalogue-sync' lease so one node syncs when several share a
// database, runs a pass over every venue, sleeps, and repeats. A lease lost mid-pass aborts the pass; its cursors
// are saved, so whichever node leads next resumes them.
import { randomBytes } from 'node:crypto';
import type { BackgroundJob, JobState } from '../domain/background-job.js';
import type { CatalogueExchangeHealth, CatalogueHealth } from '../services/health-service.js';
import type { SyncStateRepo } from '../store/sync-state-repo.js';
import type { LoggerLike } from '../venues/port.js';
import { abortableSleep } from './abortable-sleep.js';
import type { CatalogSync, VenuePassResult } from './catalog-sync.js';

export const CATALOGUE_LEASE = 'catalogue-sync';

export interface CatalogSyncJobOptions {
  sync: CatalogSync;
  state: SyncStateRepo;
  logger: LoggerLike;
  refreshIntervalMs: number;
  leaseTtlMs: number;
  /** Identifies this node as the lease holder; random by default. */
  nodeId?: string;
  clock?: () => number;
}

export class CatalogSyncJob implements BackgroundJob {
  readonly name = 'catalogue-sync';
  readonly nodeId: string;
  private current: JobState = { name: this.name, health: 'starting', last_run_at: null, last_error: null };
  private stopper: AbortController | null = null;
  private pass: AbortController | null = null;
  private loop: Promise<void> = Promise.resolve();
  private renewer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> = Promise.resolve();
  private leader = false;
  private leaseRenewedAt = 0;
  private passes = 0;
  private lastResults: VenuePassResult[] = [];
  private waiters: Array<{ target: number; resolve: () => void }> = [];
  private readonly clock: () => number;

  constructor(private readonly options: CatalogSyncJobOptions) {
    this.nodeId = options.nodeId ?? `node-${randomBytes(6).toString('hex')}`;
    this.clock = options.clock ?? Date.now;
  }

  get isLeader(): boolean {
    return this.leader;
  }

  /** Completed passes on this node. */
  get passCount(): number {
    return this.passes;
  }

  /** Resolves once a pass that starts after this call has completed (or the job stops). */
  nextPass(): Promise<void> {
    return this.whenPasses(this.passes + (this.pass ? 2 : 1));
  }

  /** Resolves once this node has completed `count` passes (or the job stops). */
  whenPasses(count = 1): Promise<void> {
    if (this.passes >= count || !this.stopper) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ target: count, resolve }));
  }

  start(): void {
    if (this.stopper) return;
    const stopper = new AbortController();
    this.stopper = stopper;
    this.renewer = setInterval(
      () => {
        this.renewing = this.renewLease();
      },
      Math.max(50, this.options.leaseTtlMs / 3),
    );
    this.renewer.unref();
    this.loop = this.run(stopper.signal);
  }

  async stop(): Promise<void> {
    const stopper = this.stopper;
    if (!stopper) return;
    stopper.abort();
    this.pass?.abort();
    if (this.renewer) clearInterval(this.renewer);
    this.renewer = null;
    await this.loop;
    // A renewal already in flight would otherwise take the lease back just after it was released.
    await this.renewing;
    if (this.leader) {
      this.leader = false;
      await this.options.state
        .releaseLease(CATALOGUE_LEASE, this.nodeId)
        .catch((err) => this.options.logger.warn({ err }, 'could not release the catalogue lease'));
    }
    this.stopper = null;
    this.current = { ...this.current, health: 'stopped' };
    this.settleWaiters(true);
  }

  state(): JobState {
    return this.current;
  }

  /** Per-exchange detail for /healthz, read from the shared sync state so a standby node reports it too. */
  async catalogue(): Promise<CatalogueHealth> {
    const rows = await this.options.state.list();
    const live = new Map(this.options.sync.snapshot().map((p) => [p.exchange, p]));
    const exchanges = new Map<string, CatalogueExchangeHealth>();
    for (const row of rows) {
      const entry: CatalogueExchangeHealth = exchanges.get(row.exchange) ?? {
        markets_seen: 0,
        last_full_at: null,
        cursor_pending: false,
        last_error: null,
      };
      exchanges.set(row.exchange, entry);
      if (row.resource === 'markets') {
        entry.last_full_at = row.last_full_at;
        entry.markets_seen = live.get(row.exchange as never)?.markets_seen ?? row.pass_seen;
      }
      entry.cursor_pending ||= row.cursor !== null;
      entry.last_error ??= row.last_error;
    }
    return { leader: this.leader, exchanges: Object.fromEntries(exchanges) };
  }

  private async run(stop: AbortSignal): Promise<void> {
    let failures = 0;
    while (!stop.aborted) {
      let wait = this.options.refreshIntervalMs;
      try {
        if (!this.leader) await this.renewLease();
        if (this.leader) {
          // A pass cut short (lease lost) is followed by a quick lease check, not a full refresh interval.
          if (!(await this.runPass())) wait = Math.max(50, this.options.leaseTtlMs / 3);
        } else {
          // A standby is healthy; it retries the lease often enough to take over within about one ttl.
          if (this.current.health === 'starting') this.current = { ...this.current, health: 'running' };
          wait = Math.max(50, this.options.leaseTtlMs / 3);
        }
        failures = 0;
      } catch (error) {
        failures++;
        const message = (error as Error).message;
        this.options.logger.warn({ err: error, failures }, 'catalogue sync failed');
        this.current = { ...this.current, health: 'degraded', last_error: message };
        wait = Math.min(this.options.refreshIntervalMs, 1_000 * 2 ** Math.min(failures, 6));
      }
      await abortableSleep(wait, stop);
    }
  }

  private async runPass(): Promise<boolean> {
    const pass = new AbortController();
    this.pass = pass;
    try {
      const results = await this.options.sync.runAll({ signal: pass.signal });
      if (pass.signal.aborted) return false;
      this.lastResults = results;
      this.passes++;
      const failed = results.filter((r) => r.error !== null);
      this.current = {
        name: this.name,
        health: failed.length > 0 ? 'degraded' : 'running',
        last_run_at: new Date(this.clock()).toISOString(),
        last_error: failed.length > 0 ? failed.map((r) => `${r.exchange}: ${r.error}`).join('; ') : null,
      };
      const written = results.reduce((n, r) => n + r.written, 0);
      this.options.logger.info(
        {
          passes: this.passes,
          written,
          failed: failed.map((r) => r.exchange),
          // Venues that continued from a cursor saved by an earlier pass (a restart, a crash, a lost lease).
          resumed: results.filter((r) => r.resumed).map((r) => r.exchange),
        },
        'catalogue sync pass complete',
      );
      this.settleWaiters(false);
      return true;
    } finally {
      this.pass = null;
    }
  }

  /** Takes or renews the lease; losing it (or failing to renew for a whole ttl) aborts the pass in flight. */
  private async renewLease(): Promise<void> {
    if (this.stopper?.signal.aborted !== false) return;
    const now = this.clock();
    try {
      const held = await this.options.state.acquireLease(
        CATALOGUE_LEASE,
        this.nodeId,
        now,
        this.options.leaseTtlMs,
      );
      if (held) this.leaseRenewedAt = now;
      if (held !== this.leader)
        this.options.logger.info({ node: this.nodeId, leader: held }, 'catalogue lease');
      this.setLeader(held);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not renew the catalogue lease');
      if (this.leader && now - this.leaseRenewedAt >= this.options.leaseTtlMs) this.setLeader(false);
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

  /** The outcome of the last completed pass, per exchange. */
  lastPass(): readonly VenuePassResult[] {
    return this.lastResults;
  }
}
