// Catalogue facet: categories (Predict.fun's events, each with its markets) paged by first/after cursor, and one
// market by its numeric id together with its category (for the event title and end date).

import { Type } from 'typebox';
import type { Market, MarketEvent, Page } from '../../domain/market.js';
import type { CatalogFacet, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import type { PredictfunClient } from './client.js';
import { toEvent, toMarket } from './parse.js';
import { envelope, PredictfunCategory, PredictfunMarket } from './payloads.js';

const decodeCategories = payloadDecoder(envelope(Type.Array(PredictfunCategory)));
const decodeCategory = payloadDecoder(envelope(PredictfunCategory));
const decodeMarket = payloadDecoder(envelope(PredictfunMarket));

/** The page size clients use against the venue; categories carry their markets, so one page is many markets. */
const PAGE_SIZE = 100;
export const MARKET_ID = /^[1-9]\d{0,14}$/;

export function predictfunCatalog(client: PredictfunClient): CatalogFacet {
  const categoriesPage = async (ctx: VenueContext, cursor: string | null) => {
    const page = await client.public(ctx, decodeCategories, {
      path: '/v1/categories',
      query: { first: PAGE_SIZE, after: cursor ?? undefined },
      operation: 'list_categories',
    });
    return { categories: page.data, cursor: page.data.length > 0 ? (page.cursor ?? null) : null };
  };

  return {
    async fetchMarketsPage(ctx: VenueContext, cursor: string | null): Promise<Page<Market>> {
      const page = await categoriesPage(ctx, cursor);
      return {
        items: page.categories.flatMap((c) => c.markets.map((m) => toMarket(m, c))),
        cursor: page.cursor,
      };
    },

    async fetchEventsPage(ctx: VenueContext, cursor: string | null): Promise<Page<MarketEvent>> {
      const page = await categoriesPage(ctx, cursor);
      return { items: page.categories.map(toEvent), cursor: page.cursor };
    },

    async fetchMarket(ctx: VenueContext, nativeId: string): Promise<Market | null> {
      if (!MARKET_ID.test(nativeId)) return null;
      let market: PredictfunMarket;
      try {
        market = (
          await client.public(ctx, decodeMarket, { path: `/v1/markets/${nativeId}`, operation: 'get_market' })
        ).data;
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
      try {
        const { data: category } = await client.public(ctx, decodeCategory, {
          path: `/v1/categories/${encodeURIComponent(market.categorySlug)}`,
          operation: 'get_category',
        });
        return toMarket(market, category);
      } catch (error) {
        // A market whose category cannot be read is still the market; only its event title and end are missing.
        if (isNotFound(error)) return toMarket(market, null);
        throw error;
      }
    },
  };
}

function isNotFound(error: unknown): boolean {
  return error instanceof VenueStatusError && error.status === 404;
}
