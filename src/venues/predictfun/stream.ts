// The Predict.fun market stream, polled: every venues.predictfun.pollIntervalMs each subscribed book is read over
// REST and diffed (pollingMarketStream), so subscribers get the same snapshot/delta protocol as on native streams.
// Both outcomes of a market come from the same YES book, so one read per market and tick serves both.
import type { OrderBook } from '../../domain/book.js';
import type { MarketStream, StreamContext, StreamTarget } from '../port.js';
import { pollingMarketStream } from '../shared/polling-market-stream.js';
import type { PredictfunClient } from './client.js';
import { mapPredictfunError } from './errors.js';
import { fetchBook, resolveOutcome } from './market-data.js';
import { complementBook } from './parse.js';

export function openPredictfunStream(client: PredictfunClient, ctx: StreamContext): MarketStream {
  const interval = client.options.pollIntervalMs;
  /** The latest YES read per market, reused by the other outcome when started within half an interval. */
  const recent = new Map<string, { at: number; book: Promise<OrderBook> }>();

  async function readBook(target: StreamTarget, signal: AbortSignal): Promise<OrderBook> {
    const wanted = resolveOutcome(target.market, target.outcome);
    const id = target.market.exchange_market_id;
    const now = Date.now();
    let shared = recent.get(id);
    if (!shared || now - shared.at >= interval / 2) {
      const reqCtx = { signal, logger: ctx.logger, requestId: 'predictfun-stream', tenant: null };
      const yes = resolveOutcome(target.market, target.market.outcomes[0]?.name ?? target.outcome);
      const book = fetchBook(client, reqCtx, target.market, yes).catch((error: unknown) => {
        throw mapPredictfunError(error);
      });
      shared = { at: now, book };
      recent.set(id, shared);
      if (recent.size > 1_000) {
        for (const [key, value] of recent) if (now - value.at > interval * 10) recent.delete(key);
      }
    }
    const yesBook = await shared.book;
    return wanted.indexSet === 1 ? yesBook : complementBook(yesBook, wanted);
  }

  return pollingMarketStream(ctx, {
    venue: 'predictfun',
    intervalMs: interval,
    instrument(target) {
      const o = resolveOutcome(target.market, target.outcome);
      return { market_id: target.market.exchange_market_id, outcome: o.name, token_id: o.token_id };
    },
    fetchBook: readBook,
  });
}
