// Trading facet, signed with the caller's API key per call: V2 event-order entry (POST/DELETE
// /portfolio/events/orders, the only order writes the exchange still serves), order reads, fills, positions and
// balance. An order POST without a definite answer is reconciled by client_order_id, never sent again.
import type { Balance, Fill, Order, OrderRequest, Position } from '../../domain/trading.js';
import { AppError } from '../../errors/app-error.js';
import type {
  OrderRef,
  SendHooks,
  StreamContext,
  TradingFacet,
  UserStream,
  VenueContext,
  VenueSession,
} from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenueStatusError, VenueTransportError } from '../shared/venue-errors.js';
import { type KalshiKey, kalshiKey } from './auth.js';
import type { KalshiClient } from './client.js';
import { mapKalshiError, readErrorBody } from './errors.js';
import { resolveOutcome, yesPriceOf } from './parse.js';
import { orderBody, orderFromCreate, parseFill, parseOrder, parsePosition } from './parse-trading.js';
import {
  KalshiBalance,
  KalshiCancelOrderResponse,
  KalshiCreateOrderResponse,
  KalshiFillsPage,
  KalshiMarketsPage,
  type KalshiOrder,
  KalshiOrderResponse,
  KalshiOrdersPage,
  KalshiPositionsPage,
} from './payloads.js';
import { openKalshiUserStream } from './stream.js';

const decodeCreate = payloadDecoder(KalshiCreateOrderResponse);
const decodeCancel = payloadDecoder(KalshiCancelOrderResponse);
const decodeOrder = payloadDecoder(KalshiOrderResponse);
const decodeOrders = payloadDecoder(KalshiOrdersPage);
const decodeFills = payloadDecoder(KalshiFillsPage);
const decodePositions = payloadDecoder(KalshiPositionsPage);
const decodeMarkets = payloadDecoder(KalshiMarketsPage);
const decodeBalance = payloadDecoder(KalshiBalance);

const PAGE = 1000;
/** Bound on pages walked for one list call (100k orders or positions). */
const MAX_PAGES = 100;
/** How far back a lost order submission is looked for by its client_order_id. */
const RECONCILE_WINDOW_S = 600;

export function kalshiTrading(
  client: KalshiClient,
): Required<Omit<TradingFacet, 'ensureDepositWallet' | 'onchainSigner' | 'relayWalletCalls'>> {
  async function listOrders(
    ctx: VenueContext,
    key: KalshiKey,
    query: Record<string, string | number | undefined>,
    tier: 'live' | 'historical' = 'live',
  ) {
    const out: KalshiOrder[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < MAX_PAGES; i++) {
      const page = await client.get(ctx, decodeOrders, {
        path: tier === 'live' ? '/portfolio/orders' : '/historical/orders',
        query: { ...query, limit: PAGE, cursor },
        operation: tier === 'live' ? 'get_orders' : 'get_historical_orders',
        key,
      });
      out.push(...page.orders);
      if (!page.cursor) break;
      cursor = page.cursor;
    }
    return out;
  }

  async function getOrder(ctx: VenueContext, key: KalshiKey, orderId: string): Promise<KalshiOrder> {
    try {
      const res = await client.get(ctx, decodeOrder, {
        path: `/portfolio/orders/${encodeURIComponent(orderId)}`,
        operation: 'get_order',
        key,
      });
      return res.order;
    } catch (error) {
      throw mapKalshiError(error, 'order');
    }
  }

  /**
   * The cancel was answered 404 although the order rested a moment ago: the order is read again before anything is
   * said. Cancelled (a retried cancel whose first answer was lost, or cancelled elsewhere) is the answer; filled or
   * expired in between is a conflict naming it; still resting means the cancel did not reach it, which is said as
   * such (503, retryable), never "no longer open".
   */
  async function afterCancelNotFound(
    ctx: VenueContext,
    key: KalshiKey,
    orderId: string,
    cause: VenueStatusError,
  ): Promise<Order> {
    const now = parseOrder(await getOrder(ctx, key, orderId));
    if (now.status === 'cancelled') return now;
    if (now.status === 'open' || now.status === 'partially_filled') {
      throw new AppError(
        'service_unavailable',
        `kalshi did not find order ${orderId} to cancel, yet it still rests: it was not cancelled`,
        { cause },
      );
    }
    throw new AppError('conflict', `kalshi order ${orderId} is no longer open: it is ${now.status}`, {
      cause,
    });
  }

  /** Finds an order we submitted by the client_order_id we gave it (the exchange has no lookup by it). */
  async function reconcile(ctx: VenueContext, key: KalshiKey, ticker: string, clientOrderId: string) {
    const recent = await listOrders(ctx, key, {
      ticker,
      min_ts: Math.floor(Date.now() / 1000) - RECONCILE_WINDOW_S,
    });
    return recent.find((o) => o.client_order_id === clientOrderId) ?? null;
  }

  return {
    async createOrder(
      ctx: VenueContext,
      session: VenueSession,
      req: OrderRequest,
      hooks?: SendHooks,
    ): Promise<Order> {
      const key = kalshiKey(session);
      const body = orderBody(req, resolveOutcome({ svc_id: `kalshi:${req.market_id}` }, req.outcome));
      // Kalshi assigns the order id; the client_order_id in the body is what finds a lost order again.
      await hooks?.beforeSend({ orderId: null });
      let res: Awaited<ReturnType<KalshiClient['writeCall']>>;
      try {
        res = await client.writeCall(ctx, 'POST', {
          path: '/portfolio/events/orders',
          body,
          operation: 'create_order',
          key,
          idempotent: false,
        });
      } catch (error) {
        const duplicate =
          error instanceof VenueStatusError &&
          error.status === 409 &&
          readErrorBody(error.body).code === 'order_already_exists';
        const unknown =
          (error instanceof VenueTransportError && error.maybeProcessed) ||
          (error instanceof VenueStatusError && error.status >= 500);
        if (!duplicate && !unknown) throw mapKalshiError(error, 'market');
        // The order may exist (a lost answer, or an earlier attempt with this client_order_id): find it.
        const found = await reconcile(ctx, key, body.ticker, body.client_order_id).catch(() => null);
        if (found) return parseOrder(found);
        if (duplicate) throw mapKalshiError(error, 'order');
        throw new AppError(
          'service_unavailable',
          `kalshi did not confirm order ${body.client_order_id}; its outcome is unknown. Retry with the same client_order_id to reconcile.`,
          { cause: error, extra: { client_order_id: body.client_order_id, order_state: 'unknown' } },
        );
      }
      return orderFromCreate(client.decode(decodeCreate, res, 'create_order'), body);
    },

    async getOrder(ctx: VenueContext, session: VenueSession, orderId: string): Promise<Order> {
      return parseOrder(await getOrder(ctx, kalshiKey(session), orderId));
    },

    async lookupOrder(ctx: VenueContext, session: VenueSession, ref: OrderRef): Promise<Order | null> {
      const key = kalshiKey(session);
      if (ref.orderId !== null) {
        try {
          return parseOrder(await getOrder(ctx, key, ref.orderId));
        } catch (error) {
          if (error instanceof AppError && error.code === 'order_not_found') return null;
          throw error;
        }
      }
      // Orders are listed from a minute before the send (clock skew), so an old lost order is still found.
      const since = Math.floor(ref.sentAtMs / 1000) - 60;
      const recent = await listOrders(ctx, key, { ticker: ref.marketId, min_ts: since });
      const found = recent.find((o) => o.client_order_id === ref.clientOrderId);
      return found ? parseOrder(found) : null;
    },

    async listOpenOrders(
      ctx: VenueContext,
      session: VenueSession,
      marketId: string | null,
    ): Promise<Order[]> {
      const orders = await listOrders(ctx, kalshiKey(session), {
        status: 'resting',
        ticker: marketId ?? undefined,
      });
      return orders.map(parseOrder);
    },

    async cancelOrder(ctx: VenueContext, session: VenueSession, orderId: string): Promise<Order> {
      const key = kalshiKey(session);
      const order = parseOrder(await getOrder(ctx, key, orderId));
      if (order.status !== 'open' && order.status !== 'partially_filled') {
        throw new AppError('conflict', `kalshi order ${orderId} is already ${order.status}`);
      }
      let res: Awaited<ReturnType<KalshiClient['writeCall']>>;
      try {
        res = await client.writeCall(ctx, 'DELETE', {
          path: `/portfolio/events/orders/${encodeURIComponent(orderId)}`,
          // The market's ticker routes the cancel to the shard the market lives on; without it the exchange sends
          // it to shard 0, which does not know orders on other shards (combos are on shard 1): kalshi-typescript
          // 3.30.0 cancelOrderV2, docs.kalshi.com "Exchange sharding".
          query: { market_ticker: order.market_id },
          operation: 'cancel_order',
          key,
          // Cancelling twice is harmless: a lost answer may be retried.
          idempotent: true,
        });
      } catch (error) {
        if (error instanceof VenueStatusError && error.status === 404) {
          return afterCancelNotFound(ctx, key, orderId, error);
        }
        throw mapKalshiError(error, 'order');
      }
      const ack = client.decode(decodeCancel, res, 'cancel_order');
      const reducedBy = Number(ack.reduced_by);
      // What was not cancelled had filled; the order read just before may be a moment stale.
      return {
        ...order,
        status: 'cancelled',
        filled: Number.isFinite(reducedBy)
          ? Math.max(0, Math.round((order.size - reducedBy) * 100) / 100)
          : order.filled,
        updated_at: new Date(ack.ts_ms).toISOString(),
      };
    },

    async fetchOrderHistory(
      ctx: VenueContext,
      session: VenueSession,
      marketId: string | null,
    ): Promise<Order[]> {
      // Orders cancelled or fully executed before `orders_updated_ts` are served only by GET /historical/orders
      // (docs.kalshi.com "Historical data"); resting ones are always live. The two tiers are read and merged,
      // newest first, an order in both (the cutoff moved between the reads) kept once from the live tier.
      const key = kalshiKey(session);
      const ticker = marketId ?? undefined;
      const live = await listOrders(ctx, key, { ticker });
      const archived = await listOrders(ctx, key, { ticker }, 'historical');
      const seen = new Set(live.map((o) => o.order_id));
      const orders = [
        ...live.map(parseOrder),
        ...archived.filter((o) => !seen.has(o.order_id)).map(parseOrder),
      ];
      // A stable sort: orders the venue printed without a readable time keep their place relative to each other.
      const at = (o: Order) => Date.parse(o.created_at) || 0;
      return orders.sort((a, b) => at(b) - at(a));
    },

    async fetchFills(
      ctx: VenueContext,
      session: VenueSession,
      marketId: string | null,
      limit: number,
    ): Promise<Fill[]> {
      const key = kalshiKey(session);
      const fills: Fill[] = [];
      const seen = new Set<string>();
      // Newest first: the live tier, then, once it is exhausted short of `limit`, the fills older than
      // `trades_created_ts` that only GET /historical/fills serves (docs.kalshi.com "Historical data"). Each tier
      // is walked with its own cursor; a fill seen in both (the cutoff moved between the reads) is kept once.
      for (const tier of ['live', 'historical'] as const) {
        let cursor: string | undefined;
        for (let i = 0; i < MAX_PAGES && fills.length < limit; i++) {
          const page = await client.get(ctx, decodeFills, {
            path: tier === 'live' ? '/portfolio/fills' : '/historical/fills',
            query: { ticker: marketId ?? undefined, limit: Math.min(PAGE, limit - fills.length), cursor },
            operation: tier === 'live' ? 'get_fills' : 'get_historical_fills',
            key,
          });
          for (const fill of page.fills.map(parseFill)) {
            if (seen.has(fill.fill_id)) continue;
            seen.add(fill.fill_id);
            fills.push(fill);
          }
          if (!page.cursor || page.fills.length === 0) break;
          cursor = page.cursor;
        }
        if (fills.length >= limit) break;
      }
      return fills.slice(0, limit);
    },

    async fetchPositions(
      ctx: VenueContext,
      session: VenueSession,
      marketId: string | null,
    ): Promise<Position[]> {
      const key = kalshiKey(session);
      const held = [];
      let cursor: string | undefined;
      for (let i = 0; i < MAX_PAGES; i++) {
        const page = await client.get(ctx, decodePositions, {
          path: '/portfolio/positions',
          query: { count_filter: 'position', ticker: marketId ?? undefined, limit: PAGE, cursor },
          operation: 'get_positions',
          key,
        });
        held.push(...page.market_positions);
        if (!page.cursor) break;
        cursor = page.cursor;
      }
      const prices = await currentYesPrices(
        ctx,
        held.map((p) => p.ticker),
      );
      return held.flatMap((p) => parsePosition(p, prices.get(p.ticker) ?? null) ?? []);
    },

    async fetchBalance(ctx: VenueContext, session: VenueSession): Promise<Balance> {
      // Kalshi computes the balance on every request, so `refresh` needs nothing more than this read.
      const raw = await client.get(ctx, decodeBalance, {
        path: '/portfolio/balance',
        operation: 'get_balance',
        key: kalshiKey(session),
      });
      return { raw: raw as Record<string, unknown> };
    },

    openUserStream(ctx: StreamContext, session: VenueSession): UserStream {
      kalshiKey(session);
      return openKalshiUserStream(ctx, client.options.wsUrl, {
        api_key_id: session.credentials.api_key_id ?? '',
        private_key: session.credentials.private_key ?? '',
      });
    },
  };

  /** Current YES prices of held markets, 100 tickers per request; a failure leaves them unknown (null). */
  async function currentYesPrices(ctx: VenueContext, tickers: string[]): Promise<Map<string, number | null>> {
    const prices = new Map<string, number | null>();
    for (let i = 0; i < tickers.length; i += 100) {
      const chunk = tickers.slice(i, i + 100);
      try {
        const page = await client.get(ctx, decodeMarkets, {
          path: '/markets',
          query: { tickers: chunk.join(','), limit: chunk.length },
          operation: 'get_markets',
        });
        for (const m of page.markets) prices.set(m.ticker, yesPriceOf(m));
      } catch (error) {
        ctx.logger.warn({ venue: 'kalshi', err: error }, 'current prices of held markets unavailable');
      }
    }
    return prices;
  }
}
