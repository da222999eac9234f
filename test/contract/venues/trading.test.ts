// Contract: the trading facet for every registered venue that declares it, against its simulator over loopback:
// a resting order's life (create, get, list, cancel), a crossing order that fills and shows up in fills,
// positions and order history, and the error codes for unknown orders and unknown accounts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import type { OrderRequest } from '../../../src/domain/trading.js';
import { AppError } from '../../../src/errors/app-error.js';
import type { VenueSession } from '../../../src/venues/port.js';
import {
  hintsFor,
  liquidMarkets,
  registeredVenues,
  rejectsWith,
  startVenue,
  strangerSession,
  type VenueUnderTest,
} from './harness.js';
import { assertFill, assertOrder, assertPosition } from './invariants.js';

for (const id of registeredVenues()) {
  describe(`${id}: trading`, () => {
    let venue: VenueUnderTest;
    let session: VenueSession;
    let market: Market;
    let declared = false;
    before(async () => {
      venue = await startVenue(id);
      declared = venue.adapter.descriptor.has.create_order !== 'unsupported';
      if (!declared) return;
      session = (await venue.newSession()).session;
      [market] = (await liquidMarkets(venue, 1)) as [Market];
    });
    after(() => venue?.close());

    /** At least 5, the market's minimum, and the venue's minimum order value at `price`. */
    const sizeAt = (price: number) =>
      Math.max(market.min_order_size ?? 1, 5, Math.ceil((hintsFor(id).minOrderValue ?? 0) / price));
    const request = (over: Partial<OrderRequest>): OrderRequest => ({
      market_id: market.exchange_market_id,
      outcome: market.outcomes[0]?.name as string,
      side: 'buy',
      price: market.tick_size ?? 0.01,
      size: sizeAt(over.price ?? market.tick_size ?? 0.01),
      order_type: 'gtc',
      client_order_id: randomUUID(),
      ...over,
    });

    test('a resting gtc order is open, listed, readable, then cancelled with its filled amount', async (t) => {
      const { trading } = venue.adapter;
      if (!declared) {
        assert.equal(trading.createOrder, undefined);
        return t.skip('create_order not declared');
      }
      assert.ok(trading.createOrder && trading.getOrder && trading.listOpenOrders && trading.cancelOrder);
      const order = await trading.createOrder(venue.ctx(), session, request({}));
      assertOrder(order);
      assert.equal(order.status, 'open');
      assert.equal(order.filled, 0);
      assert.equal(order.updated_at, null);
      assert.equal(order.market_id, market.exchange_market_id);
      assert.equal(order.side, 'buy');

      const read = await trading.getOrder(venue.ctx(), session, order.id);
      assert.equal(read.id, order.id);
      assert.equal(read.status, 'open');
      const open = await trading.listOpenOrders(venue.ctx(), session, market.exchange_market_id);
      assert.ok(
        open.some((o) => o.id === order.id),
        'new order not listed as open',
      );
      for (const o of open) assertOrder(o);

      const cancelled = await trading.cancelOrder(venue.ctx(), session, order.id);
      assert.equal(cancelled.id, order.id);
      assert.equal(cancelled.status, 'cancelled');
      assert.equal(cancelled.filled, 0);
      assert.ok(cancelled.updated_at !== null, 'a cancellation carries updated_at');
      const after = await trading.listOpenOrders(venue.ctx(), session, null);
      assert.ok(!after.some((o) => o.id === order.id), 'cancelled order still listed as open');
      const again = await trading.cancelOrder(venue.ctx(), session, order.id).catch((e: unknown) => e);
      assert.ok(again instanceof AppError && [400, 404, 409].includes(again.status), String(again));
    });

    test('a crossing order fills at the book and shows up in fills, positions and history', async (t) => {
      const { trading, marketData } = venue.adapter;
      if (!declared) return t.skip('create_order not declared');
      assert.ok(trading.createOrder && marketData.fetchOrderBook);
      const outcome = market.outcomes[0]?.name as string;
      const book = await marketData.fetchOrderBook(venue.ctx(), market, outcome);
      const [askPrice, askSize] = book.asks[0] ?? [];
      assert.ok(askPrice !== undefined && askSize !== undefined, 'no ask to cross');
      const size = Math.min(askSize, sizeAt(askPrice));
      const order = await trading.createOrder(
        venue.ctx(),
        session,
        request({ outcome, price: askPrice, size }),
      );
      assertOrder(order);
      assert.equal(order.status, 'filled', JSON.stringify(order));
      assert.ok(Math.abs(order.filled - size) < 1e-6, `filled ${order.filled} of ${size}`);

      // Shares a venue took as the taker fee (Predict.fun): the fee in USD at the fill's price.
      let feeShares = 0;
      if (trading.fetchFills) {
        const fills = await trading.fetchFills(venue.ctx(), session, market.exchange_market_id, 50);
        for (const f of fills) assertFill(f);
        const mine = fills.filter((f) => f.order_id === order.id);
        assert.ok(mine.length > 0, 'no fill for the filled order');
        const filled = mine.reduce((sum, f) => sum + f.size, 0);
        assert.ok(Math.abs(filled - size) < 1e-6, `fills add up to ${filled}, not ${size}`);
        assert.ok(mine.every((f) => f.is_taker && f.side === 'buy' && f.price <= askPrice + 1e-9));
        if (hintsFor(id).feeInShares) feeShares = mine.reduce((sum, f) => sum + (f.fee ?? 0) / f.price, 0);
      }
      if (trading.fetchPositions) {
        const positions = await trading.fetchPositions(venue.ctx(), session, market.exchange_market_id);
        for (const p of positions) assertPosition(p);
        const held = positions.find((p) => p.outcome.toLowerCase() === outcome.toLowerCase());
        assert.ok(held && held.size >= size - feeShares - 1e-6, `position ${JSON.stringify(positions)}`);
      }
      if (trading.fetchOrderHistory) {
        const history = await trading.fetchOrderHistory(venue.ctx(), session, market.exchange_market_id);
        assert.ok(
          history.some((o) => o.id === order.id && o.status === 'filled'),
          'filled order not in history',
        );
      }
    });

    test('balance and positions are readable for a fresh account', async (t) => {
      const { trading } = venue.adapter;
      if (venue.adapter.descriptor.has.fetch_balance === 'unsupported')
        return t.skip('fetch_balance not declared');
      assert.ok(trading.fetchBalance);
      const fresh = (await venue.newSession()).session;
      const balance = await trading.fetchBalance(venue.ctx(), fresh);
      assert.equal(typeof balance.raw, 'object');
      assert.ok(balance.raw !== null && Object.keys(balance.raw).length > 0, 'empty raw balance');
      if (trading.fetchPositions) {
        const positions = await trading.fetchPositions(venue.ctx(), fresh, null);
        assert.deepEqual(positions, [], 'a fresh account holds nothing');
      }
    });

    test('an unknown order id is order_not_found; an unknown account is authentication_failed', async (t) => {
      const { trading } = venue.adapter;
      if (!declared) return t.skip('create_order not declared');
      assert.ok(trading.getOrder && trading.createOrder);
      const { unknownOrderId } = hintsFor(venue.id);
      await rejectsWith(trading.getOrder(venue.ctx(), session, unknownOrderId), 'order_not_found');
      await rejectsWith(
        trading.createOrder(venue.ctx(), await strangerSession(venue), request({})),
        'authentication_failed',
      );
    });
  });
}
