// The Predict.fun adapter: the only export of this folder. Data only — catalogue, books, tape, wallet activity,
// positions and balance; the REST API (x-api-key, wallet JWTs) and the BNB Chain balance read stay behind it.
import { Type } from 'typebox';
import type { PingOutcome, VenueAdapter, VenueContext, VenueSession } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { predictfunCatalog } from './catalog.js';
import { MISSING_KEY_MESSAGE, type PredictfunAdapterOptions, PredictfunClient } from './client.js';
import { PREDICTFUN_DESCRIPTOR } from './descriptor.js';
import { mapPredictfunError } from './errors.js';
import { predictfunMarketData } from './market-data.js';
import { envelope } from './payloads.js';
import { predictfunTrading } from './trading.js';

export type { PredictfunAdapterOptions } from './client.js';

const decodeAnyList = payloadDecoder(envelope(Type.Array(Type.Unknown())));
const decodeAccount = payloadDecoder(envelope(Type.Object({ address: Type.String() })));

export function createPredictfunAdapter(options: PredictfunAdapterOptions): VenueAdapter {
  const client = new PredictfunClient(options);
  return {
    descriptor: PREDICTFUN_DESCRIPTOR,
    catalog: wrapErrors(predictfunCatalog(client)),
    marketData: wrapErrors(predictfunMarketData(client)),
    trading: wrapErrors(predictfunTrading(client)),
    async ping(ctx: VenueContext, session: VenueSession | null): Promise<PingOutcome> {
      if (!options.apiKey) return { reachable: false, authenticated: false, message: MISSING_KEY_MESSAGE };
      try {
        await client.public(ctx, decodeAnyList, {
          path: '/v1/categories',
          query: { first: 1 },
          operation: 'ping',
        });
      } catch (error) {
        return { reachable: false, authenticated: false, message: `unreachable: ${describe(error)}` };
      }
      if (!session) return { reachable: true, authenticated: false, message: 'reachable; no credentials' };
      try {
        const wallet = await client.signIn(ctx, session);
        const { data } = await client.wallet(ctx, wallet, decodeAccount, {
          path: '/v1/account',
          operation: 'ping_auth',
        });
        return { reachable: true, authenticated: true, message: `authenticated as ${data.address}` };
      } catch (error) {
        return { reachable: true, authenticated: false, message: `credentials rejected: ${describe(error)}` };
      }
    },
    close: () => client.close(),
  };
}

function describe(error: unknown): string {
  const mapped = mapPredictfunError(error);
  return mapped instanceof Error ? mapped.message : String(mapped);
}

/** Venue failures leave a facet only as AppErrors; streams are returned as they are (they map their own). */
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
        throw mapPredictfunError(error);
      }
    };
  }
  return wrapped as T;
}
