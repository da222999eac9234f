// Catalogue facet: Gamma's keyset pagination over markets and events, and exact lookup by condition id (the
// native market id: shared by Gamma, the CLOB, the Data API and the chain) through the CLOB market's slug.
import type { Market, MarketEvent, Page } from '../../domain/market.js';
import type { CatalogFacet, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import type { PolymarketClient } from './client.js';
import { gammaEventToEvent, gammaMarketToMarket } from './parse.js';
import {
  PolymarketClobMarket,
  PolymarketGammaEventsKeyset,
  PolymarketGammaMarket,
  PolymarketGammaMarketsKeyset,
} from './payloads.js';

const decodeMarketsPage = payloadDecoder(PolymarketGammaMarketsKeyset);
const decodeEventsPage = payloadDecoder(PolymarketGammaEventsKeyset);
const decodeClobMarket = payloadDecoder(PolymarketClobMarket);
const decodeMarket = payloadDecoder(PolymarketGammaMarket);

/** Gamma's largest page; fewer requests matter more than page size for a full sync. */
const PAGE_SIZE = 500;
export const CONDITION_ID = /^0x[0-9a-fA-F]{64}$/;

export function polymarketCatalog(client: PolymarketClient): CatalogFacet {
  return {
    async fetchMarketsPage(ctx: VenueContext, cursor: string | null): Promise<Page<Market>> {
      const page = await client.get(client.gamma, ctx, decodeMarketsPage, {
        path: '/markets/keyset',
        query: { limit: PAGE_SIZE, after_cursor: cursor ?? undefined },
        operation: 'list_markets',
      });
      return {
        items: toMarkets(ctx, page.markets),
        cursor: nextCursor(page.next_cursor, page.markets.length),
      };
    },

    async fetchEventsPage(ctx: VenueContext, cursor: string | null): Promise<Page<MarketEvent>> {
      const page = await client.get(client.gamma, ctx, decodeEventsPage, {
        path: '/events/keyset',
        query: { limit: PAGE_SIZE, after_cursor: cursor ?? undefined },
        operation: 'list_events',
      });
      return {
        items: page.events.map(gammaEventToEvent),
        cursor: nextCursor(page.next_cursor, page.events.length),
      };
    },

    /**
     * One market by condition id, whatever its state. Gamma's offset-paged `/markets` is sunset, and its keyset
     * listing is not a lookup: the server forces active=true and archived=false there (official SDK), so a resolved
     * and archived market would read as unknown. The CLOB answers any market by condition id (the SDK's getMarket)
     * with its slug, and Gamma's `/markets/slug/{slug}` (the SDK's fetchMarket) gives the full document.
     */
    async fetchMarket(ctx: VenueContext, nativeId: string): Promise<Market | null> {
      if (!CONDITION_ID.test(nativeId)) return null;
      const conditionId = nativeId.toLowerCase();
      const clob = await unlessNotFound(
        client.get(client.clob, ctx, decodeClobMarket, {
          path: `/markets/${conditionId}`,
          operation: 'get_clob_market',
        }),
      );
      if (!clob) return null;
      const found = await unlessNotFound(
        client.get(client.gamma, ctx, decodeMarket, {
          path: `/markets/slug/${encodeURIComponent(clob.market_slug)}`,
          operation: 'get_market',
        }),
      );
      if (!found || found.conditionId.toLowerCase() !== conditionId) return null;
      return toMarkets(ctx, [found])[0] ?? null;
    },
  };
}

/** The answer, or null when the venue says it has no such market (404). */
async function unlessNotFound<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof VenueStatusError && error.status === 404) return null;
    throw error;
  }
}

function nextCursor(raw: string | null | undefined, count: number): string | null {
  return raw && count > 0 ? raw : null;
}

/** One malformed market must not sink a page of a full sync: it is logged and left out. */
function toMarkets(ctx: VenueContext, raw: readonly PolymarketGammaMarket[]): Market[] {
  const markets: Market[] = [];
  for (const m of raw) {
    if (!CONDITION_ID.test(m.conditionId)) continue;
    try {
      markets.push(gammaMarketToMarket(m));
    } catch (error) {
      ctx.logger.warn(
        { venue: 'polymarket', market: m.id, err: error },
        'market skipped: unreadable payload',
      );
    }
  }
  return markets;
}
