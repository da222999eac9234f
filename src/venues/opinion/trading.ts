// The account side Opinion offers to a data-only integration: the key holder's positions (GET /positions,
// paged) and balance (GET /user/balance, whose own payload is `raw`). Opinion is data only here: no order
// methods exist.
import type { Balance, Position } from '../../domain/trading.js';
import type { TradingFacet } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { OPINION_PAGE_LIMIT, type OpinionClient } from './client.js';
import { toPosition } from './parse.js';
import { OpinionBalance, OpinionPositionPage } from './payloads.js';

const decodePositions = payloadDecoder(OpinionPositionPage);
const decodeBalance = payloadDecoder(OpinionBalance);

/** Bound on positions read per call (50 pages of 20). */
const MAX_POSITIONS = 1_000;

export function opinionTrading(client: OpinionClient): TradingFacet {
  return {
    async fetchPositions(ctx, session, marketId): Promise<Position[]> {
      // Opinion market ids are integers: any other id holds nothing.
      if (marketId !== null && !/^\d{1,12}$/.test(marketId)) return [];
      const { list } = await client.walk(async (page) => {
        const result = await client.private(ctx, session, decodePositions, {
          path: '/positions',
          query: { page, limit: OPINION_PAGE_LIMIT, chainId: '56', marketId: marketId ?? undefined },
          operation: 'positions',
        });
        return { list: result.list ?? [], total: result.total ?? null };
      }, MAX_POSITIONS);
      return list.map(toPosition).filter((p): p is Position => p !== null);
    },

    async fetchBalance(ctx, session): Promise<Balance> {
      const raw = await client.private(ctx, session, decodeBalance, {
        path: '/user/balance',
        query: { chain_id: '56' },
        operation: 'balance',
      });
      return { raw: raw as Record<string, unknown> };
    },
  };
}
