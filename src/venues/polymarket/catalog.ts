// Catalogue facet: Gamma's keyset pagination over markets and events, and exact lookup by condition id (the
// native market id: shared by Gamma, the CLOB, the Data API and the chain).
import type { Market, MarketEvent, Page } from '../../domain/market.js';
import type { CatalogFacet, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import type { PolymarketClient } from './client.js';
import { gammaEventToEvent, gammaMarketToMarket } from './parse.js';
import type { PolymarketGammaMarket } from './payloads.js';
import {
  PolymarketGammaEventsKeyset,
  PolymarketGammaMarketList,
  PolymarketGammaMarketsKeyset,
} from './payloads.js';

const decodeMarketsPage = payloadDecoder(PolymarketGammaMarketsKeyset);
const decodeEventsPage = payloadDecoder(PolymarketGammaEventsKeyset);
const decodeMarkets = payloadDecoder(PolymarketGammaMarketList);

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

    async fetchMarket(ctx: VenueContext, nativeId: string): Promise<Market | null> {
      if (!CONDITION_ID.test(nativeId)) return null;
      const markets = await client.get(client.gamma, ctx, decodeMarkets, {
        path: '/markets',
        query: { condition_ids: nativeId },
        operation: 'get_market',
      });
      const found = markets.find((m) => m.conditionId.toLowerCase() === nativeId.toLowerCase());
      return found ? (toMarkets(ctx, [found])[0] ?? null) : null;
    },
  };
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
