// GET /markets: the four scopes (list, market, market_batch, event) over the catalogue store. Stored documents
// are UTF-8 JSON bytes and a response is concatenated from them, so a page of 100 markets is never parsed,
// re-serialized or re-encoded unless links were asked for. A market the store does not know yet is fetched from
// its venue.

import type { Market } from '../../domain/market.js';
import { parseSvcId } from '../../domain/svc-id.js';
import { AppError, validationError } from '../../errors/app-error.js';
import type { EventsRepo } from '../../store/events-repo.js';
import type { LinksRepo } from '../../store/links-repo.js';
import type {
  MarketCount,
  MarketFilter,
  MarketPageRow,
  MarketsRepo,
  SearchTier,
} from '../../store/markets-repo.js';
import type { VenueContext } from '../../venues/port.js';
import type { CallerContext } from '../caller-context.js';
import type { ExchangesService } from '../exchanges-service.js';
import { joinJson } from './json-bytes.js';
import { decodeCursor, encodeCursor, queryFingerprint } from './list-cursor.js';
import { LookupBudget } from './lookup-budget.js';
import {
  type EventHeader,
  MARKET_SCOPES,
  MAX_BATCH,
  MAX_LIMIT,
  type MarketScope,
  type MarketsQuery,
  type Pagination,
} from './markets-schema.js';
import { PageCache } from './page-cache.js';
import { TtlCache } from './ttl-cache.js';

export interface MarketsServiceOptions {
  /** Told of markets fetched on demand and stored (the matcher). */
  observer?: { observe(markets: readonly Market[]): void };
  /** How long a list total may be served before it is recounted in the background. */
  totalsTtlMs: number;
  /**
   * List and search pages served from memory: at most this many bytes, never after a write to the catalogue. This
   * node's writes drop them at once; another node's when this node next reads the store's catalogue version, which
   * a list request does at most once per `checkMs` (in the background: what another node wrote may be served for
   * up to `checkMs` and one read more). Absent: no page cache.
   */
  pageCache?: { maxBytes: number; checkMs: number };
  /** Deadline of one on-demand venue lookup. */
  venueTimeoutMs: number;
  /** How long a market the venue did not know is remembered as unknown. */
  missTtlMs: number;
  now?: () => number;
}

const SCOPE_PARAMS: Record<MarketScope, readonly (keyof MarketsQuery)[]> = {
  list: ['exchanges', 'status', 'search', 'min_volume', 'min_liquidity', 'limit', 'cursor'],
  market: ['svc_id', 'exchange', 'exchange_market_id'],
  market_batch: ['svc_ids', 'external_market_keys'],
  event: ['event_id', 'exchange', 'exchange_group_id', 'limit', 'cursor'],
};
const COMMON_PARAMS: readonly (keyof MarketsQuery)[] = ['scope', 'include_matches', 'include_related'];
const ON_DEMAND_CONCURRENCY = 8;
/**
 * A list's total is exact up to this many matches; beyond, the count stops and the response says so
 * (`total_exact: false`, `total` a lower bound). Counting every match of a common word at a million markets
 * costs as much as the matches, on every first request of a query; a bounded count never holds a page up.
 */
export const TOTAL_CAP = 1000;

export class MarketsService {
  private readonly totals: TtlCache<MarketCount>;
  private readonly misses: TtlCache<true>;
  private readonly budget: LookupBudget;
  private readonly pages: PageCache | null;
  /** When the catalogue version was last asked for, and whether that read is still running. */
  private versionCheckedAt = Number.NEGATIVE_INFINITY;
  private checkingVersion = false;

  constructor(
    private readonly markets: MarketsRepo,
    private readonly events: EventsRepo,
    private readonly links: LinksRepo,
    private readonly exchanges: ExchangesService,
    private readonly options: MarketsServiceOptions,
  ) {
    this.totals = new TtlCache(options.totalsTtlMs);
    this.misses = new TtlCache(options.missTtlMs);
    this.budget = new LookupBudget(options.now);
    this.pages = options.pageCache ? new PageCache(options.pageCache.maxBytes) : null;
  }

  /** The response body: UTF-8 JSON. */
  async query(q: MarketsQuery, caller: CallerContext): Promise<Buffer> {
    const scope = resolveScope(q);
    rejectForeignParams(q, scope);
    switch (scope) {
      case 'list':
        return this.list(q);
      case 'market':
        return this.one(q, caller);
      case 'market_batch':
        return this.batch(q, caller);
      case 'event':
        return this.event(q);
    }
  }

  /**
   * A list page, from the page cache when this exact query was answered since the store last changed. Pages with
   * links are not cached: links change without a catalogue write.
   */
  private async list(q: MarketsQuery): Promise<Buffer> {
    if (this.pages === null || q.include_matches || q.include_related) return this.listPage(q);
    const key = JSON.stringify([
      q.exchanges ?? null,
      q.status ?? 'active',
      q.search?.trim().toLowerCase() ?? null,
      q.min_volume ?? null,
      q.min_liquidity ?? null,
      q.limit ?? MAX_LIMIT,
      q.cursor ?? null,
    ]);
    this.checkForeignWrites(this.options.pageCache?.checkMs ?? 0);
    const pages = this.pages;
    const generation = this.markets.writeGeneration;
    const cached = pages.get(key, generation);
    if (cached) return cached;
    const body = await this.listPage(q);
    pages.set(key, generation, body);
    return body;
  }

  /**
   * Reads the store's catalogue version in the background when the last read is `checkMs` old, so the page cache
   * drops what another node's writes made out of date. One read at a time; a failed read is asked again next time.
   */
  private checkForeignWrites(checkMs: number): void {
    const now = (this.options.now ?? Date.now)();
    if (this.checkingVersion || now - this.versionCheckedAt < checkMs) return;
    this.checkingVersion = true;
    this.versionCheckedAt = now;
    this.markets
      .checkForeignWrites()
      .catch(() => undefined) // The store is down: its pages are what there is, and the next request asks again.
      .finally(() => {
        this.checkingVersion = false;
      });
  }

  private async listPage(q: MarketsQuery): Promise<Buffer> {
    const filter: MarketFilter = {
      status: q.status ?? 'active',
      exchanges: this.exchanges.filterList(q.exchanges, 'fetch_markets'),
      minVolume: q.min_volume ?? null,
      minLiquidity: q.min_liquidity ?? null,
      search: q.search?.trim() ? q.search.trim() : null,
    };
    const limit = q.limit ?? MAX_LIMIT;
    const fingerprint = queryFingerprint([
      'list',
      filter.status,
      filter.exchanges,
      filter.minVolume,
      filter.minLiquidity,
      filter.search?.toLowerCase() ?? null,
    ]);
    let after: { tier: SearchTier; seq: number } | null = null;
    if (q.cursor !== undefined) {
      const [tier, seq] = decodeCursor(q.cursor, fingerprint, 2);
      if (!(tier === 0 || tier === 1 || tier === 2) || !Number.isSafeInteger(seq)) {
        throw validationError(['cursor is not a cursor this server issued']);
      }
      after = { tier, seq: seq as number };
    }
    const [rows, total] = await Promise.all([
      this.markets.page(filter, after, limit + 1),
      this.totals.get(fingerprint, () => this.markets.count(filter, TOTAL_CAP)),
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > limit && last !== undefined;
    const nextCursor = hasMore ? encodeCursor(fingerprint, [last.tier, last.seq]) : undefined;
    return this.render(q, 'list', page.map(docOf), {
      count: page.length,
      // A total counted moments ago can trail the pages; it never claims fewer rows than were served.
      total: Math.max(total.total, (after ? 0 : page.length) + (hasMore ? 1 : 0)),
      total_exact: total.exact,
      has_more: hasMore,
      next_cursor: nextCursor,
    });
  }

  private async one(q: MarketsQuery, caller: CallerContext): Promise<Buffer> {
    const svcId = this.selectedId(
      'market',
      'svc_id',
      q.svc_id,
      'exchange_market_id',
      q.exchange,
      q.exchange_market_id,
    );
    const found = await this.lookup([svcId], caller, true);
    const doc = found.get(svcId);
    if (doc === undefined) throw new AppError('market_not_found', `no market ${svcId}`);
    return this.render(q, 'market', [doc], { count: 1, total: 1, total_exact: true, has_more: false });
  }

  private async batch(q: MarketsQuery, caller: CallerContext): Promise<Buffer> {
    if (q.svc_ids !== undefined && q.external_market_keys !== undefined) {
      throw validationError(['svc_ids and external_market_keys are mutually exclusive: send one list']);
    }
    const param = q.svc_ids !== undefined ? 'svc_ids' : 'external_market_keys';
    const raw = q.svc_ids ?? q.external_market_keys;
    if (raw === undefined) throw missing('scope=market_batch needs svc_ids or external_market_keys');
    const ids = raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    if (ids.length === 0) throw missing(`${param} is empty`);
    if (ids.length > MAX_BATCH) {
      throw validationError([`${param} holds ${ids.length} ids; at most ${MAX_BATCH} per request`]);
    }
    const problems: string[] = [];
    for (const id of ids) {
      const parsed = parseSvcId(id);
      if (!parsed.ok) problems.push(`${param}: ${parsed.reason}`);
    }
    if (problems.length > 0) throw validationError(problems);

    const seen = new Set<string>();
    const duplicates = new Set<string>();
    const unique: string[] = [];
    for (const id of ids) {
      if (seen.has(id)) duplicates.add(id);
      else {
        seen.add(id);
        unique.push(id);
      }
    }
    const found = await this.lookup(unique, caller, false);
    const docs: Buffer[] = [];
    const notFound: string[] = [];
    for (const id of unique) {
      const doc = found.get(id);
      if (doc === undefined) notFound.push(id);
      else docs.push(doc);
    }
    return this.render(
      q,
      'market_batch',
      docs,
      { count: docs.length, total: docs.length, total_exact: true, has_more: false },
      { duplicates: [...duplicates], notFound },
    );
  }

  private async event(q: MarketsQuery): Promise<Buffer> {
    const eventParam = q.event_id?.startsWith('ev:') ? q.event_id.slice(3) : q.event_id;
    const eventId = this.selectedId(
      'event',
      'event_id',
      eventParam,
      'exchange_group_id',
      q.exchange,
      q.exchange_group_id,
    );
    const limit = q.limit ?? MAX_LIMIT;
    const fingerprint = queryFingerprint(['event', eventId]);
    let afterSeq = 0;
    if (q.cursor !== undefined) {
      const [seq] = decodeCursor(q.cursor, fingerprint, 1);
      if (!Number.isSafeInteger(seq)) throw validationError(['cursor is not a cursor this server issued']);
      afterSeq = seq as number;
    }
    const [row, rows, total] = await Promise.all([
      this.events.get(eventId),
      this.markets.findByGroup(eventId, afterSeq, limit + 1),
      this.markets.countByGroup(eventId),
    ]);
    if (!row && total === 0) throw new AppError('event_not_found', `no event ${eventId}`);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > limit && last !== undefined;
    const docs = page.map(docOf);
    const title = row?.title ?? groupTitleOf(docs[0]);
    return this.render(
      q,
      'event',
      docs,
      {
        count: page.length,
        total,
        total_exact: true,
        has_more: hasMore,
        next_cursor: hasMore ? encodeCursor(fingerprint, [last.seq]) : undefined,
      },
      // Events are venue-scoped, so every market of one shares its exchange.
      { event: { event_id: eventId, title, market_count: total, exchange_count: total > 0 ? 1 : 0 } },
    );
  }

  /**
   * One market by svc_id, from the store or else from its venue (then stored): what the market-data routes resolve
   * their selector to. Null when neither knows it; a failing venue throws (503).
   */
  async findOne(svcId: string, caller: CallerContext): Promise<Market | null> {
    const doc = (await this.lookup([svcId], caller, true)).get(svcId);
    return doc === undefined ? null : (JSON.parse(doc.toString('utf8')) as Market);
  }

  /**
   * Stored documents for the given svc_ids; the rest are asked of their venues (bounded concurrency) and stored.
   * `strict`: a venue failure is an error (503) rather than a not-found.
   */
  private async lookup(svcIds: readonly string[], caller: CallerContext, strict: boolean) {
    const found = await this.markets.findBySvcIds(svcIds);
    const missing: string[] = [];
    for (const id of svcIds) {
      if (found.has(id) || this.misses.peek(id) !== undefined) continue;
      // Only what a venue would be asked costs a lookup; an id no enabled catalogue can answer is simply unknown.
      if (this.venueOf(id) !== null) missing.push(id);
      else this.misses.set(id, true);
    }
    const { granted, retryAfterMs } =
      caller.tenant !== null && caller.venueLookups
        ? this.budget.take(caller.tenant, missing.length, caller.venueLookups)
        : { granted: missing.length, retryAfterMs: 0 };
    const missingIds = missing.slice(0, granted);
    let next = 0;
    const worker = async () => {
      while (next < missingIds.length) {
        const id = missingIds[next++] as string;
        try {
          const market = await this.fetchFromVenue(id, caller);
          if (market) {
            await this.markets.upsertMany([market], new Date().toISOString());
            // Linked at the end of the next sync pass, like a market the sync itself brought.
            this.options.observer?.observe([market]);
            found.set(id, Buffer.from(JSON.stringify(market)));
          } else {
            this.misses.set(id, true);
          }
        } catch (error) {
          if (strict) throw error;
          caller.logger.warn({ svc_id: id, err: error }, 'on-demand market lookup failed');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(ON_DEMAND_CONCURRENCY, missingIds.length) }, worker));
    if (granted < missing.length) {
      // Refused, not reported missing: the venue was never asked. What was looked up is stored, so the retry
      // pays only for the rest.
      const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
      throw new AppError(
        'rate_limit_exceeded',
        `${missing.length - granted} of the markets asked for are not in the catalogue, and your tier's budget of ` +
          `exchange lookups (${caller.venueLookups?.venueLookupsPerSecond}/s, burst ` +
          `${caller.venueLookups?.venueLookupsBurst}) is spent: retry after ${seconds} s`,
        { headers: { 'retry-after': String(seconds) } },
      );
    }
    return found;
  }

  /** The venue to ask for this id, when one can be: it parses, and its exchange is enabled with a market lookup. */
  private venueOf(svcId: string) {
    const parsed = parseSvcId(svcId);
    if (!parsed.ok) return null;
    let venue: ReturnType<ExchangesService['venue']>;
    try {
      venue = this.exchanges.venueFor(parsed.value.exchange, 'fetch_markets');
    } catch {
      return null; // Not enabled here, or no catalogue: only the store can know it.
    }
    return venue.catalog.fetchMarket ? { venue, nativeId: parsed.value.nativeId } : null;
  }

  private async fetchFromVenue(svcId: string, caller: CallerContext): Promise<Market | null> {
    const asked = this.venueOf(svcId);
    const fetchMarket = asked?.venue.catalog.fetchMarket;
    if (!asked || !fetchMarket) return null;
    const { venue, nativeId } = asked;
    const ctx: VenueContext = { ...caller, signal: AbortSignal.timeout(this.options.venueTimeoutMs) };
    // The venue may spell the id its own way (case): the store keys it by the venue's spelling, and this answer
    // serves it under the id the client asked for.
    return fetchMarket.call(venue.catalog, ctx, nativeId);
  }

  private async render(
    q: MarketsQuery,
    scope: MarketScope,
    docs: Buffer[],
    pagination: Omit<Pagination, 'next_cursor'> & { next_cursor?: string | undefined },
    extra: { duplicates?: string[]; notFound?: string[]; event?: EventHeader } = {},
  ): Promise<Buffer> {
    const withLinks = q.include_matches || q.include_related ? await this.attachLinks(q, docs) : docs;
    const page: Pagination = {
      count: pagination.count,
      total: pagination.total,
      total_exact: pagination.total_exact,
      has_more: pagination.has_more,
    };
    if (pagination.next_cursor !== undefined) page.next_cursor = pagination.next_cursor;
    const tail =
      `],"duplicate_ids":${JSON.stringify(extra.duplicates ?? [])}` +
      `,"not_found_ids":${JSON.stringify(extra.notFound ?? [])}` +
      `,"pagination":${JSON.stringify(page)}` +
      (extra.event ? `,"event":${JSON.stringify(extra.event)}` : '') +
      '}';
    return joinJson(`{"scope":${JSON.stringify(scope)},"markets":[`, withLinks, tail);
  }

  private async attachLinks(q: MarketsQuery, docs: Buffer[]): Promise<Buffer[]> {
    const markets = docs.map((d) => JSON.parse(d.toString('utf8')) as Market & Record<string, unknown>);
    const ids = markets.map((m) => m.svc_id);
    const [matched, related] = await Promise.all([
      q.include_matches ? this.links.forMarkets(ids, 'same_market') : null,
      q.include_related ? this.links.forMarkets(ids, 'co_dependent') : null,
    ]);
    return markets.map((m) => {
      if (matched) m.matched_markets = matched.get(m.svc_id) ?? [];
      if (related) m.related_markets = related.get(m.svc_id) ?? [];
      return Buffer.from(JSON.stringify(m));
    });
  }

  /**
   * The `{exchange}:{native}` id a scope selects: either the id parameter, or `exchange` + the native parameter
   * (never both, never half of the second form).
   */
  private selectedId(
    scope: MarketScope,
    idParam: string,
    id: string | undefined,
    nativeParam: string,
    exchange: string | undefined,
    native: string | undefined,
  ): string {
    if (id !== undefined && (exchange !== undefined || native !== undefined)) {
      throw validationError([
        `${idParam} and exchange + ${nativeParam} are mutually exclusive: send one form`,
      ]);
    }
    if (id !== undefined) {
      const parsed = parseSvcId(id);
      if (!parsed.ok) throw validationError([`${idParam}: ${parsed.reason}`]);
      return id;
    }
    if (exchange === undefined || native === undefined) {
      throw missing(`scope=${scope} needs ${idParam}, or exchange together with ${nativeParam}`);
    }
    return `${this.exchanges.venue(exchange).descriptor.id}:${native}`;
  }
}

function resolveScope(q: MarketsQuery): MarketScope {
  if (q.scope !== undefined) return q.scope;
  // Rule 1: a batch list without a scope means market_batch.
  if (q.svc_ids !== undefined || q.external_market_keys !== undefined) return 'market_batch';
  return 'list';
}

function rejectForeignParams(q: MarketsQuery, scope: MarketScope): void {
  const allowed = new Set<keyof MarketsQuery>([...COMMON_PARAMS, ...SCOPE_PARAMS[scope]]);
  const foreign = (Object.keys(q) as (keyof MarketsQuery)[]).filter(
    (k) => q[k] !== undefined && !allowed.has(k),
  );
  if (foreign.length === 0) return;
  throw validationError(
    foreign.map((k) => {
      const owner = MARKET_SCOPES.find((s) => SCOPE_PARAMS[s].includes(k));
      return `${k} is not a parameter of scope=${scope}${owner ? ` (it belongs to scope=${owner})` : ''}`;
    }),
  );
}

function missing(message: string): AppError {
  return new AppError('missing_parameter', message, { validationErrors: [message] });
}

function docOf(row: MarketPageRow): Buffer {
  return row.doc;
}

function groupTitleOf(doc: Buffer | undefined): string {
  if (doc === undefined) return '';
  return (JSON.parse(doc.toString('utf8')) as Market).group_title;
}
