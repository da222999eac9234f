// The server's book recorder as a background job: records the configured books (`recorder.books`) and every
// outcome of each exchange's `recorder.topN` most-traded active markets, recomputes that set every
// `refreshIntervalMs` (and once the first catalogue pass has filled the store), and deletes snapshots and recorded
// trades older than `retentionDays` whole UTC days. A book that cannot be recorded (unknown market, an exchange without a book
// stream) is logged and skipped; the rest are recorded.
import type { BackgroundJob, JobState } from '../domain/background-job.js';
import type { ExchangeId } from '../domain/exchanges.js';
import { parseSvcId } from '../domain/svc-id.js';
import type { CallerContext } from '../services/caller-context.js';
import type { MarketTarget, MarketTargets } from '../services/market-data/market-target.js';
import { dayOf } from '../store/book-snapshots-repo.js';
import type { LoggerLike } from '../venues/port.js';
import { abortableSleep } from './abortable-sleep.js';
import type { BookRecorder } from './book-recorder.js';

export interface BookRecorderJobOptions {
  recorder: BookRecorder;
  targets: MarketTargets;
  /** The svc_ids of an exchange's N most-traded active markets. */
  topMarkets: (exchange: ExchangeId, n: number) => Promise<string[]>;
  /** The exchanges whose books can be recorded (those with a book stream). */
  exchanges: () => ExchangeId[];
  dropBefore: (day: number) => Promise<number>;
  books: readonly string[];
  topN: number;
  refreshIntervalMs: number;
  retentionDays: number;
  logger: LoggerLike;
  /**
   * Resolves after the first catalogue pass (asked at start, after the catalogue job started): the top N is
   * recomputed then, so a new store gets its books.
   */
  catalogueReady?: () => Promise<void>;
  clock?: () => number;
}

export class BookRecorderJob implements BackgroundJob {
  readonly name = 'book-recorder';
  private current: JobState = { name: this.name, health: 'starting', last_run_at: null, last_error: null };
  private readonly held = new Map<string, { target: MarketTarget; release: () => void }>();
  private stopper: AbortController | null = null;
  private loop: Promise<void> = Promise.resolve();
  private refreshing: Promise<void> = Promise.resolve();
  private readonly clock: () => number;

  constructor(private readonly options: BookRecorderJobOptions) {
    this.clock = options.clock ?? Date.now;
  }

  start(): void {
    if (this.stopper) return;
    const stopper = new AbortController();
    this.stopper = stopper;
    this.loop = this.run(stopper.signal);
    void this.options.catalogueReady?.().then(() => {
      if (!stopper.signal.aborted) void this.refresh();
    });
  }

  async stop(): Promise<void> {
    const stopper = this.stopper;
    if (!stopper) return;
    stopper.abort();
    await this.loop;
    await this.refreshing;
    for (const { release } of this.held.values()) release();
    this.held.clear();
    await this.options.recorder.close();
    this.stopper = null;
    this.current = { ...this.current, health: 'stopped' };
  }

  state(): JobState {
    const writeError = this.options.recorder.lastError;
    if (writeError && this.current.health === 'running')
      return { ...this.current, health: 'degraded', last_error: writeError };
    return this.current;
  }

  /** The books this job records now. */
  recorded(): MarketTarget[] {
    return [...this.held.values()].map((h) => h.target);
  }

  /** Recomputes the recorded set now (one at a time: a call during a refresh waits for it, then runs). */
  refresh(): Promise<void> {
    this.refreshing = this.refreshing.then(() => this.refreshOnce());
    return this.refreshing;
  }

  private async run(stop: AbortSignal): Promise<void> {
    while (!stop.aborted) {
      await this.refresh();
      await this.sweep();
      await abortableSleep(this.options.refreshIntervalMs, stop);
    }
  }

  private async refreshOnce(): Promise<void> {
    if (this.stopper?.signal.aborted) return;
    const problems: string[] = [];
    const wanted = new Map<string, MarketTarget>();
    const add = (targets: MarketTarget[]) => {
      for (const t of targets)
        wanted.set(
          `${t.venue.descriptor.id}\u0000${t.market.exchange_market_id}\u0000${t.outcome.token_id}`,
          t,
        );
    };
    for (const spec of this.options.books) {
      try {
        add(await this.resolveSpec(spec));
      } catch (error) {
        problems.push(`${spec}: ${(error as Error).message}`);
      }
    }
    if (this.options.topN > 0) {
      for (const exchange of this.options.exchanges()) {
        try {
          for (const svcId of await this.options.topMarkets(exchange, this.options.topN)) {
            add(await this.resolveMarket(svcId, null));
          }
        } catch (error) {
          problems.push(`top ${this.options.topN} of ${exchange}: ${(error as Error).message}`);
        }
      }
    }
    for (const [key, { release }] of this.held) {
      if (wanted.has(key)) continue;
      release();
      this.held.delete(key);
    }
    for (const [key, target] of wanted) {
      if (this.held.has(key)) continue;
      try {
        this.held.set(key, { target, release: this.options.recorder.record(target) });
      } catch (error) {
        problems.push(`${key}: ${(error as Error).message}`);
      }
    }
    if (problems.length > 0)
      this.options.logger.warn({ problems }, 'some configured books cannot be recorded');
    this.current = {
      name: this.name,
      health: problems.length > 0 ? 'degraded' : 'running',
      last_run_at: new Date(this.clock()).toISOString(),
      last_error: problems[0] ?? null,
    };
  }

  /** `svc_id` (every outcome) or `svc_id:outcome`: a svc_id may itself hold colons, so the whole is tried first. */
  private async resolveSpec(spec: string): Promise<MarketTarget[]> {
    const cut = spec.lastIndexOf(':');
    const prefix = spec.slice(0, cut);
    if (cut > 0 && parseSvcId(prefix).ok) {
      try {
        return await this.resolveMarket(prefix, spec.slice(cut + 1));
      } catch (error) {
        if (!parseSvcId(spec).ok) throw error;
      }
    }
    return this.resolveMarket(spec, null);
  }

  private async resolveMarket(svcId: string, outcome: string | null): Promise<MarketTarget[]> {
    if (outcome === null)
      return this.options.targets.resolveOutcomes({ svc_id: svcId }, 'websocket', this.caller());
    return [await this.options.targets.resolve({ svc_id: svcId, outcome }, 'websocket', this.caller())];
  }

  private async sweep(): Promise<void> {
    const cut = dayOf(this.clock()) - this.options.retentionDays;
    try {
      const dropped = await this.options.dropBefore(cut);
      if (dropped > 0)
        this.options.logger.info({ dropped, beforeDay: cut }, 'old book snapshots and trades deleted');
    } catch (error) {
      this.options.logger.warn({ err: error }, 'book snapshot retention failed');
    }
  }

  private caller(): CallerContext {
    return { requestId: 'book-recorder', logger: this.options.logger, tenant: null, historyMaxAgeDays: 0 };
  }
}
