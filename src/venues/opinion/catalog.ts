// Catalogue facet: GET /market pages (every status, newest first), binary rows then categorical rows, as markets
// (a categorical row expands into its children) and as events (one per row), and lookups by marketId. A child's
// detail names no parent, so parents seen in pages are kept in a bounded index; one looked up before is its own group.
import { AppError } from '../../errors/app-error.js';
import type { CatalogFacet, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { OPINION_PAGE_LIMIT, type OpinionClient } from './client.js';
import { isNotFound } from './errors.js';
import { eventOfRow, isCategorical, marketsOfRow, type OpinionParent, toMarket } from './parse.js';
import { type OpinionMarket, OpinionMarketDetail, OpinionMarketList } from './payloads.js';

const decodeList = payloadDecoder(OpinionMarketList);
const decodeDetail = payloadDecoder(OpinionMarketDetail);

/** Categorical children → their parent's fields, learnt from every page read; oldest entries go first. */
export class ParentIndex {
  private readonly parents = new Map<number, OpinionParent>();

  constructor(private readonly capacity = 250_000) {}

  learn(rows: readonly OpinionMarket[]): void {
    for (const row of rows) {
      if (!isCategorical(row)) continue;
      const { marketId, marketTitle, cutoffAt, rules, thumbnailUrl, coverUrl } = row;
      const parent: OpinionParent = { marketId, marketTitle, cutoffAt, rules, thumbnailUrl, coverUrl };
      for (const child of row.childMarkets ?? []) {
        this.parents.delete(child.marketId);
        this.parents.set(child.marketId, parent);
      }
    }
    while (this.parents.size > this.capacity) {
      const oldest = this.parents.keys().next().value;
      if (oldest === undefined) break;
      this.parents.delete(oldest);
    }
  }

  parentOf(childId: number): OpinionParent | null {
    return this.parents.get(childId) ?? null;
  }
}

/**
 * The catalogue is walked as two listings, because what the `marketType` query number means is contested
 * (docs/venues/opinion.md): 2 is "all" to the official SDK, ccxt and pmxt but "binary" to the OpenAPI text, while
 * 1 is categorical to all of them. So the walk asks for 2 and keeps its binary rows (by the row's own
 * `marketType`, which every source reads alike), then asks for 1 and keeps its categorical rows: every market is
 * listed once under either reading.
 */
const WALKS = [
  { phase: 'b', marketType: 2, keeps: (row: OpinionMarket) => !isCategorical(row) },
  { phase: 'c', marketType: 1, keeps: isCategorical },
] as const;

/** Cursor = phase letter + page number (`b3`, `c1`); a bare number (the single walk of before) is a `b` page. */
function positionOf(cursor: string | null): { walk: number; page: number } {
  if (cursor === null) return { walk: 0, page: 1 };
  const m = /^([bc]?)([1-9]\d{0,6})$/.exec(cursor);
  if (!m) throw new AppError('validation_error', `invalid opinion cursor '${cursor}'`);
  return { walk: m[1] === 'c' ? 1 : 0, page: Number(m[2]) };
}

export function opinionCatalog(client: OpinionClient, index: ParentIndex): CatalogFacet {
  async function page(ctx: VenueContext, cursor: string | null) {
    const { walk, page: pageNo } = positionOf(cursor);
    const current = WALKS[walk] as (typeof WALKS)[number];
    const result = await client.public(ctx, decodeList, {
      path: '/market',
      // No status = every status; sortBy 1 = newest first: a market listed during a walk shifts later pages (a
      // repeat, never a skip).
      query: {
        page: pageNo,
        limit: OPINION_PAGE_LIMIT,
        marketType: current.marketType,
        sortBy: 1,
        chainId: '56',
      },
      operation: 'markets',
    });
    const listed = result.list ?? [];
    index.learn(listed);
    const total = result.total ?? null;
    const done =
      listed.length < OPINION_PAGE_LIMIT || (total !== null && pageNo * OPINION_PAGE_LIMIT >= total);
    const following = WALKS[walk + 1];
    let next: string | null = null;
    if (!done) next = `${current.phase}${pageNo + 1}`;
    else if (following) next = `${following.phase}1`;
    return { rows: listed.filter(current.keeps), cursor: next };
  }

  return {
    async fetchMarketsPage(ctx, cursor) {
      const { rows, cursor: next } = await page(ctx, cursor);
      return { items: rows.flatMap(marketsOfRow), cursor: next };
    },

    async fetchEventsPage(ctx, cursor) {
      const { rows, cursor: next } = await page(ctx, cursor);
      return { items: rows.map(eventOfRow), cursor: next };
    },

    async fetchMarket(ctx, nativeId) {
      // Opinion market ids are integers; anything else cannot name one.
      if (!/^\d{1,12}$/.test(nativeId)) return null;
      let detail: OpinionMarketDetail;
      try {
        detail = await client.public(ctx, decodeDetail, { path: `/market/${nativeId}`, operation: 'market' });
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
      const data = detail.data;
      if (!data || String(data.marketId) !== nativeId) return null;
      // A categorical topic is an event (served by scope=event); its children are the markets.
      if (isCategorical(data)) {
        index.learn([data]);
        return null;
      }
      return toMarket(data, index.parentOf(data.marketId));
    },
  };
}
