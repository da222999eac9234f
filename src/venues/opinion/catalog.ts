// Catalogue facet: GET /market pages (every status and type, newest first) as markets (a categorical row
// expands into its children) and as events (one per row), and lookups by marketId. A child's detail names no
// parent, so parents seen in pages are kept in a bounded index; one looked up before that is its own group.
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

function pageOf(cursor: string | null): number {
  if (cursor === null) return 1;
  if (!/^[1-9]\d{0,6}$/.test(cursor))
    throw new AppError('validation_error', `invalid opinion cursor '${cursor}'`);
  return Number(cursor);
}

export function opinionCatalog(client: OpinionClient, index: ParentIndex): CatalogFacet {
  async function page(ctx: VenueContext, cursor: string | null) {
    const pageNo = pageOf(cursor);
    const result = await client.public(ctx, decodeList, {
      path: '/market',
      // marketType 2 = binary and categorical together (the SDK's TopicType.ALL); no status = every status;
      // sortBy 1 = newest first: a market listed during a walk shifts later pages (a repeat, never a skip).
      query: { page: pageNo, limit: OPINION_PAGE_LIMIT, marketType: 2, sortBy: 1, chainId: '56' },
      operation: 'markets',
    });
    const rows = result.list ?? [];
    index.learn(rows);
    const total = result.total ?? null;
    const done = rows.length < OPINION_PAGE_LIMIT || (total !== null && pageNo * OPINION_PAGE_LIMIT >= total);
    return { rows, cursor: done ? null : String(pageNo + 1) };
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
