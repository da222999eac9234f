// Catalogue facet: Kalshi's events with their nested markets, walked with the exchange's own cursor (one request
// yields both the markets and their event titles), and one market by ticker.
import type { Market, MarketEvent, Page } from '../../domain/market.js';
import type { CatalogFacet, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import type { KalshiClient } from './client.js';
import { parseEvent, parseMarket } from './parse.js';
import {
  KalshiEventResponse,
  KalshiEventsPage,
  type KalshiMarket,
  KalshiMarketResponse,
} from './payloads.js';

const decodeEvents = payloadDecoder(KalshiEventsPage);
const decodeEvent = payloadDecoder(KalshiEventResponse);
const decodeMarket = payloadDecoder(KalshiMarketResponse);

/** The documented maximum page of GET /events. */
const EVENTS_PAGE = 200;

export function kalshiCatalog(client: KalshiClient): Required<CatalogFacet> {
  async function eventsPage(ctx: VenueContext, cursor: string | null) {
    const page = await client.get(ctx, decodeEvents, {
      path: '/events',
      query: { limit: EVENTS_PAGE, with_nested_markets: true, cursor: cursor ?? undefined },
      operation: 'get_events',
    });
    for (const e of page.events) client.rememberEventTitle(e.event_ticker, e.title);
    // An empty cursor ends the walk (a page can be empty while more follow, so only the cursor decides).
    return { events: page.events, cursor: page.cursor ? page.cursor : null };
  }

  async function marketAt(ctx: VenueContext, path: string, operation: string): Promise<KalshiMarket | null> {
    try {
      return (await client.get(ctx, decodeMarket, { path, operation })).market;
    } catch (error) {
      if (error instanceof VenueStatusError && error.status === 404) return null;
      throw error;
    }
  }

  return {
    async fetchMarketsPage(ctx: VenueContext, cursor: string | null): Promise<Page<Market>> {
      const page = await eventsPage(ctx, cursor);
      const items = page.events.flatMap((e) => (e.markets ?? []).map((m) => parseMarket(m, e)));
      return { items, cursor: page.cursor };
    },

    async fetchEventsPage(ctx: VenueContext, cursor: string | null): Promise<Page<MarketEvent>> {
      const page = await eventsPage(ctx, cursor);
      return { items: page.events.map(parseEvent), cursor: page.cursor };
    },

    async fetchMarket(ctx: VenueContext, nativeId: string): Promise<Market | null> {
      // A market settled before the historical cutoff is gone from the live tier and served by
      // GET /historical/markets/{ticker} (docs.kalshi.com "Historical data"): a live 404 asks there before "unknown".
      const market =
        (await marketAt(ctx, `/markets/${encodeURIComponent(nativeId)}`, 'get_market')) ??
        (await marketAt(ctx, `/historical/markets/${encodeURIComponent(nativeId)}`, 'get_historical_market'));
      if (!market) return null;
      let title = client.cachedEventTitle(market.event_ticker);
      if (title === undefined) {
        const { event } = await client.get(ctx, decodeEvent, {
          path: `/events/${encodeURIComponent(market.event_ticker)}`,
          operation: 'get_event',
        });
        title = event.title;
        client.rememberEventTitle(event.event_ticker, title);
      }
      return parseMarket(market, { title });
    },
  };
}
