// The Limitless trading facet, with the caller's own credentials per call: the wallet key signs each order
// (EIP-712, signing.ts) and the API token (or legacy key) authenticates every request. Orders go to POST /orders
// with our client_order_id as `clientOrderId`, which is how a submission whose answer was lost is found again
// (POST /orders/status/batch); it is never sent twice. Reads: the status batch (one order), user-orders per market
// (open: LIVE; history: LIVE and MATCHED), fills from each order's matches with the fee of its execution, and the
// positions and PnL-chart "balance" as before. Sources: docs/venues/limitless.md "Trading".
import type { Balance, Fill, Order, OrderRequest, OrderStatus, Position } from '../../domain/trading.js';
import { AppError } from '../../errors/app-error.js';
import type { OrderRef, SendHooks, TradingFacet, VenueContext, VenueSession } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenueStatusError, VenueTransportError } from '../shared/venue-errors.js';
import type { LimitlessClient } from './client.js';
import { mapLimitlessError } from './errors.js';
import { resolveOutcome, toNumber, UNITS } from './parse.js';
import { positionsToPositions } from './parse-portfolio.js';
import {
  LimitlessCreateOrderResponse,
  LimitlessDocument,
  type LimitlessExecution,
  LimitlessMarketVenue,
  type LimitlessMatch,
  type LimitlessOrder,
  LimitlessPnlChart,
  LimitlessPositions,
  LimitlessProfile,
  LimitlessStatusBatch,
  LimitlessUserOrders,
} from './payloads.js';
import { addressOfKey, limitAmounts, newSalt, signLimitlessOrder, ZERO_ADDRESS } from './signing.js';

const decodePositions = payloadDecoder(LimitlessPositions);
const decodePnl = payloadDecoder(LimitlessPnlChart);
const decodeDocument = payloadDecoder(LimitlessDocument);
const decodeMarket = payloadDecoder(LimitlessMarketVenue);
const decodeProfile = payloadDecoder(LimitlessProfile);
const decodeCreate = payloadDecoder(LimitlessCreateOrderResponse);
const decodeStatus = payloadDecoder(LimitlessStatusBatch);
const decodeUserOrders = payloadDecoder(LimitlessUserOrders);

/** The SDK signs this fee rate when a profile names none (OrderClient.ensureUserData). */
const DEFAULT_FEE_RATE_BPS = 300;
/** Markets and profiles remembered (a market's exchange and tokens never change; a rank rarely does). */
const CACHE_MAX = 5_000;
const PROFILE_TTL_MS = 10 * 60_000;
/** The status batch takes 1–50 items (docs api-reference/trading/order-status-batch). */
const STATUS_BATCH_MAX = 50;

type TradingMethods =
  | 'createOrder'
  | 'lookupOrder'
  | 'getOrder'
  | 'listOpenOrders'
  | 'cancelOrder'
  | 'fetchOrderHistory'
  | 'fetchFills'
  | 'fetchPositions'
  | 'fetchBalance';

export function limitlessTrading(client: LimitlessClient): Required<Pick<TradingFacet, TradingMethods>> {
  const markets = new Map<string, { exchange: string; yes: string; no: string }>();
  const profiles = new Map<string, { at: number; ownerId: number; feeRateBps: number }>();

  async function marketOf(ctx: VenueContext, slug: string) {
    const known = markets.get(slug);
    if (known) return known;
    const doc = await client.get(ctx, decodeMarket, {
      path: `/markets/${encodeURIComponent(slug)}`,
      operation: 'market_venue',
    });
    if (!doc.venue?.exchange || !doc.tokens) {
      throw new AppError('validation_error', `limitless market ${slug} has no order book to trade on`);
    }
    const info = { exchange: doc.venue.exchange, yes: doc.tokens.yes, no: doc.tokens.no };
    if (markets.size >= CACHE_MAX) markets.clear();
    markets.set(slug, info);
    return info;
  }

  /**
   * The API token's own profile (GET /profiles/me, signed): its id is the order's ownerId, its rank the fee rate
   * the order signs (as the SDK's OrderClient reads them), and its account must be the signing key's wallet.
   */
  async function profileOf(ctx: VenueContext, session: VenueSession, address: string) {
    const cacheKey = `${address}|${session.credentials.token_id ?? session.credentials.api_key ?? ''}`;
    const known = profiles.get(cacheKey);
    if (known && Date.now() - known.at < PROFILE_TTL_MS) return known;
    const doc = await client.getPrivate(ctx, session, decodeProfile, {
      path: '/profiles/me',
      operation: 'profile',
    });
    if (doc.account.toLowerCase() !== address.toLowerCase()) {
      throw new AppError(
        'validation_error',
        'limitless private_key is not the wallet of the API token’s profile',
        { validationErrors: ['credentials.private_key must be the key of the profile the token belongs to'] },
      );
    }
    const fee = toNumber(doc.rank?.feeRateBps ?? null);
    const info = {
      at: Date.now(),
      ownerId: Number(doc.id),
      feeRateBps: fee !== null && Number.isInteger(fee) ? fee : DEFAULT_FEE_RATE_BPS,
    };
    if (profiles.size >= CACHE_MAX) profiles.clear();
    profiles.set(cacheKey, info);
    return info;
  }

  async function status(
    ctx: VenueContext,
    session: VenueSession,
    items: Array<{ orderId: string } | { clientOrderId: string }>,
  ): Promise<LimitlessStatusBatch['results']> {
    const out: LimitlessStatusBatch['results'] = [];
    for (let i = 0; i < items.length; i += STATUS_BATCH_MAX) {
      const page = await client.sendPrivate(ctx, session, decodeStatus, {
        method: 'POST',
        path: '/orders/status/batch',
        body: { items: items.slice(i, i + STATUS_BATCH_MAX) },
        operation: 'order_status',
        // A read: asking twice changes nothing.
        idempotent: true,
      });
      out.push(...page.results);
    }
    return out;
  }

  async function one(
    ctx: VenueContext,
    session: VenueSession,
    item: { orderId: string } | { clientOrderId: string },
  ) {
    const [result] = await status(ctx, session, [item]);
    return result?.status === 'found' && result.data ? result.data : null;
  }

  async function userOrders(
    ctx: VenueContext,
    session: VenueSession,
    slug: string,
    statuses: readonly ('LIVE' | 'MATCHED')[],
  ): Promise<LimitlessOrder[]> {
    const doc = await client.getPrivate(ctx, session, decodeUserOrders, {
      path: `/markets/${encodeURIComponent(slug)}/user-orders`,
      query: { statuses: statuses.join(','), limit: 500 },
      operation: 'user_orders',
    });
    return doc.orders;
  }

  /**
   * Markets to read orders of when none is named: every CLOB entry of the positions document, which lists the
   * markets the account holds tokens in or has live orders on (each entry's `orders.liveOrders`).
   */
  async function heldMarkets(ctx: VenueContext, session: VenueSession): Promise<string[]> {
    const doc = await client.getPrivate(ctx, session, decodePositions, {
      path: '/portfolio/positions',
      operation: 'positions',
    });
    return [...new Set(doc.clob.flatMap((e) => (e.market?.slug ? [e.market.slug] : [])))];
  }

  async function ordersOf(
    ctx: VenueContext,
    session: VenueSession,
    marketId: string | null,
    statuses: readonly ('LIVE' | 'MATCHED')[],
  ): Promise<Order[]> {
    const slugs = marketId !== null ? [marketId] : await heldMarkets(ctx, session);
    const out: Order[] = [];
    for (const slug of slugs) {
      for (const o of await userOrders(ctx, session, slug, statuses)) {
        out.push(await toOrder(ctx, o, slug));
      }
    }
    return out.sort((a, b) => b.created_at.localeCompare(a.created_at));
  }

  async function toOrder(ctx: VenueContext, o: LimitlessOrder, slug: string): Promise<Order> {
    const market = await marketOf(ctx, o.marketSlug ?? slug);
    return parseOrder(o, o.marketSlug ?? slug, market.yes === o.tokenId ? 'Yes' : 'No');
  }

  return {
    async createOrder(ctx, session, req: OrderRequest, hooks?: SendHooks): Promise<Order> {
      const { key, address } = signerOf(session);
      const orderType = req.order_type === 'gtc' ? 'GTC' : req.order_type === 'ioc' ? 'FAK' : null;
      if (orderType === null) {
        throw new AppError('not_supported', `limitless has no ${req.order_type} limit orders (gtc and ioc)`);
      }
      const outcome = resolveOutcome(req.outcome);
      if (!outcome) throw new AppError('validation_error', 'limitless outcomes are Yes and No');
      const amounts = limitAmounts(req.side, req.price, req.size);
      const market = await marketOf(ctx, req.market_id);
      const profile = await profileOf(ctx, session, address);
      const signed = await signLimitlessOrder(
        key,
        {
          salt: newSalt(),
          maker: address,
          signer: address,
          taker: ZERO_ADDRESS,
          tokenId: outcome === 'Yes' ? market.yes : market.no,
          makerAmount: Number(amounts.makerAmount),
          takerAmount: Number(amounts.takerAmount),
          expiration: '0',
          nonce: 0,
          feeRateBps: profile.feeRateBps,
          side: req.side === 'buy' ? 0 : 1,
          signatureType: 0,
          price: req.price,
        },
        market.exchange,
      );
      const body = {
        order: signed,
        orderType,
        marketSlug: req.market_id,
        ownerId: profile.ownerId,
        clientOrderId: req.client_order_id,
      };
      // Limitless assigns the order id; the clientOrderId in the body is what finds a lost order again.
      await hooks?.beforeSend({ orderId: null });
      try {
        const res = await client.sendPrivate(ctx, session, decodeCreate, {
          method: 'POST',
          path: '/orders',
          body,
          operation: 'create_order',
          idempotent: false,
        });
        return withMatches(parseOrder(res.order, req.market_id, outcome), res.makerMatches ?? []);
      } catch (error) {
        const duplicate = error instanceof VenueStatusError && error.status === 409;
        const unknown =
          (error instanceof VenueTransportError && error.maybeProcessed) ||
          (error instanceof VenueStatusError && error.status >= 500);
        if (!duplicate && !unknown) throw mapLimitlessError(error);
        const found = await one(ctx, session, { clientOrderId: req.client_order_id }).catch(() => null);
        if (found) return parseOrder(found.order.order, req.market_id, outcome);
        if (duplicate) throw mapLimitlessError(error);
        throw new AppError(
          'service_unavailable',
          `limitless did not confirm order ${req.client_order_id}; its outcome is unknown. It is reconciled by its clientOrderId.`,
          { cause: error, extra: { client_order_id: req.client_order_id, order_state: 'unknown' } },
        );
      }
    },

    async lookupOrder(ctx, session, ref: OrderRef): Promise<Order | null> {
      const found = await one(
        ctx,
        session,
        ref.orderId !== null ? { orderId: ref.orderId } : { clientOrderId: ref.clientOrderId },
      );
      if (!found) return null;
      return toOrder(ctx, found.order.order, ref.marketId);
    },

    async getOrder(ctx, session, orderId): Promise<Order> {
      const found = await one(ctx, session, { orderId });
      if (!found) throw new AppError('order_not_found', `limitless has no order ${orderId}`);
      const o = found.order.order;
      if (!o.marketSlug) throw new AppError('service_unavailable', 'limitless order status names no market');
      return toOrder(ctx, o, o.marketSlug);
    },

    listOpenOrders: (ctx, session, marketId) => ordersOf(ctx, session, marketId, ['LIVE']),

    async cancelOrder(ctx, session, orderId): Promise<Order> {
      const before = await this.getOrder(ctx, session, orderId);
      if (before.status !== 'open' && before.status !== 'partially_filled') {
        throw new AppError('conflict', `limitless order ${orderId} is already ${before.status}`);
      }
      try {
        await client.sendPrivate(ctx, session, decodeDocument, {
          method: 'DELETE',
          path: `/orders/${encodeURIComponent(orderId)}`,
          operation: 'cancel_order',
          // Cancelling twice is harmless: a lost answer may be retried.
          idempotent: true,
        });
      } catch (error) {
        // A retried cancel whose first answer was lost finds the order no longer LIVE: the order tells.
        if (error instanceof VenueStatusError && error.status < 500) {
          const now = await this.getOrder(ctx, session, orderId);
          if (now.status === 'cancelled') return now;
          throw new AppError(
            'conflict',
            `limitless order ${orderId} is no longer open: it is ${now.status}`,
            {
              cause: error,
            },
          );
        }
        throw mapLimitlessError(error);
      }
      return this.getOrder(ctx, session, orderId);
    },

    fetchOrderHistory: (ctx, session, marketId) => ordersOf(ctx, session, marketId, ['LIVE', 'MATCHED']),

    async fetchFills(ctx, session, marketId, limit): Promise<Fill[]> {
      const slugs = marketId !== null ? [marketId] : await heldMarkets(ctx, session);
      const traded: Array<{ order: LimitlessOrder; slug: string }> = [];
      for (const slug of slugs) {
        for (const o of await userOrders(ctx, session, slug, ['LIVE', 'MATCHED'])) {
          const remaining = toNumber(o.remainingSize ?? null);
          const original = toNumber(o.originalSize ?? null);
          if (remaining === null || original === null || remaining < original)
            traded.push({ order: o, slug });
        }
      }
      const results = await status(
        ctx,
        session,
        traded.map((t) => ({ orderId: t.order.id })),
      );
      const fills: Fill[] = [];
      for (const [i, r] of results.entries()) {
        const t = traded[i];
        if (!t || r.status !== 'found' || !r.data) continue;
        const market = await marketOf(ctx, t.slug);
        const outcome = market.yes === t.order.tokenId ? 'Yes' : 'No';
        fills.push(
          ...fillsOf(
            r.data.order.order,
            t.slug,
            outcome,
            r.data.makerMatches ?? [],
            r.data.execution ?? null,
          ),
        );
      }
      return fills.sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, limit);
    },

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

/** The session's wallet key: orders cannot be signed without it (the API token alone does not sign). */
function signerOf(session: VenueSession): { key: `0x${string}`; address: string } {
  const key = session.credentials.private_key;
  if (!key) {
    throw new AppError(
      'credentials_required',
      'limitless orders are signed by the wallet: credentials need private_key beside the API token',
    );
  }
  return addressOfKey(key);
}

const STATUS_OF: ReadonlyMap<string, OrderStatus> = new Map([
  ['LIVE', 'open'],
  ['MATCHED', 'filled'],
  ['CANCELLED', 'cancelled'],
  ['CANCELED', 'cancelled'],
  ['KILLED', 'cancelled'],
  ['EXPIRED', 'expired'],
]);

function sharesOf(raw: number | string | null | undefined): number {
  const n = toNumber(raw ?? null);
  return n === null ? 0 : n;
}

/** An order in our shape; sizes in shares (the order's own amounts are 1e6 units). */
export function parseOrder(o: LimitlessOrder, marketId: string, outcome: 'Yes' | 'No'): Order {
  const side = o.side === 0 || o.side === 'BUY' || o.side === '0' ? 'buy' : 'sell';
  const signedShares = side === 'buy' ? Number(o.takerAmount) : Number(o.makerAmount);
  const size =
    o.originalSize !== undefined && o.originalSize !== null ? sharesOf(o.originalSize) : signedShares / UNITS;
  const remaining =
    o.remainingSize !== undefined && o.remainingSize !== null ? sharesOf(o.remainingSize) : size;
  const filled = Math.round((size - remaining) * 1e6) / 1e6;
  let status = STATUS_OF.get(o.status ?? 'LIVE') ?? 'open';
  if (status === 'open' && filled > 0) status = 'partially_filled';
  // A FAK that filled part and was killed is reported by Limitless as MATCHED for what it filled.
  if (status === 'filled' && filled < size) status = 'cancelled';
  if (status === 'cancelled' && filled >= size && size > 0) status = 'filled';
  return {
    id: o.id,
    market_id: marketId,
    outcome,
    side,
    price: toNumber(o.price ?? null) ?? 0,
    size,
    filled,
    status,
    created_at: o.createdAt ?? new Date(0).toISOString(),
    updated_at: o.updatedAt ?? null,
    ...(o.clientOrderId ? { client_order_id: o.clientOrderId } : {}),
  };
}

/**
 * The create answer's matches are what filled at once: they give the order's fill when its document carries no
 * remaining size (only the simulator's is known to).
 */
function withMatches(order: Order, matches: readonly LimitlessMatch[]): Order {
  if (matches.length === 0 || order.filled > 0) return order;
  const filled = matches.reduce((s, m) => s + sharesOf(m.matchedSize) / UNITS, 0);
  return { ...order, filled, status: filled >= order.size ? 'filled' : 'partially_filled' };
}

/**
 * One fill per match of an order. Limitless charges takers only; a taker match's fee is its share of the order's
 * execution fee (`totalsRaw.usdFee`, plus `contractsFee` valued at the match price: a BUY pays its fee in shares).
 */
export function fillsOf(
  o: LimitlessOrder,
  marketId: string,
  outcome: 'Yes' | 'No',
  matches: readonly LimitlessMatch[],
  execution: LimitlessExecution | null,
): Fill[] {
  const side = o.side === 0 || o.side === 'BUY' || o.side === '0' ? 'buy' : 'sell';
  const totals = execution?.totalsRaw;
  const gross = totals ? Number(totals.contractsGross) : 0;
  return matches.map((m) => {
    const size = sharesOf(m.matchedSize) / UNITS;
    const price = toNumber(m.price ?? null) ?? toNumber(o.price ?? null) ?? 0;
    const isTaker = m.role !== 'MAKER';
    let fee: number | null = 0;
    if (isTaker) {
      if (!totals || gross <= 0) fee = null;
      else {
        const share = sharesOf(m.matchedSize) / gross;
        const usd = Number(totals.usdFee) / UNITS + (Number(totals.contractsFee) / UNITS) * price;
        fee = Math.round(usd * share * 1e6) / 1e6;
      }
    }
    return {
      fill_id: `${o.id}:${m.id}`,
      order_id: o.id,
      market_id: marketId,
      outcome,
      side,
      price,
      size,
      is_taker: isTaker,
      fee,
      created_at: m.createdAt ?? o.createdAt ?? new Date(0).toISOString(),
    };
  });
}
