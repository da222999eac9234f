// The Limitless adapter: the only export of this folder. Everything the exchange speaks — its REST API
// (markets, books, history, trade feed, portfolios), HMAC / API-key authentication and the Socket.IO book feed —
// stays behind this factory, as do EIP-712 order signing and the order routes.
import { Type } from 'typebox';
import type { PingOutcome, VenueAdapter, VenueContext, VenueSession } from '../port.js';
import { describeVenueError, withMappedErrors } from '../shared/facet-errors.js';
import { payloadDecoder } from '../shared/payload.js';
import { limitlessCatalog } from './catalog.js';
import { LimitlessClient, type LimitlessClientOptions } from './client.js';
import { LIMITLESS_DESCRIPTOR } from './descriptor.js';
import { mapLimitlessError } from './errors.js';
import { limitlessMarketData } from './market-data.js';
import { limitlessTrading } from './trading.js';

export type { LimitlessClientOptions as LimitlessAdapterOptions } from './client.js';

const decodeAny = payloadDecoder(Type.Unknown());

export function createLimitlessAdapter(
  options: LimitlessClientOptions,
): VenueAdapter & { close(): Promise<void> } {
  const client = new LimitlessClient(options);
  return {
    descriptor: LIMITLESS_DESCRIPTOR,
    catalog: withMappedErrors(limitlessCatalog(client), mapLimitlessError),
    marketData: withMappedErrors(limitlessMarketData(client), mapLimitlessError),
    trading: withMappedErrors(limitlessTrading(client), mapLimitlessError),
    async ping(ctx: VenueContext, session: VenueSession | null): Promise<PingOutcome> {
      try {
        await client.get(ctx, decodeAny, {
          path: '/markets/active',
          query: { page: 1, limit: 1 },
          operation: 'ping',
        });
      } catch (error) {
        return { reachable: false, authenticated: false, message: `unreachable: ${describe(error)}` };
      }
      if (!session) return { reachable: true, authenticated: false, message: 'reachable; no credentials' };
      try {
        // The caller's own profile: the authenticated read the official SDK makes (@limitless-exchange/sdk 1.1.0
        // PortfolioFetcher.getProfile() without an address, GET /profiles/me).
        await client.getPrivate(ctx, session, decodeAny, {
          path: '/profiles/me',
          operation: 'ping_auth',
        });
        return { reachable: true, authenticated: true, message: 'credentials accepted' };
      } catch (error) {
        return { reachable: true, authenticated: false, message: `credentials rejected: ${describe(error)}` };
      }
    },
    close: () => client.close(),
  };
}

const describe = (error: unknown): string => describeVenueError(error, mapLimitlessError);
