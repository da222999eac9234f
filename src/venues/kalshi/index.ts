// The Kalshi adapter: the only export of this folder. Trade API v2 (public market data, RSA-PSS signed portfolio
// and V2 event-order entry) and its WebSocket stay behind this factory; credentials arrive per call.
import { Type } from 'typebox';
import type { PingOutcome, VenueAdapter, VenueContext, VenueSession } from '../port.js';
import { describeVenueError, type FacetErrorMapper, withMappedErrors } from '../shared/facet-errors.js';
import { payloadDecoder } from '../shared/payload.js';
import { kalshiKey } from './auth.js';
import { kalshiCatalog } from './catalog.js';
import { type KalshiAdapterOptions, KalshiClient } from './client.js';
import { kalshiDescriptor } from './descriptor.js';
import { mapKalshiError } from './errors.js';
import { kalshiMarketData } from './market-data.js';
import { KalshiBalance } from './payloads.js';
import { kalshiTrading } from './trading.js';

export type { KalshiAdapterOptions } from './client.js';

const decodeStatus = payloadDecoder(Type.Object({ exchange_active: Type.Optional(Type.Boolean()) }));
const decodeBalance = payloadDecoder(KalshiBalance);

export function createKalshiAdapter(options: KalshiAdapterOptions): VenueAdapter {
  const client = new KalshiClient(options);
  const guarded = <T extends object>(facet: T): T => withMappedErrors(facet, mapFacetError);
  return {
    descriptor: kalshiDescriptor(Boolean(options.streamCredentials)),
    catalog: guarded(kalshiCatalog(client)),
    marketData: guarded(kalshiMarketData(client)),
    trading: guarded(kalshiTrading(client)),
    async ping(ctx: VenueContext, session: VenueSession | null): Promise<PingOutcome> {
      try {
        const status = await client.get(ctx, decodeStatus, { path: '/exchange/status', operation: 'ping' });
        if (status.exchange_active === false) {
          return {
            reachable: true,
            authenticated: false,
            message: 'reachable; the exchange reports itself inactive',
          };
        }
      } catch (error) {
        return { reachable: false, authenticated: false, message: `unreachable: ${describe(error)}` };
      }
      if (!session) return { reachable: true, authenticated: false, message: 'reachable; no credentials' };
      try {
        await client.get(ctx, decodeBalance, {
          path: '/portfolio/balance',
          operation: 'ping_auth',
          key: kalshiKey(session),
        });
        return { reachable: true, authenticated: true, message: 'authenticated' };
      } catch (error) {
        return { reachable: true, authenticated: false, message: `credentials rejected: ${describe(error)}` };
      }
    },
    close: () => client.close(),
  };
}

/** Book, price and trade calls name an unknown ticker a missing market; the rest use the default table. */
const mapFacetError: FacetErrorMapper = (error, method) =>
  mapKalshiError(
    error,
    method === 'fetchOrderBook' || method.startsWith('fetchPrice') || method === 'fetchTrades'
      ? 'market'
      : 'default',
  );

const describe = (error: unknown): string => describeVenueError(error, mapKalshiError);
