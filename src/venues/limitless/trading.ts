// The Limitless account facet: positions and the PnL-chart "balance", read with the caller's own credentials.
// Limitless is data only here: there is no order placement, cancellation, order history or fill reading.
import type { Balance, Position } from '../../domain/trading.js';
import type { TradingFacet } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import type { LimitlessClient } from './client.js';
import { positionsToPositions } from './parse-portfolio.js';
import { LimitlessDocument, LimitlessPnlChart, LimitlessPositions } from './payloads.js';

const decodePositions = payloadDecoder(LimitlessPositions);
const decodePnl = payloadDecoder(LimitlessPnlChart);
const decodeDocument = payloadDecoder(LimitlessDocument);

export function limitlessTrading(
  client: LimitlessClient,
): Required<Pick<TradingFacet, 'fetchPositions' | 'fetchBalance'>> {
  return {
    async fetchPositions(ctx, session, marketId): Promise<Position[]> {
      const doc = await client.getPrivate(ctx, session, decodePositions, {
        path: '/portfolio/positions',
        operation: 'positions',
      });
      return positionsToPositions(doc, marketId);
    },

    /** `raw` is Limitless's own PnL-chart document; its `currentValue` is the realised PnL in USD. */
    async fetchBalance(ctx, session): Promise<Balance> {
      const raw = await client.getPrivate(ctx, session, decodeDocument, {
        path: '/portfolio/pnl-chart',
        operation: 'pnl_chart',
      });
      decodePnl(raw, 'limitless', 'pnl_chart');
      return { raw };
    },
  };
}
