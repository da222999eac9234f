// Trading facet: signed limit orders (gtc, and gtd through the API's orderExpTime) posted under the user's API key,
// their lifecycle (GET /order, GET /order/{id}, POST /order/cancel), fills (GET /trade, with Opinion's fee),
// positions (GET /positions) and balance (GET /user/balance, its own payload as `raw`). Opinion assigns the order
// id and returns neither our id nor the order hash in its documents, so an order whose answer was lost is found by
// its terms among the key holder's orders placed since shortly before it was sent (lookupOrder), never sent again.
import type { Balance, Fill, Order, Position } from '../../domain/trading.js';
import { AppError } from '../../errors/app-error.js';
import type { OrderRef, TradingFacet, VenueContext, VenueSession } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenueStatusError, VenueTransportError } from '../shared/venue-errors.js';
import { sessionSigner } from './auth.js';
import { OPINION_PAGE_LIMIT, type OpinionClient } from './client.js';
import { OrderContext } from './order-context.js';
import { toPosition } from './parse.js';
import { toFill, toOrder } from './parse-trading.js';
import {
  OpinionBalance,
  OpinionCancel,
  OpinionFillPage,
  OpinionOrderDoc,
  OpinionOrderPage,
  OpinionPositionPage,
} from './payloads.js';
import { signOpinionOrder } from './signing.js';

const decodePositions = payloadDecoder(OpinionPositionPage);
const decodeBalance = payloadDecoder(OpinionBalance);
const decodeOrderDoc = payloadDecoder(OpinionOrderDoc);
const decodeOrderPage = payloadDecoder(OpinionOrderPage);
const decodeFills = payloadDecoder(OpinionFillPage);
const decodeCancel = payloadDecoder(OpinionCancel);

/** Bound on positions read per call (50 pages of 20). */
const MAX_POSITIONS = 1_000;
/** Bound on orders read for a list or history (25 pages of 20). */
const MAX_ORDERS = 500;
/** Orders read back when looking for one whose answer was lost (10 pages of 20, newest first). */
const MAX_LOOKUP = 200;
/** A lost order is looked for among orders created from this long before it was sent (clock skew). */
const LOOKUP_SLACK_S = 60;
const ORDER_ID = /^[0-9A-Za-z-]{1,64}$/;
const MARKET_ID = /^\d{1,12}$/;
const OPEN = '1';

export function opinionTrading(client: OpinionClient): TradingFacet {
  const context = new OrderContext(client);

  async function readOrder(ctx: VenueContext, session: VenueSession, orderId: string): Promise<Order> {
    if (!ORDER_ID.test(orderId)) throw new AppError('order_not_found', `opinion has no order '${orderId}'`);
    const { orderData } = await client.private(ctx, session, decodeOrderDoc, {
      path: `/order/${encodeURIComponent(orderId)}`,
      operation: 'get_order',
    });
    return toOrder(orderData);
  }

  /** The key holder's orders, newest first, until `max` or `stop` says the rest are older than wanted. */
  async function listOrders(
    ctx: VenueContext,
    session: VenueSession,
    query: { marketId: string | null; status?: string },
    max: number,
    stop?: (createdAt: number) => boolean,
  ): Promise<Order[]> {
    if (query.marketId !== null && !MARKET_ID.test(query.marketId)) return [];
    const orders: Order[] = [];
    for (let page = 1; orders.length < max; page++) {
      const res = await client.private(ctx, session, decodeOrderPage, {
        path: '/order',
        query: {
          page,
          limit: OPINION_PAGE_LIMIT,
          chainId: '56',
          marketId: query.marketId ?? undefined,
          status: query.status,
        },
        operation: 'list_orders',
      });
      const list = res.list ?? [];
      orders.push(...list.map(toOrder));
      const oldest = list.at(-1)?.createdAt ?? 0;
      if (
        list.length < OPINION_PAGE_LIMIT ||
        (res.total !== null && res.total !== undefined && page * OPINION_PAGE_LIMIT >= res.total)
      )
        break;
      if (stop?.(oldest)) break;
    }
    return orders.slice(0, max);
  }

  /** The order an unanswered POST may have placed: same terms, created since shortly before it was sent. */
  async function findByTerms(ctx: VenueContext, session: VenueSession, ref: OrderRef): Promise<Order | null> {
    const terms = ref.terms;
    if (!terms) return null;
    const since = Math.floor(ref.sentAtMs / 1000) - LOOKUP_SLACK_S;
    const recent = await listOrders(ctx, session, { marketId: ref.marketId }, MAX_LOOKUP, (t) => t < since);
    const matches = recent.filter(
      (o) =>
        Date.parse(o.created_at) / 1000 >= since &&
        o.side === terms.side &&
        o.outcome.toLowerCase() === terms.outcome.toLowerCase() &&
        Math.abs(o.price - terms.price) < 1e-9 &&
        Math.abs(o.size - terms.size) < 1e-9,
    );
    // Of several, the one created nearest the send (the list is newest first; equal terms are equally good).
    const sentAt = ref.sentAtMs / 1000;
    matches.sort(
      (a, b) =>
        Math.abs(Date.parse(a.created_at) / 1000 - sentAt) -
        Math.abs(Date.parse(b.created_at) / 1000 - sentAt),
    );
    return matches[0] ?? null;
  }

  return {
    async createOrder(ctx, session, req, hooks) {
      const privateKey = sessionSigner(session);
      const market = await context.market(ctx, session, req.market_id);
      const token = market.tokens.get(req.outcome.trim().toLowerCase());
      if (!token) {
        const valid = [...market.tokens.values()].map((t) => t.name).join(', ');
        throw new AppError('validation_error', `market ${req.market_id} has no outcome '${req.outcome}'`, {
          validationErrors: [`outcome must be one of: ${valid}`],
        });
      }
      const maker = await context.maker(ctx, session, privateKey);
      const signed = await signOpinionOrder(privateKey, {
        marketId: market.marketId,
        tokenId: token.tokenId,
        side: req.side,
        price: req.price,
        size: req.size,
        ...(req.order_type === 'gtd' && req.expiration !== undefined ? { expiresAt: req.expiration } : {}),
        maker,
        exchange: market.exchange,
        quoteToken: market.quoteToken,
        decimals: market.decimals,
      });
      // Opinion assigns the order id; until it answers we know none.
      await hooks?.beforeSend({ orderId: null });
      const sentAtMs = Date.now();
      try {
        const { orderData } = await client.post(ctx, session, decodeOrderDoc, {
          path: '/order',
          body: signed.body,
          idempotent: false,
          operation: 'create_order',
        });
        return { ...toOrder(orderData), outcome: token.name };
      } catch (error) {
        if (
          (error instanceof VenueTransportError && error.maybeProcessed) ||
          (error instanceof VenueStatusError && error.status >= 500)
        ) {
          const ref = {
            marketId: req.market_id,
            clientOrderId: req.client_order_id,
            orderId: null,
            sentAtMs,
          };
          const lookup = { ...ctx, signal: AbortSignal.timeout(5_000) };
          const found = await findByTerms(lookup, session, { ...ref, terms: req }).catch(() => null);
          if (found) return found;
          throw new AppError(
            'service_unavailable',
            'opinion did not confirm the order; it may or may not have been placed: it is looked up by its terms, never sent again',
            { cause: error, extra: { order_status: 'unknown' } },
          );
        }
        throw error;
      }
    },

    async lookupOrder(ctx, session, ref) {
      if (ref.orderId !== null) {
        try {
          return await readOrder(ctx, session, ref.orderId);
        } catch (error) {
          if (error instanceof AppError && error.code === 'order_not_found') return null;
          throw error;
        }
      }
      return findByTerms(ctx, session, ref);
    },

    getOrder: (ctx, session, orderId) => readOrder(ctx, session, orderId),

    listOpenOrders: (ctx, session, marketId) =>
      listOrders(ctx, session, { marketId, status: OPEN }, MAX_ORDERS),

    async cancelOrder(ctx, session, orderId) {
      if (!ORDER_ID.test(orderId)) throw new AppError('order_not_found', `opinion has no order '${orderId}'`);
      const { result } = await client.post(ctx, session, decodeCancel, {
        path: '/order/cancel',
        body: JSON.stringify({ orderId }),
        // Cancelling twice is harmless, so a lost answer may be retried.
        idempotent: true,
        operation: 'cancel_order',
      });
      const order = await readOrder(ctx, session, orderId);
      // `result: false` is not "still open": the order may have filled, expired or been cancelled first; the order
      // says which.
      if (result !== true) {
        throw new AppError('conflict', `opinion did not cancel ${orderId}: it is ${order.status}`);
      }
      return { ...order, updated_at: new Date().toISOString() };
    },

    // Every order of the key holder, newest first (the route keeps the closed ones for status=closed).
    fetchOrderHistory: (ctx, session, marketId) => listOrders(ctx, session, { marketId }, MAX_ORDERS),

    async fetchFills(ctx, session, marketId, limit): Promise<Fill[]> {
      if (marketId !== null && !MARKET_ID.test(marketId)) return [];
      const { list } = await client.walk(async (page) => {
        const result = await client.private(ctx, session, decodeFills, {
          path: '/trade',
          query: { page, limit: OPINION_PAGE_LIMIT, chainId: '56', marketId: marketId ?? undefined },
          operation: 'list_fills',
        });
        return { list: result.list ?? [], total: result.total ?? null };
      }, limit);
      return list.map(toFill);
    },

    async fetchPositions(ctx, session, marketId): Promise<Position[]> {
      // Opinion market ids are integers: any other id holds nothing.
      if (marketId !== null && !MARKET_ID.test(marketId)) return [];
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
      // The read that proves credentials at onboarding: a private_key that is not the key's wallet is refused here.
      await context.checkPair(ctx, session);
      const raw = await client.private(ctx, session, decodeBalance, {
        path: '/user/balance',
        query: { chain_id: '56' },
        operation: 'balance',
      });
      return { raw: raw as Record<string, unknown> };
    },
  };
}
