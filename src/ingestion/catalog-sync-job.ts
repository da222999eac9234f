// The server's background catalogue sync: holds the 'catalogue-sync' lease so one node syncs when several share a
// database, runs a pass over every venue, sleeps, and repeats. A lease lost mid-pass aborts the pass; its cursors
// are saved, so whichever node leads next resumes them. The timing, the lease and the state are `PeriodicJob`'s.
import { type PassReport, PeriodicJob, type Schedule } from '../domain/periodic-job.js';
import type { CatalogueExchangeHealth, CatalogueHealth } from '../services/health-service.js';
import type { SyncStateRepo } from '../store/sync-state-repo.js';
import type { LoggerLike } from '../venues/port.js';
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
  schedule?: Schedule;
}

export class CatalogSyncJob extends PeriodicJob {
  private lastResults: VenuePassResult[] = [];

  constructor(private readonly options: CatalogSyncJobOptions) {
    super({
      name: 'catalogue-sync',
      label: 'catalogue',
      logger: options.logger,
      intervalMs: options.refreshIntervalMs,
      // A failing pass (the database, not a venue: venue errors are reported in the pass) backs off exponentially.
      retryDelayMs: (failures) => Math.min(options.refreshIntervalMs, 1_000 * 2 ** Math.min(failures, 6)),
      lease: { store: options.state, name: CATALOGUE_LEASE, ttlMs: options.leaseTtlMs },
      nodeId: options.nodeId,
      clock: options.clock,
      schedule: options.schedule,
    });
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
    return { leader: this.isLeader, exchanges: Object.fromEntries(exchanges) };
  }

  protected async runPass(signal: AbortSignal): Promise<PassReport> {
    const results = await this.options.sync.runAll({ signal });
    // Cut short (stopped, or the lease lost): not a pass; the cursors are saved for whoever leads next.
    if (signal.aborted) return { error: null };
    this.lastResults = results;
    const failed = results.filter((r) => r.error !== null);
    const written = results.reduce((n, r) => n + r.written, 0);
    this.options.logger.info(
      {
        // This pass's number (the runner counts it once it returns).
        passes: this.passCount + 1,
        written,
        failed: failed.map((r) => r.exchange),
        // Venues that continued from a cursor saved by an earlier pass (a restart, a crash, a lost lease).
        resumed: results.filter((r) => r.resumed).map((r) => r.exchange),
      },
      'catalogue sync pass complete',
    );
    return { error: failed.length > 0 ? failed.map((r) => `${r.exchange}: ${r.error}`).join('; ') : null };
  }

  /** The outcome of the last completed pass, per exchange. */
  lastPass(): readonly VenuePassResult[] {
    return this.lastResults;
  }
}
