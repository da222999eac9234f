// A leg that fills short, made with the exchange's own means and no timer race: the simulator holds order requests
// (a latency fault on its order route, released when the settings change); another paper account's taker order is
// held first, the server's leg second, and on release they are processed in that order, so the leg meets a book
// thinned after the server planned on it. The immediate (ioc) leg then fills what is left within its limit.
import assert from 'node:assert/strict';
import type { ExchangeId } from '../../src/domain/exchanges.js';
import type { Market } from '../../src/domain/market.js';
import type { Order } from '../../src/domain/trading.js';
import type { VenueSession } from '../../src/venues/port.js';
import { type CatalogueServer, simControl, venueContext } from './catalogue.js';
import { waitFor } from './server.js';

/** The order route of each simulator the cross-venue tests trade on. */
export const ORDER_ROUTE: Record<'polymarket' | 'kalshi', string> = {
  polymarket: 'POST /order',
  kalshi: 'POST /trade-api/v2/portfolio/events/orders',
};

async function held(cat: CatalogueServer, exchange: ExchangeId): Promise<number> {
  return ((await simControl(cat, exchange, 'GET', 'held')) as { held: number }).held;
}

/**
 * Runs `act` (the server request that sends a leg to `exchange`) while a taker order of `thinner` (another paper
 * account) for `size` at `price` on `market`/`outcome` is processed just before the leg: answers both.
 */
export async function withThinnedBook<T>(
  cat: CatalogueServer,
  exchange: 'polymarket' | 'kalshi',
  thinner: VenueSession,
  take: { market: Market; outcome: string; price: number; size: number },
  act: () => Promise<T>,
): Promise<{ result: T; taken: Order }> {
  const adapter = cat.sims.get(exchange)?.adapter;
  assert.ok(adapter?.trading.createOrder);
  await simControl(cat, exchange, 'POST', 'faults', { latency_ms: 120_000, only: [ORDER_ROUTE[exchange]] });
  let result: Promise<T> | null = null;
  try {
    const taken = adapter.trading.createOrder(venueContext(), thinner, {
      market_id: take.market.exchange_market_id,
      outcome: take.outcome,
      side: 'buy',
      price: take.price,
      size: take.size,
      order_type: 'ioc',
      client_order_id: `thin-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    });
    taken.catch(() => undefined);
    await waitFor(async () => (await held(cat, exchange)) === 1, 10_000, 'the thinning order held');
    result = act();
    result.catch(() => undefined);
    await waitFor(async () => (await held(cat, exchange)) === 2, 10_000, "the server's leg held behind it");
    await simControl(cat, exchange, 'DELETE', 'faults');
    return { taken: await taken, result: await result };
  } finally {
    await simControl(cat, exchange, 'DELETE', 'faults');
    if (result) await result.catch(() => undefined);
  }
}
