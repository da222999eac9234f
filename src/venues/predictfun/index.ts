// The Predict.fun adapter: the only export of this folder — catalogue, books, tape, wallet activity, signed orders,
// fills, positions and balance; the REST API (x-api-key, wallet JWTs) and the BNB Chain balance read stay behind it.
import { Type } from 'typebox';
import type { PingOutcome, VenueAdapter, VenueContext, VenueSession } from '../port.js';
import { describeVenueError, withMappedErrors } from '../shared/facet-errors.js';
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
    catalog: withMappedErrors(predictfunCatalog(client), mapPredictfunError),
    marketData: withMappedErrors(predictfunMarketData(client), mapPredictfunError),
    trading: withMappedErrors(predictfunTrading(client), mapPredictfunError),
    async ping(ctx: VenueContext, session: VenueSession | null): Promise<PingOutcome> {
      if (!client.usable) return { reachable: false, authenticated: false, message: MISSING_KEY_MESSAGE };
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

const describe = (error: unknown): string => describeVenueError(error, mapPredictfunError);
