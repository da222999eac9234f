// The Opinion adapter: the only export of this folder. Opinion's OpenAPI (markets, books, price history, a
// wallet's positions, trades and balance, and signed orders on BNB Chain) stays behind this factory.
import { AppError } from '../../errors/app-error.js';
import type { PingOutcome, VenueAdapter, VenueContext, VenueSession } from '../port.js';
import { describeVenueError, withMappedErrors } from '../shared/facet-errors.js';
import { payloadDecoder } from '../shared/payload.js';
import { OPERATOR_KEY_MISSING } from './auth.js';
import { opinionCatalog, ParentIndex } from './catalog.js';
import { OpinionClient } from './client.js';
import { OPINION_DESCRIPTOR } from './descriptor.js';
import { mapOpinionError } from './errors.js';
import { opinionMarketData } from './market-data.js';
import { OpinionLabelList, OpinionUserAuth } from './payloads.js';
import { opinionTrading } from './trading.js';

export interface OpinionAdapterOptions {
  /** REST base (config venues.opinion.restUrl). */
  restUrl: string;
  /** The operator's OpenAPI key for public data (config venues.opinion.apiKey, env OPINION_API_KEY). */
  apiKey?: string | undefined;
  /** Book stream poll interval (config venues.opinion.pollIntervalMs). */
  pollIntervalMs: number;
  /** Per-attempt deadline (config venues.timeoutMs). */
  timeoutMs: number;
  /** The counterpart publishes no limit (a simulator): send without pacing. */
  unpaced?: boolean;
}

const decodeLabels = payloadDecoder(OpinionLabelList);
const decodeAuth = payloadDecoder(OpinionUserAuth);

export function createOpinionAdapter(options: OpinionAdapterOptions): VenueAdapter {
  const client = new OpinionClient({
    restUrl: options.restUrl,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs,
    unpaced: options.unpaced,
  });
  const index = new ParentIndex();

  return {
    descriptor: OPINION_DESCRIPTOR,
    catalog: withMappedErrors(opinionCatalog(client, index), mapOpinionError),
    marketData: withMappedErrors(opinionMarketData(client, options.pollIntervalMs), mapOpinionError),
    trading: withMappedErrors(opinionTrading(client), mapOpinionError),
    async ping(ctx: VenueContext, session: VenueSession | null): Promise<PingOutcome> {
      let reachable = false;
      let message = OPERATOR_KEY_MISSING;
      if (client.hasOperatorKey) {
        try {
          await client.public(ctx, decodeLabels, { path: '/label', operation: 'ping' });
          reachable = true;
          message = 'reachable';
        } catch (error) {
          return { reachable: false, authenticated: false, message: `unreachable: ${describe(error)}` };
        }
      }
      if (!session) return { reachable, authenticated: false, message: `${message}; no credentials` };
      try {
        const auth = await client.private(ctx, session, decodeAuth, {
          path: '/user/auth',
          operation: 'ping_auth',
        });
        const wallet = auth.walletAddress ?? 'an Opinion wallet';
        return { reachable: true, authenticated: true, message: `authenticated as ${wallet}` };
      } catch (error) {
        const mapped = mapOpinionError(error);
        const refused = mapped instanceof AppError && mapped.code === 'authentication_failed';
        return {
          reachable: reachable || refused,
          authenticated: false,
          message: `credentials rejected: ${describe(error)}`,
        };
      }
    },
    close: () => client.close(),
  };
}

const describe = (error: unknown): string => describeVenueError(error, mapOpinionError);
