// The Limitless adapter: the only export of this folder. Everything the exchange speaks — its REST API
// (markets, books, history, trade feed, portfolios), HMAC / API-key authentication and the Socket.IO book feed —
// stays behind this factory. Data only: it neither places nor cancels orders.
import { Type } from 'typebox';
import type { PingOutcome, VenueAdapter, VenueContext, VenueSession } from '../port.js';
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
    catalog: wrapErrors(limitlessCatalog(client)),
    marketData: wrapErrors(limitlessMarketData(client)),
    trading: wrapErrors(limitlessTrading(client)),
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
        await client.getPrivate(ctx, session, decodeAny, {
          path: '/portfolio/pnl-chart',
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

function describe(error: unknown): string {
  const mapped = mapLimitlessError(error);
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
        throw mapLimitlessError(error);
      }
    };
  }
  return wrapped as T;
}
