// SQL for published market links: same_market (served as matched_markets) and co_dependent (related_markets).
// The matching engine writes them; the catalogue only reads what is published.
import type { Kysely } from 'kysely';
import type { ExchangeId } from '../domain/exchanges.js';
import type { MarketStatus, RelationLink } from '../domain/market.js';
import type { ResolutionCheck } from '../domain/matching/resolution.js';
import type { Database } from './schema.js';

export type LinkKind = 'same_market' | 'co_dependent';

export interface LinkInput {
  svc_id: string;
  linked_svc_id: string;
  kind: LinkKind;
  confidence: number;
  confidence_tier: RelationLink['confidence_tier'];
  source: string;
  dependency_type?: string | null;
  dependency_direction?: string | null;
  /** The statements that produced the link, stored as a JSON array. */
  evidence?: readonly string[];
  /** same_market only: the linked market asks the question the other way round (its Yes is this one's No). */
  inverted?: boolean;
  /** same_market only: how both sides resolve, from this row's market's side. */
  resolution_check?: ResolutionCheck | null;
  /** Served to clients (default true); a link below `matching.minTier` is stored unpublished. */
  published?: boolean;
}

/** A published same_market link as cross-venue logic reads it: the twin, how sure, and which way round. */
export interface TwinLink {
  svc_id: string;
  exchange: ExchangeId;
  status: MarketStatus;
  confidence: number;
  confidence_tier: RelationLink['confidence_tier'];
  source: string;
  inverted: boolean;
  /**
   * Whether the two markets settle alike (wire contract §7), where the engine has checked it; absent or null: not
   * checked (cross-venue answers say so).
   */
  resolution_check?: ResolutionCheck | null;
}

/** One published same_market link between two markets, once (svc_id < linked_svc_id), with both markets' state. */
export interface SameMarketPair {
  a: { svc_id: string; exchange: ExchangeId; status: MarketStatus };
  b: { svc_id: string; exchange: ExchangeId; status: MarketStatus };
  confidence: number;
  confidence_tier: RelationLink['confidence_tier'];
  source: string;
  inverted: boolean;
  resolution_check?: ResolutionCheck | null;
}

/** A stored resolution check (JSON text), or null where the matcher wrote none. */
function parseCheck(text: string | null): ResolutionCheck | null {
  return text === null ? null : (JSON.parse(text) as ResolutionCheck);
}

/** Rows deleted or written per statement (well under SQLite's bound-parameter limit). */
const CHUNK = 300;

/** An event joined to another by same_market links of their markets (GET /events `matched_events`). */
export interface MatchedGroup {
  event_id: string;
  title: string;
  exchange: ExchangeId;
  status: MarketStatus;
  link_count: number;
  confidence: number;
}

export class LinksRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async publish(links: readonly LinkInput[], updatedAt: string): Promise<void> {
    if (links.length === 0) return;
    for (let i = 0; i < links.length; i += CHUNK)
      await this.upsert(this.db, links.slice(i, i + CHUNK), updatedAt);
  }

  /**
   * Replaces every link that has an end in `scope` by `links` (which must hold all links with an end there), in one
   * transaction: a reader sees the old links or the new ones, never a half-relinked market. `links` may be a lazy
   * iterable (the engine's stream): it is written a chunk at a time and never held whole. Answers the rows written.
   */
  async replaceAround(
    scope: readonly string[],
    links: Iterable<LinkInput>,
    updatedAt: string,
  ): Promise<number> {
    let written = 0;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < scope.length; i += CHUNK) {
        const part = scope.slice(i, i + CHUNK);
        await trx.deleteFrom('market_links').where('svc_id', 'in', part).execute();
        await trx.deleteFrom('market_links').where('linked_svc_id', 'in', part).execute();
      }
      let chunk: LinkInput[] = [];
      for (const link of links) {
        chunk.push(link);
        if (chunk.length === CHUNK) {
          await this.upsert(trx, chunk, updatedAt);
          written += chunk.length;
          chunk = [];
        }
      }
      if (chunk.length > 0) await this.upsert(trx, chunk, updatedAt);
      written += chunk.length;
    });
    return written;
  }

  /** The stored evidence of one link, or null when there is no such link. */
  async evidence(svcId: string, linkedSvcId: string, kind: LinkKind): Promise<string[] | null> {
    const row = await this.db
      .selectFrom('market_links')
      .select('evidence')
      .where('svc_id', '=', svcId)
      .where('linked_svc_id', '=', linkedSvcId)
      .where('kind', '=', kind)
      .executeTakeFirst();
    if (!row) return null;
    return row.evidence === null ? [] : (JSON.parse(row.evidence) as string[]);
  }

  private async upsert(db: Kysely<Database>, links: readonly LinkInput[], updatedAt: string): Promise<void> {
    if (links.length === 0) return;
    const rows = links.map((l) => ({
      svc_id: l.svc_id,
      linked_svc_id: l.linked_svc_id,
      kind: l.kind,
      confidence: l.confidence,
      confidence_tier: l.confidence_tier,
      source: l.source,
      published: l.published === false ? 0 : 1,
      dependency_type: l.dependency_type ?? null,
      dependency_direction: l.dependency_direction ?? null,
      evidence: l.evidence ? JSON.stringify(l.evidence) : null,
      inverted: l.inverted ? 1 : 0,
      resolution_check: l.resolution_check ? JSON.stringify(l.resolution_check) : null,
      updated_at: updatedAt,
    }));
    await db
      .insertInto('market_links')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['svc_id', 'linked_svc_id', 'kind']).doUpdateSet((eb) => ({
          confidence: eb.ref('excluded.confidence'),
          confidence_tier: eb.ref('excluded.confidence_tier'),
          source: eb.ref('excluded.source'),
          published: eb.ref('excluded.published'),
          dependency_type: eb.ref('excluded.dependency_type'),
          dependency_direction: eb.ref('excluded.dependency_direction'),
          evidence: eb.ref('excluded.evidence'),
          inverted: eb.ref('excluded.inverted'),
          resolution_check: eb.ref('excluded.resolution_check'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }

  /**
   * Events whose markets are published same_market links of each given event's markets: per pair of events, how
   * many such links join them and the strongest one's confidence; strongest first. An event never matches itself.
   */
  async matchedGroups(groupIds: readonly string[]): Promise<Map<string, MatchedGroup[]>> {
    const out = new Map<string, MatchedGroup[]>();
    if (groupIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('markets as m1')
      .innerJoin('market_links as l', 'l.svc_id', 'm1.svc_id')
      .innerJoin('markets as m2', 'm2.svc_id', 'l.linked_svc_id')
      .innerJoin('events as e', 'e.svc_group_id', 'm2.svc_group_id')
      .select((eb) => [
        'm1.svc_group_id as from_group',
        'm2.svc_group_id as to_group',
        'e.exchange',
        'e.title',
        'e.status',
        eb.fn.countAll<number | string>().as('links'),
        eb.fn.max('l.confidence').as('confidence'),
      ])
      .where('m1.svc_group_id', 'in', [...groupIds])
      .where('l.kind', '=', 'same_market')
      .where('l.published', '=', 1)
      .whereRef('m2.svc_group_id', '<>', 'm1.svc_group_id')
      .groupBy(['m1.svc_group_id', 'm2.svc_group_id', 'e.exchange', 'e.title', 'e.status'])
      .orderBy('confidence', 'desc')
      .orderBy('links', 'desc')
      .orderBy('to_group')
      .execute();
    for (const r of rows) {
      const list = out.get(r.from_group) ?? [];
      list.push({
        event_id: r.to_group,
        title: r.title,
        exchange: r.exchange,
        status: r.status,
        // Postgres answers count(*) as a string (bigint).
        link_count: Number(r.links),
        confidence: Number(r.confidence),
      });
      out.set(r.from_group, list);
    }
    return out;
  }

  /** The published same_market links of one market, strongest first, with the twin's current status. */
  async twins(svcId: string): Promise<TwinLink[]> {
    const rows = await this.db
      .selectFrom('market_links as l')
      .innerJoin('markets as m', 'm.svc_id', 'l.linked_svc_id')
      .select([
        'l.linked_svc_id',
        'm.exchange',
        'm.status',
        'l.confidence',
        'l.confidence_tier',
        'l.source',
        'l.inverted',
        'l.resolution_check',
      ])
      .where('l.svc_id', '=', svcId)
      .where('l.kind', '=', 'same_market')
      .where('l.published', '=', 1)
      .orderBy('l.confidence', 'desc')
      .orderBy('l.linked_svc_id')
      .execute();
    return rows.map((r) => ({
      svc_id: r.linked_svc_id,
      exchange: r.exchange as ExchangeId,
      status: r.status as MarketStatus,
      confidence: r.confidence,
      confidence_tier: r.confidence_tier as RelationLink['confidence_tier'],
      source: r.source,
      inverted: Number(r.inverted) === 1,
      resolution_check: parseCheck(r.resolution_check),
    }));
  }

  /** Published links of each market, strongest first; the linked market's current status comes from the store. */
  async forMarkets(svcIds: readonly string[], kind: LinkKind): Promise<Map<string, RelationLink[]>> {
    const out = new Map<string, RelationLink[]>();
    if (svcIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('market_links as l')
      .innerJoin('markets as m', 'm.svc_id', 'l.linked_svc_id')
      .select([
        'l.svc_id as from_id',
        'l.linked_svc_id',
        'm.exchange',
        'm.status',
        'l.confidence',
        'l.confidence_tier',
        'l.source',
        'l.dependency_type',
        'l.dependency_direction',
        'l.resolution_check',
      ])
      .where('l.svc_id', 'in', [...svcIds])
      .where('l.kind', '=', kind)
      .where('l.published', '=', 1)
      .orderBy('l.confidence', 'desc')
      .orderBy('l.linked_svc_id')
      .execute();
    for (const r of rows) {
      const link: RelationLink = {
        svc_id: r.linked_svc_id,
        exchange: r.exchange as ExchangeId,
        confidence: r.confidence,
        // Written by publish() from a typed LinkInput, so the stored text is one of the tiers.
        confidence_tier: r.confidence_tier as RelationLink['confidence_tier'],
        source: r.source,
        status: r.status,
      };
      if (kind === 'co_dependent') {
        link.dependency_type = r.dependency_type;
        link.dependency_direction = r.dependency_direction;
      } else if (r.resolution_check !== null) {
        link.resolution_check = JSON.parse(r.resolution_check) as ResolutionCheck;
      }
      const list = out.get(r.from_id) ?? [];
      list.push(link);
      out.set(r.from_id, list);
    }
    return out;
  }

  /**
   * Published same_market links whose two markets are both active and on `exchanges`, each once (the row whose
   * svc_id sorts first), at one of `tiers`; strongest first, then by ids, at most `limit`.
   */
  async sameMarketPairs(
    exchanges: readonly ExchangeId[],
    tiers: readonly RelationLink['confidence_tier'][],
    limit: number,
  ): Promise<SameMarketPair[]> {
    if (exchanges.length === 0 || tiers.length === 0) return [];
    const rows = await this.db
      .selectFrom('market_links as l')
      .innerJoin('markets as ma', 'ma.svc_id', 'l.svc_id')
      .innerJoin('markets as mb', 'mb.svc_id', 'l.linked_svc_id')
      .select([
        'l.svc_id',
        'l.linked_svc_id',
        'ma.exchange as a_exchange',
        'ma.status as a_status',
        'mb.exchange as b_exchange',
        'mb.status as b_status',
        'l.confidence',
        'l.confidence_tier',
        'l.source',
        'l.inverted',
        'l.resolution_check',
      ])
      .where('l.kind', '=', 'same_market')
      .where('l.published', '=', 1)
      .whereRef('l.svc_id', '<', 'l.linked_svc_id')
      .where('ma.status', '=', 'active')
      .where('mb.status', '=', 'active')
      .where('ma.exchange', 'in', [...exchanges])
      .where('mb.exchange', 'in', [...exchanges])
      .where('l.confidence_tier', 'in', [...tiers])
      .orderBy('l.confidence', 'desc')
      .orderBy('l.svc_id')
      .orderBy('l.linked_svc_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      a: { svc_id: r.svc_id, exchange: r.a_exchange as ExchangeId, status: r.a_status as MarketStatus },
      b: {
        svc_id: r.linked_svc_id,
        exchange: r.b_exchange as ExchangeId,
        status: r.b_status as MarketStatus,
      },
      confidence: r.confidence,
      confidence_tier: r.confidence_tier as RelationLink['confidence_tier'],
      source: r.source,
      inverted: Number(r.inverted) === 1,
      resolution_check: parseCheck(r.resolution_check),
    }));
  }
}
