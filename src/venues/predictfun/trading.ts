// Trading facet, data only: the session's positions (GET /v1/positions with its JWT, every page) and its balance.
// Predict.fun has no balance endpoint; the balance is the collateral (BSC USDT) held by the account's address, read
// with balanceOf over BNB Chain JSON-RPC, and `raw` carries that on-chain reading.
import { Type } from 'typebox';
import type { Balance, Position } from '../../domain/trading.js';
import type { TradingFacet, VenueContext, VenueSession } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { MARKET_ID } from './catalog.js';
import type { PredictfunClient } from './client.js';
import { toPosition } from './parse.js';
import {
  envelope,
  PredictfunPosition,
  type PredictfunPosition as PredictfunPositionDoc,
} from './payloads.js';

const decodePositions = payloadDecoder(envelope(Type.Array(PredictfunPosition)));
const PAGE_SIZE = 100;
/** A wallet with more than 5,000 holdings is read in 50 pages at most; the rest would exceed any deadline. */
const MAX_PAGES = 50;

export function predictfunTrading(client: PredictfunClient): TradingFacet {
  return {
    async fetchPositions(
      ctx: VenueContext,
      session: VenueSession,
      marketId: string | null,
    ): Promise<Position[]> {
      const wallet = await client.signIn(ctx, session);
      if (marketId !== null && !MARKET_ID.test(marketId)) return [];
      const positions: Position[] = [];
      let after: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const res: { data: PredictfunPositionDoc[]; cursor?: string | null } = await client.wallet(
          ctx,
          wallet,
          decodePositions,
          {
            path: '/v1/positions',
            query: { first: PAGE_SIZE, after: after ?? undefined, marketId: marketId ?? undefined },
            operation: 'positions',
          },
        );
        positions.push(...res.data.map(toPosition));
        after = res.data.length > 0 ? (res.cursor ?? null) : null;
        if (after === null) break;
      }
      return positions.filter((p) => p.size > 0);
    },

    async fetchBalance(ctx: VenueContext, session: VenueSession): Promise<Balance> {
      const wallet = await client.signIn(ctx, session);
      const address = await client.walletAddress(ctx, wallet);
      const balance = await client.collateralBalance(ctx, address);
      return {
        raw: {
          balance: balance.toString(),
          decimals: 18,
          token: 'USDT',
          token_address: client.options.collateralToken,
          chain_id: client.chainId,
          address,
        },
      };
    },
  };
}
