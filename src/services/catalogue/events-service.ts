// GET /events: venue events from the catalogue store, highest volume first, with market counts and optionally
// their markets and the events on other exchanges their markets are matched to (same_market links).
import { validationError } from '../../errors/app-error.js';
import type { EventPosition, EventRow, EventsRepo } from '../../store/events-repo.js';
import type { LinksRepo } from '../../store/links-repo.js';
import type { MarketsRepo } from '../../store/markets-repo.js';
import type { ExchangesService } from '../exchanges-service.js';
import {
  EVENT_MARKETS_EMBEDDED,
  EVENTS_DEFAULT_LIMIT,
  type EventSummary,
  type EventsQuery,
} from './events-schema.js';
import { joinJson } from './json-bytes.js';
import { decodeCursor, encodeCursor, queryFingerprint } from './list-cursor.js';
import type { Pagination } from './markets-schema.js';
import { TtlCache } from './ttl-cache.js';

export class EventsService {
  private readonly totals: TtlCache<number>;

  constructor(
    private readonly events: EventsRepo,
    private readonly markets: MarketsRepo,
    private readonly links: LinksRepo,
    private readonly exchanges: ExchangesService,
    totalsTtlMs: number,
  ) {
    this.totals = new TtlCache(totalsTtlMs);
  }

  async list(q: EventsQuery): Promise<Buffer> {
    const filter = {
      status: q.status ?? 'active',
      exchanges: this.exchanges.filterList(q.exchanges, 'fetch_events'),
      minVolume: q.min_volume ?? null,
      search: q.search?.trim() ? q.search.trim() : null,
    };
    const limit = q.limit ?? EVENTS_DEFAULT_LIMIT;
    const fingerprint = queryFingerprint([
      'events',
      filter.status,
      filter.exchanges,
      filter.minVolume,
      filter.search?.toLowerCase() ?? null,
    ]);
    let after: EventPosition | null = null;
    if (q.cursor !== undefined) {
      const [volume, id] = decodeCursor(q.cursor, fingerprint, 2);
      if (!(volume === null || typeof volume === 'number') || typeof id !== 'string') {
        throw validationError(['cursor is not a cursor this server issued']);
      }
      after = { volume, id };
    }
    const [rows, total] = await Promise.all([
      this.events.page(filter, after, limit + 1),
      this.totals.get(fingerprint, () => this.events.count(filter)),
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > limit && last !== undefined;
    const counts = await this.markets.countByGroups(page.map((e) => e.svc_group_id));
    const groups = page.map((e) => e.svc_group_id);
    const [embedded, matched] = await Promise.all([
      q.include_markets ? this.embeddedMarkets(page) : null,
      q.include_matches ? this.links.matchedGroups(groups) : null,
    ]);
    const events = page.map((e) => {
      const item: EventSummary = {
        event_id: e.svc_group_id,
        title: e.title,
        market_count: counts.get(e.svc_group_id) ?? 0,
        total_volume: e.volume_total,
        exchanges: [e.exchange],
        status: e.status,
        close_time: e.close_time,
      };
      if (matched) item.matched_events = matched.get(e.svc_group_id) ?? [];
      const json = JSON.stringify(item);
      if (!embedded) return Buffer.from(json);
      return joinJson(`${json.slice(0, -1)},"markets":[`, embedded.get(e.svc_group_id) ?? [], ']}');
    });
    const pagination: Pagination = {
      count: page.length,
      total: Math.max(total, page.length),
      total_exact: true,
      has_more: hasMore,
    };
    if (hasMore) pagination.next_cursor = encodeCursor(fingerprint, [last.volume_total, last.svc_group_id]);
    return joinJson('{"events":[', events, `],"pagination":${JSON.stringify(pagination)}}`);
  }

  private async embeddedMarkets(page: readonly EventRow[]): Promise<Map<string, Buffer[]>> {
    const out = new Map<string, Buffer[]>();
    await Promise.all(
      page.map(async (e) => {
        const rows = await this.markets.findByGroup(e.svc_group_id, 0, EVENT_MARKETS_EMBEDDED);
        out.set(
          e.svc_group_id,
          rows.map((r) => r.doc),
        );
      }),
    );
    return out;
  }
}
