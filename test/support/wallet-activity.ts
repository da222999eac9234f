// Paper wallets that hold positions on each simulator with public wallet activity, for GET /user-activity tests:
// seeded through the simulator's own account control where it can seed them (Opinion, Limitless, Predict.fun),
// bought on the exchange's book through the adapter where it cannot (Polymarket).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ExchangeId } from '../../src/domain/exchanges.js';
import type { Market } from '../../src/domain/market.js';
import { sessionFrom } from '../../src/vault/per-request-credentials.js';
import { type CatalogueServer, venueContext } from './catalogue.js';
import { createSimAccount, type SimAccount } from './sim-accounts.js';

export interface SeededWallet {
  address: string;
  /** How many positions the wallet holds on that exchange. */
  positions: number;
}

async function simAccount(cat: CatalogueServer, exchange: ExchangeId, body: unknown): Promise<SimAccount> {
  const sim = cat.sims.get(exchange);
  assert.ok(sim, `no ${exchange} simulator`);
  return createSimAccount(sim.control, body);
}

function activeMarkets(cat: CatalogueServer, exchange: ExchangeId, count: number): Market[] {
  const markets = [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes.every((o) => o.token_id),
  );
  assert.ok(markets.length >= count, `${exchange} lists fewer than ${count} active markets`);
  return markets.slice(0, count);
}

/** A new paper wallet on `exchange` holding `count` positions (each in a different market). */
export async function walletWithPositions(
  cat: CatalogueServer,
  exchange: ExchangeId,
  count: number,
): Promise<SeededWallet> {
  switch (exchange) {
    case 'opinion':
      return { address: (await simAccount(cat, exchange, { positions: count })).address, positions: count };
    case 'limitless':
      return { address: (await simAccount(cat, exchange, { holdings: count })).address, positions: count };
    case 'predictfun': {
      const positions = activeMarkets(cat, exchange, count).map((m, i) => ({
        market_id: Number(m.exchange_market_id),
        outcome: i % 2 === 0 ? 'Yes' : 'No',
        shares: 10 + i,
        average_price: 0.4,
      }));
      return { address: (await simAccount(cat, exchange, { positions })).address, positions: count };
    }
    case 'polymarket': {
      // The Polymarket simulator seeds no holdings: the wallet buys them on the book, as a user would.
      const account = await simAccount(cat, exchange, {});
      const adapter = cat.sims.get(exchange)?.adapter;
      assert.ok(adapter?.trading.createOrder && adapter.marketData.fetchOrderBook);
      const session = sessionFrom(
        account.credentials,
        exchange,
        adapter.descriptor.credentials,
        'per_request',
      );
      for (const market of activeMarkets(cat, exchange, count)) {
        const outcome = market.outcomes[0]?.name as string;
        const book = await adapter.marketData.fetchOrderBook(venueContext(), market, outcome);
        const sweep = book.asks[Math.min(2, book.asks.length - 1)];
        assert.ok(sweep, `${market.svc_id} has no ask to buy from`);
        const order = await adapter.trading.createOrder(venueContext(), session, {
          market_id: market.exchange_market_id,
          outcome,
          side: 'buy',
          price: sweep[0],
          size: 5,
          order_type: 'ioc',
          client_order_id: randomUUID(),
        });
        assert.ok(order.filled > 0, `${market.svc_id}: the buy did not fill (${order.status})`);
      }
      return { address: account.address, positions: count };
    }
    default:
      throw new Error(`${exchange} has no public wallet activity to seed`);
  }
}
