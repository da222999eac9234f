// Opinion's book stream, polled: each subscribed outcome's book is read from REST every `intervalMs` and
// passed on as a snapshot, then level changes, through the shared polling stream.
import type { OrderBook } from '../../domain/book.js';
import type { Market } from '../../domain/market.js';
import type { MarketStream, StreamContext } from '../port.js';
import { findOutcome } from '../shared/outcomes.js';
import { pollingMarketStream } from '../shared/polling-market-stream.js';

/**
 * Not Opinion's WebSocket: `market.depth.diff` sends single absolute levels with no snapshot, no sequence
 * number and no documented subscription acknowledgement, so a missed frame could never be detected. Polling
 * the REST book keeps what subscribers see equal to what the venue serves (docs/venues/opinion.md).
 */
export function opinionBookStream(
  ctx: StreamContext,
  intervalMs: number,
  fetchBook: (signal: AbortSignal, market: Market, outcome: string) => Promise<OrderBook>,
): MarketStream {
  return pollingMarketStream(ctx, {
    venue: 'opinion',
    intervalMs,
    instrument({ market, outcome }) {
      const found = findOutcome(market, outcome);
      return { market_id: market.exchange_market_id, outcome: found.name, token_id: found.token_id };
    },
    fetchBook: ({ market, outcome }, signal) => fetchBook(signal, market, outcome),
  });
}
