// Keeps published links in step with the catalogue. It holds one MatchEngine in memory; on its first run it reads
// every stored market and relinks those whose fingerprint differs from the one stored when they were last linked
// (all of them on a new database, none after a restart with nothing changed). After that the catalogue sync hands
// it each page it wrote (`observe`), and `flush` — called at the end of every sync pass — links the markets that
// are new or whose matching inputs changed, within that pass, replacing only the links around them.
import type { Market } from '../../domain/market.js';
import type { ConfidenceTier } from '../../domain/matching/confidence.js';
import type { LinksRepo } from '../../store/links-repo.js';
import type { MarketsRepo } from '../../store/markets-repo.js';
import type { MatchStateRepo } from '../../store/match-state-repo.js';
import type { LoggerLike } from '../../venues/port.js';
import { toLinkRows } from './link-rows.js';
import { type EngineLink, MatchEngine } from './match-engine.js';

export interface MatchingDeps {
  markets: MarketsRepo;
  links: LinksRepo;
  state: MatchStateRepo;
  logger: LoggerLike;
  clock?: () => number;
  /** Links below this tier are stored unpublished (config matching.minTier). */
  minTier?: ConfidenceTier;
}

export interface FlushResult {
  /** Markets new or changed since they were last linked. */
  changed: number;
  /** Markets whose links were recomputed (the changed ones and their neighbourhood). */
  relinked: number;
  /** Link rows written (two per link: one from each side). */
  rows: number;
}

const READ_PAGE = 2_000;

export class MatchingService {
  private readonly engine = new MatchEngine();
  private readonly pending: Market[] = [];
  private primed = false;
  private dirty = new Set<string>();
  private running: Promise<FlushResult> | null = null;

  constructor(private readonly deps: MatchingDeps) {}

  /** Markets a sync page wrote; cheap (they are queued and fingerprinted at the next flush). */
  observe(markets: readonly Market[]): void {
    for (const m of markets) this.pending.push(m);
  }

  /** Links what changed since the last flush. Concurrent calls share one run. */
  flush(): Promise<FlushResult> {
    if (this.running) return this.running.then(() => this.flush());
    const run = this.runFlush().finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  private async prime(): Promise<void> {
    const stored = await this.deps.state.all();
    for (let after = 0; ; ) {
      const page = await this.deps.markets.docsAfter(after, READ_PAGE);
      if (page.length === 0) break;
      after = page[page.length - 1]?.seq ?? after;
      const markets = page.map((r) => JSON.parse(r.doc.toString('utf8')) as Market);
      this.engine.upsert(markets);
      for (const m of markets) {
        if (stored.get(m.svc_id) !== this.engine.fingerprint(m.svc_id)) this.dirty.add(m.svc_id);
      }
    }
    this.primed = true;
  }

  private async runFlush(): Promise<FlushResult> {
    if (!this.primed) await this.prime();
    const batch = this.pending.splice(0, this.pending.length);
    for (const id of this.engine.upsert(batch)) this.dirty.add(id);
    if (this.dirty.size === 0) return { changed: 0, relinked: 0, rows: 0 };
    const dirty = [...this.dirty];
    this.dirty = new Set();
    const started = performance.now();
    let scope: string[];
    let links: Iterable<EngineLink>;
    if (dirty.length === this.engine.size) {
      // Everything (a new database): links stream from the engine into the store, never held as a list.
      links = this.engine.streamAll();
      scope = dirty;
    } else {
      ({ scope, links } = this.engine.linkAround(dirty));
    }
    const now = new Date((this.deps.clock ?? Date.now)()).toISOString();
    let rows: number;
    try {
      rows = await this.deps.links.replaceAround(scope, toLinkRows(links, this.deps.minTier), now);
      await this.deps.state.save(
        dirty.map((svc_id) => ({ svc_id, fingerprint: this.engine.fingerprint(svc_id) ?? '' })),
        now,
      );
    } catch (error) {
      // Not linked after all: the next flush tries these markets again.
      for (const id of dirty) this.dirty.add(id);
      throw error;
    }
    this.deps.logger.info(
      {
        changed: dirty.length,
        relinked: scope.length,
        rows,
        ms: Math.round(performance.now() - started),
      },
      'markets linked',
    );
    return { changed: dirty.length, relinked: scope.length, rows };
  }
}
