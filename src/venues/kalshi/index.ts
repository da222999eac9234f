// The Kalshi adapter: the only export of this folder. Trade API v2 (public market data, RSA-PSS signed portfolio
// and V2 event-order entry) and its WebSocket stay behind this factory; credentials arrive per call.
import { Type } from 'typebox';
import type { PingOutcome, VenueAdapter, VenueContext, VenueSession } from '../port.js';
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
  const guarded = <T extends object>(facet: T): T => wrapErrors(facet);
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

function describe(error: unknown): string {
  const mapped = mapKalshiError(error);
  return mapped instanceof Error ? mapped.message : String(mapped);
}

/** Venue failures leave a facet only as AppErrors; streams are returned as they are (they report feed state). */
function wrapErrors<T extends object>(facet: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(facet)) {
    if (typeof fn !== 'function' || name.startsWith('open')) {
      wrapped[name] = fn;
      continue;
    }
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await (fn as (...a: unknown[]) => Promise<unknown>).apply(facet, args);
      } catch (error) {
        throw mapKalshiError(
          error,
          name === 'fetchOrderBook' || name.startsWith('fetchPrice') || name === 'fetchTrades'
            ? 'market'
            : 'default',
        );
      }
    };
  }
  return wrapped as T;
}
