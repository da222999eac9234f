// SQL for events (a venue's grouping of markets): upserts from sync, exact lookups, and keyset pages sorted by
// volume (highest first, unknown volume last) with svc_group_id as the tie-breaker.
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { ExchangeId } from '../domain/exchanges.js';
import type { MarketEvent, MarketStatus } from '../domain/market.js';
import { encodeSvcId } from '../domain/svc-id.js';
import type { Database, EventsTable } from './schema.js';
import { foldText, parseSearchWords } from './search-text.js';

export interface EventFilter {
  status: MarketStatus;
  exchanges: readonly ExchangeId[] | null;
  minVolume: number | null;
  search: string | null;
}

export interface EventPosition {
  volume: number | null;
  id: string;
}

export type EventRow = EventsTable;

const UPSERT_CHUNK = 200;
/** Stands in for an unknown volume so one ordered index serves the sort; real volumes are never negative. */
const NO_VOLUME = -1;

export class EventsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Writes events; a row whose fields did not change is left alone. Returns how many rows were written. */
  async upsertMany(events: readonly MarketEvent[], syncedAt: string): Promise<number> {
    let written = 0;
    for (let i = 0; i < events.length; i += UPSERT_CHUNK) {
      const rows = events.slice(i, i + UPSERT_CHUNK).map((e) => ({
        svc_group_id: encodeSvcId(e.exchange, e.exchange_group_id),
        exchange: e.exchange,
        exchange_group_id: e.exchange_group_id,
        title: e.title,
        title_lc: foldText(e.title),
        status: e.status,
        close_time: e.close_time ?? null,
        volume_total: e.volume_total ?? NO_VOLUME,
        synced_at: syncedAt,
      }));
      const result = await this.db
        .insertInto('events')
        .values(rows)
        .onConflict((oc) =>
          oc
            .column('svc_group_id')
            .doUpdateSet((eb) => ({
              title: eb.ref('excluded.title'),
              title_lc: eb.ref('excluded.title_lc'),
              status: eb.ref('excluded.status'),
              close_time: eb.ref('excluded.close_time'),
              volume_total: eb.ref('excluded.volume_total'),
              synced_at: eb.ref('excluded.synced_at'),
            }))
            // Like markets, an unchanged event is left alone, so a refresh pass reports (and pays for) only changes.
            // `is distinct from` is null-safe on both dialects (SQLite since 3.39).
            .where(
              sql<SqlBool>`events.title <> excluded.title or events.status <> excluded.status or events.volume_total <> excluded.volume_total or events.close_time is distinct from excluded.close_time`,
            ),
        )
        .executeTakeFirst();
      written += Number(result.numInsertedOrUpdatedRows ?? 0);
    }
    return written;
  }

  async get(svcGroupId: string): Promise<EventRow | undefined> {
    const row = await this.db
      .selectFrom('events')
      .selectAll()
      .where('svc_group_id', '=', svcGroupId)
      .executeTakeFirst();
    return row && withVolume(row);
  }

  async getByExternal(exchange: ExchangeId, exchangeGroupId: string): Promise<EventRow | undefined> {
    const row = await this.db
      .selectFrom('events')
      .selectAll()
      .where('exchange', '=', exchange)
      .where('exchange_group_id', '=', exchangeGroupId)
      .executeTakeFirst();
    return row && withVolume(row);
  }

  async page(filter: EventFilter, after: EventPosition | null, limit: number): Promise<EventRow[]> {
    let q = this.filtered(filter);
    if (after) {
      const volume = after.volume ?? NO_VOLUME;
      q = q.where((eb) =>
        eb.or([
          eb('volume_total', '<', volume),
          eb.and([eb('volume_total', '=', volume), eb('svc_group_id', '>', after.id)]),
        ]),
      );
    }
    const rows = await q
      .selectAll()
      .orderBy('volume_total', 'desc')
      .orderBy('svc_group_id')
      .limit(limit)
      .execute();
    return rows.map(withVolume);
  }

  async count(filter: EventFilter): Promise<number> {
    const row = await this.filtered(filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  private filtered(filter: EventFilter) {
    let q = this.db.selectFrom('events').where('status', '=', filter.status);
    if (filter.exchanges) q = q.where('exchange', 'in', [...filter.exchanges]);
    if (filter.minVolume !== null) q = q.where('volume_total', '>=', filter.minVolume);
    // Events are few next to markets: every word as a substring of the folded title is fast enough.
    for (const word of filter.search ? parseSearchWords(filter.search) : []) {
      q = q.where(titleContains(word.text));
    }
    return q;
  }
}

function titleContains(word: string): Expression<SqlBool> {
  return sql<SqlBool>`title_lc like ${`%${word}%`}`;
}

function withVolume(row: EventRow): EventRow {
  return row.volume_total === NO_VOLUME ? { ...row, volume_total: null } : row;
}
