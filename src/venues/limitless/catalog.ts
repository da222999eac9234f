// The Limitless catalogue facet: /markets/active walked by page number (25 rows per page, groups as one row with
// their markets nested), and exact lookups by slug. Legacy AMM markets are left out: they have no order book.
import type { Market, MarketEvent, Page } from '../../domain/market.js';
import { AppError } from '../../errors/app-error.js';
import type { CatalogFacet, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import type { LimitlessClient } from './client.js';
import { isClob, isGroup, limitlessMarketToMarket, rowToEvent, rowToMarkets, toNumber } from './parse.js';
import { LimitlessActivePage, LimitlessRow } from './payloads.js';

/** The most rows /markets/active serves per page. */
export const ACTIVE_PAGE_SIZE = 25;

const decodePage = payloadDecoder(LimitlessActivePage);
const decodeRow = payloadDecoder(LimitlessRow);

export function limitlessCatalog(client: LimitlessClient): Required<CatalogFacet> {
  async function activePage(ctx: VenueContext, cursor: string | null) {
    const page = cursor === null ? 1 : Number(cursor);
    if (!Number.isInteger(page) || page < 1) {
      throw new AppError('validation_error', `invalid limitless cursor '${cursor}'`);
    }
    const body = await client.get(ctx, decodePage, {
      path: '/markets/active',
      query: { page, limit: ACTIVE_PAGE_SIZE },
      operation: 'markets_active',
    });
    const total = toNumber(body.totalMarketsCount);
    const last = body.data.length < ACTIVE_PAGE_SIZE || (total !== null && page * ACTIVE_PAGE_SIZE >= total);
    return { rows: body.data, next: last ? null : String(page + 1) };
  }

  return {
    async fetchMarketsPage(ctx, cursor): Promise<Page<Market>> {
      const { rows, next } = await activePage(ctx, cursor);
      return { items: rows.flatMap(rowToMarkets), cursor: next };
    },

    async fetchEventsPage(ctx, cursor): Promise<Page<MarketEvent>> {
      const { rows, next } = await activePage(ctx, cursor);
      return { items: rows.filter((r) => isGroup(r) || isClob(r)).map(rowToEvent), cursor: next };
    },

    /** A market by slug; null for an unknown slug and for a group slug (a group is an event, not a market). */
    async fetchMarket(ctx, nativeId): Promise<Market | null> {
      try {
        const row = await client.get(ctx, decodeRow, {
          path: `/markets/${encodeURIComponent(nativeId)}`,
          operation: 'market',
        });
        if (isGroup(row) || !isClob(row)) return null;
        return limitlessMarketToMarket(row);
      } catch (error) {
        if (error instanceof VenueStatusError && error.status === 404) return null;
        throw error;
      }
    },
  };
}
