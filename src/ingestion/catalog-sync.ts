// Walks each venue's market and event pages into the store, one stream per venue, resuming from the cursor saved
// after every page. It owns the walk and its bookkeeping; scheduling and leadership belong to CatalogSyncJob, and
// pacing to each adapter's own transport.
import type { ExchangeId } from '../domain/exchanges.js';
import type { Market, Page } from '../domain/market.js';
import { isAppError } from '../errors/app-error.js';
import type { EventsRepo } from '../store/events-repo.js';
import type { MarketsRepo } from '../store/markets-repo.js';
import type { SyncResource, SyncStateRepo } from '../store/sync-state-repo.js';
import type { LoggerLike, VenueAdapter, VenueContext } from '../venues/port.js';
import { abortableSleep } from './abortable-sleep.js';

export type SyncPhase = 'markets' | 'events' | 'done' | 'failed' | 'aborted';

/** A live view of one venue's pass, for progress bars and /healthz. */
export interface VenueProgress {
  exchange: ExchangeId;
  phase: SyncPhase;
  markets_seen: number;
  events_seen: number;
  /** Rows this pass actually changed (unchanged documents are not rewritten). */
  written: number;
  pages: number;
  started_at: number;
  /** When the pass ended (done, failed or aborted); null while it runs. */
  finished_at: number | null;
  /** Items per second since this run started (resumed items not counted). */
  rate: number;
  /** Markets the last complete pass saw, when known: the basis of an ETA. */
  expected_markets: number | null;
  /** The pass started from a cursor saved by an earlier run. */
  resumed: boolean;
  error: string | null;
}

/** Rows written by one pass above which the database's statistics are refreshed. */
const ANALYZE_AFTER_WRITES = 5_000;

export interface VenuePassResult {
  exchange: ExchangeId;
  markets: number;
  events: number;
  written: number;
  pages: number;
  seconds: number;
  resumed: boolean;
  aborted: boolean;
  error: string | null;
}

export interface RunOptions {
  signal?: AbortSignal;
  onProgress?: (progress: VenueProgress) => void;
}

export interface RunAllOptions extends RunOptions {
  exchanges?: readonly ExchangeId[];
}

export interface CatalogSyncDeps {
  venues: () => readonly VenueAdapter[];
  markets: MarketsRepo;
  events: EventsRepo;
  state: SyncStateRepo;
  logger: LoggerLike;
  clock?: () => number;
  /** Venues walked at once; each is one request stream, so all of them by default. */
  concurrency?: number;
  /** Extra tries of a failed page on top of the transport's own retries, with exponential backoff. */
  pageRetries?: number;
  retryBaseMs?: number;
  /**
   * Told every market page written and asked to finish at the end of each pass: the matcher, which links new and
   * changed markets within the pass that brought them.
   */
  observer?: CatalogObserver;
}

export interface CatalogObserver {
  observe(markets: readonly Market[]): void;
  flush(): Promise<unknown>;
}

type PageFetcher<T> = (ctx: VenueContext, cursor: string | null) => Promise<Page<T>>;

class PassAborted extends Error {}

export class CatalogSync {
  private readonly inFlight = new Map<ExchangeId, Promise<VenuePassResult>>();
  private readonly progress = new Map<ExchangeId, VenueProgress>();
  private readonly lastTotals = new Map<ExchangeId, number>();
  private readonly clock: () => number;

  constructor(private readonly deps: CatalogSyncDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** Venues that have a catalogue to walk. */
  exchanges(): ExchangeId[] {
    return this.deps
      .venues()
      .filter((v) => typeof v.catalog.fetchMarketsPage === 'function')
      .map((v) => v.descriptor.id);
  }

  /** The latest progress of every venue walked by this process. */
  snapshot(): VenueProgress[] {
    return [...this.progress.values()].map((p) => ({ ...p }));
  }

  async runAll(options: RunAllOptions = {}): Promise<VenuePassResult[]> {
    const ids = (options.exchanges ?? this.exchanges()).filter((id) => this.exchanges().includes(id));
    const limit = Math.max(1, this.deps.concurrency ?? ids.length);
    const results: VenuePassResult[] = new Array(ids.length);
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const index = next++;
        const id = ids[index] as ExchangeId;
        results[index] = await this.runVenue(id, options);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, ids.length) }, worker));
    // A pass that rewrote much of the catalogue leaves the planner's statistics stale (PostgreSQL then plans
    // searches as full bitmap scans) and, on PostgreSQL, the visibility map empty (the search walk then reads the
    // heap); refreshing both (VACUUM ANALYZE) costs a few seconds at 100,000 markets, once per such pass.
    const written = results.reduce((sum, r) => sum + (r?.written ?? 0), 0);
    if (written >= ANALYZE_AFTER_WRITES) {
      await this.deps.markets.analyze().catch((err: unknown) => {
        this.deps.logger.warn({ err }, 'catalogue statistics refresh failed');
      });
    }
    if (this.deps.observer && !options.signal?.aborted) {
      await this.deps.observer.flush().catch((err: unknown) => {
        this.deps.logger.warn({ err }, 'linking the pass failed; the next pass retries');
      });
    }
    return results;
  }

  /**
   * One pass over a venue: markets, then events when it has them. A second call while a pass of the same venue is
   * running joins it, so two walkers never interleave their cursors.
   */
  runVenue(exchange: ExchangeId, options: RunOptions = {}): Promise<VenuePassResult> {
    const running = this.inFlight.get(exchange);
    if (running) return running;
    const pass = this.walkVenue(exchange, options).finally(() => this.inFlight.delete(exchange));
    this.inFlight.set(exchange, pass);
    return pass;
  }

  private async walkVenue(exchange: ExchangeId, options: RunOptions): Promise<VenuePassResult> {
    const venue = this.deps.venues().find((v) => v.descriptor.id === exchange);
    const fetchMarkets = venue?.catalog.fetchMarketsPage?.bind(venue.catalog);
    if (!venue || !fetchMarkets) throw new Error(`venue ${exchange} has no catalogue to sync`);
    const fetchEvents = venue.catalog.fetchEventsPage?.bind(venue.catalog);
    const signal = options.signal ?? new AbortController().signal;
    const started = this.clock();
    const progress: VenueProgress = {
      exchange,
      phase: 'markets',
      markets_seen: 0,
      events_seen: 0,
      written: 0,
      pages: 0,
      started_at: started,
      finished_at: null,
      rate: 0,
      expected_markets: this.lastTotals.get(exchange) ?? null,
      resumed: false,
      error: null,
    };
    let fresh = 0;
    const report = (counted: number) => {
      fresh += counted;
      const elapsed = Math.max(1, this.clock() - started) / 1000;
      progress.rate = fresh / elapsed;
      this.progress.set(exchange, { ...progress });
      options.onProgress?.({ ...progress });
    };
    report(0);

    let resource: SyncResource = 'markets';
    try {
      const [marketsState, eventsState] = await Promise.all([
        this.deps.state.get(exchange, 'markets'),
        this.deps.state.get(exchange, 'events'),
      ]);
      // An events walk in progress that began after the last full markets walk means this pass already did its
      // markets: resume the events instead of walking every market again.
      const marketsDone =
        fetchEvents !== undefined &&
        eventsState?.cursor != null &&
        marketsState?.cursor == null &&
        marketsState?.last_full_at != null &&
        eventsState.pass_started_at != null &&
        marketsState.last_full_at <= eventsState.pass_started_at;
      if (!marketsDone) {
        progress.resumed = marketsState?.cursor != null;
        const seen = await this.walk(
          exchange,
          'markets',
          fetchMarkets,
          async (items, at) => {
            const written = await this.deps.markets.upsertMany(items, at);
            this.deps.observer?.observe(items);
            return written;
          },
          { cursor: marketsState?.cursor ?? null, seen: marketsState?.pass_seen ?? 0 },
          signal,
          (n, written) => {
            progress.markets_seen = n;
            progress.written += written;
            progress.pages++;
          },
          report,
        );
        this.lastTotals.set(exchange, seen);
      }
      if (fetchEvents) {
        resource = 'events';
        progress.phase = 'events';
        progress.resumed ||= eventsState?.cursor != null;
        await this.walk(
          exchange,
          'events',
          fetchEvents,
          (items, at) => this.deps.events.upsertMany(items, at),
          { cursor: eventsState?.cursor ?? null, seen: eventsState?.pass_seen ?? 0 },
          signal,
          (n, written) => {
            progress.events_seen = n;
            progress.written += written;
            progress.pages++;
          },
          report,
        );
      }
      progress.phase = 'done';
    } catch (error) {
      if (error instanceof PassAborted || signal.aborted) {
        progress.phase = 'aborted';
      } else {
        progress.phase = 'failed';
        progress.error = describe(error);
        this.deps.logger.warn({ exchange, resource, err: error }, 'catalogue sync gave up this pass');
        await this.deps.state
          .recordError(exchange, resource, progress.error, this.iso())
          .catch((err) => this.deps.logger.error({ exchange, err }, 'could not record the sync error'));
      }
    }
    progress.finished_at = this.clock();
    report(0);
    return {
      exchange,
      markets: progress.markets_seen,
      events: progress.events_seen,
      written: progress.written,
      pages: progress.pages,
      seconds: (this.clock() - started) / 1000,
      resumed: progress.resumed,
      aborted: progress.phase === 'aborted',
      error: progress.error,
    };
  }

  /**
   * Walks one resource from `start` to the venue's last page. The next page is requested while the current one is
   * written, so the venue stream never waits on the database; a saved cursor always points past written pages.
   * Returns how many items the pass saw in total.
   */
  private async walk<T>(
    exchange: ExchangeId,
    resource: SyncResource,
    fetchPage: PageFetcher<T>,
    write: (items: readonly T[], syncedAt: string) => Promise<number>,
    start: { cursor: string | null; seen: number },
    signal: AbortSignal,
    onPage: (seen: number, written: number) => void,
    report: (counted: number) => void,
  ): Promise<number> {
    let seen = start.cursor === null ? 0 : start.seen;
    let canRestart = start.cursor !== null;
    let requestNo = 0;
    const request = (cursor: string | null) => {
      const pending = this.fetchWithRetry(exchange, resource, fetchPage, cursor, signal, ++requestNo);
      // The prefetch may fail while the current page is still being written; it is awaited (and thrown) later.
      pending.catch(() => undefined);
      return pending;
    };
    let pending = request(start.cursor);
    for (;;) {
      let page: Page<T>;
      try {
        page = await pending;
      } catch (error) {
        if (canRestart && !signal.aborted && isRejectedCursor(error)) {
          // A cursor from before a restart can have expired at the venue: start the pass again from the top.
          this.deps.logger.warn(
            { exchange, resource, err: error },
            'venue rejected the saved cursor; restarting',
          );
          canRestart = false;
          seen = 0;
          pending = request(null);
          continue;
        }
        throw error;
      }
      canRestart = false;
      if (signal.aborted) throw new PassAborted();
      if (page.cursor !== null) pending = request(page.cursor);
      const written = page.items.length > 0 ? await write(page.items, this.iso()) : 0;
      seen += page.items.length;
      if (page.cursor === null) await this.deps.state.completePass(exchange, resource, this.iso());
      else await this.deps.state.saveCursor(exchange, resource, page.cursor, seen, this.iso());
      onPage(seen, written);
      report(page.items.length);
      if (page.cursor === null) return seen;
      if (signal.aborted) throw new PassAborted();
    }
  }

  private async fetchWithRetry<T>(
    exchange: ExchangeId,
    resource: SyncResource,
    fetchPage: PageFetcher<T>,
    cursor: string | null,
    signal: AbortSignal,
    requestNo: number,
  ): Promise<Page<T>> {
    const retries = this.deps.pageRetries ?? 3;
    const base = this.deps.retryBaseMs ?? 1_000;
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) throw new PassAborted();
      const ctx: VenueContext = {
        signal,
        requestId: `sync-${exchange}-${resource}-${requestNo}`,
        logger: this.deps.logger,
        tenant: null,
      };
      try {
        return await fetchPage(ctx, cursor);
      } catch (error) {
        if (signal.aborted) throw new PassAborted();
        const retryable = !isAppError(error) || error.retryable;
        if (!retryable || attempt >= retries) throw error;
        this.deps.logger.debug(
          { exchange, resource, attempt, err: error },
          'catalogue page failed; retrying',
        );
        await abortableSleep(base * 2 ** attempt, signal);
      }
    }
  }

  private iso(): string {
    return new Date(this.clock()).toISOString();
  }
}

/** The venue answered a cursor with a client error: the cursor, not the venue, is the problem. */
function isRejectedCursor(error: unknown): boolean {
  return isAppError(error) && error.status >= 400 && error.status < 500 && error.status !== 429;
}

function describe(error: unknown): string {
  if (isAppError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
