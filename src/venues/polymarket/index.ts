// The Polymarket adapter: the only export of this folder. Everything the exchange speaks — Gamma, the CLOB (V2
// orders, L1/L2 auth), the Data API and the WebSocket channels — stays behind this factory.

import { Type } from 'typebox';
import type { PingOutcome, VenueAdapter, VenueContext, VenueSession } from '../port.js';
import { describeVenueError, withMappedErrors } from '../shared/facet-errors.js';
import { payloadDecoder } from '../shared/payload.js';
import { polymarketCatalog } from './catalog.js';
import { PolymarketClient, type PolymarketClientOptions } from './client.js';
import { POLYMARKET_DESCRIPTOR } from './descriptor.js';
import { mapPolymarketError } from './errors.js';
import { polymarketMarketData } from './market-data.js';
import { polymarketTrading } from './trading.js';

export type { PolymarketClientOptions as PolymarketAdapterOptions } from './client.js';

const decodeAny = payloadDecoder(Type.Unknown());

export function createPolymarketAdapter(options: PolymarketClientOptions): VenueAdapter {
  const client = new PolymarketClient(options);
  const catalog = polymarketCatalog(client);
  const marketData = polymarketMarketData(client);
  const trading = polymarketTrading(client);
  const guarded = <T extends object>(facet: T): T => withMappedErrors(facet, mapPolymarketError);
  return {
    descriptor: POLYMARKET_DESCRIPTOR,
    catalog: guarded(catalog),
    marketData: guarded(marketData),
    trading: guarded(trading),
    async ping(ctx: VenueContext, session: VenueSession | null): Promise<PingOutcome> {
      try {
        await client.get(client.clob, ctx, decodeAny, { path: '/time', operation: 'ping' });
      } catch (error) {
        return { reachable: false, authenticated: false, message: `unreachable: ${describe(error)}` };
      }
      if (!session) return { reachable: true, authenticated: false, message: 'reachable; no credentials' };
      try {
        const auth = await client.authenticate(ctx, session);
        await client.private(ctx, auth, decodeAny, { path: '/auth/api-keys', operation: 'ping_auth' });
        return { reachable: true, authenticated: true, message: `authenticated as ${auth.signer.address}` };
      } catch (error) {
        return { reachable: true, authenticated: false, message: `credentials rejected: ${describe(error)}` };
      }
    },
    close: () => client.close(),
  };
}

const describe = (error: unknown): string => describeVenueError(error, mapPolymarketError);
