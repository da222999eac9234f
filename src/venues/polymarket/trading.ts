// Trading facet: signed V2 orders, their lifecycle on the CLOB (L2-authenticated), fills from user trades,
// positions from the Data API and the collateral balance. The order id is the EIP-712 order hash, computed before
// sending, so an order whose answer was lost is looked up by that id rather than sent again.
import { Type } from 'typebox';
import type { Hex } from 'viem';
import { ownValue } from '../../domain/own-key.js';
import type { Fill, Order, OrderRequest, OrderStatus } from '../../domain/trading.js';
import { AppError } from '../../errors/app-error.js';
import type { TradingFacet, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenueStatusError, VenueTransportError } from '../shared/venue-errors.js';
import { signerFromSession } from './auth.js';
import { CONDITION_ID } from './catalog.js';
import type { PolymarketAuth, PolymarketClient } from './client.js';
import { ensureDepositWallet } from './deposit-wallet.js';
import {
  depositWalletRefusal,
  isKilledOrderMessage,
  isTickSizeMessage,
  mapPolymarketError,
} from './errors.js';
import { FeeExponents } from './fee-exponents.js';
import { MarketInfoCache } from './market-info-cache.js';
import { toNumber } from './parse.js';
import { dataPositionToPosition, openOrderToOrder, userTradeFills } from './parse-trading.js';
import {
  clobPage,
  PolymarketOrderResponse as OrderResponseSchema,
  PolymarketBalanceAllowance,
  PolymarketCancelResponse,
  PolymarketClobMarketInfo,
  PolymarketDataPositionList,
  PolymarketOpenOrder,
  type PolymarketOrderResponse,
  PolymarketUserTrade,
} from './payloads.js';
import { relayDepositWalletCalls } from './relayer-batch.js';
import { checkOrderTerms, type PolymarketOrderType, signOrder } from './signing.js';
import { openPolymarketUserStream } from './stream.js';

const decodeMarketInfo = payloadDecoder(PolymarketClobMarketInfo);
const decodeOrderResponse = payloadDecoder(OrderResponseSchema);
const decodeAny = payloadDecoder(Type.Unknown());
const decodeOpenOrder = payloadDecoder(PolymarketOpenOrder);
const decodeOrdersPage = payloadDecoder(clobPage(PolymarketOpenOrder));
const decodeTradesPage = payloadDecoder(clobPage(PolymarketUserTrade));
const decodeCancel = payloadDecoder(PolymarketCancelResponse);
const decodeBalance = payloadDecoder(PolymarketBalanceAllowance);
const decodePositions = payloadDecoder(PolymarketDataPositionList);

const ORDER_TYPES: Record<OrderRequest['order_type'], PolymarketOrderType> = {
  gtc: 'GTC',
  gtd: 'GTD',
  fok: 'FOK',
  // Polymarket calls immediate-or-cancel "fill and kill".
  ioc: 'FAK',
};
const END_CURSOR = 'LTE=';
const MAX_PAGES = 100;
const ORDER_ID = /^0x[0-9a-fA-F]{64}$/;

/**
 * Protocol-V2 position ids keep their 64 reserved bits (40..103) clear; CTF token ids are keccak hashes, which
 * do not (Polymarket clob-client-v2 `src/protocol.ts` isV2PositionId; `@polymarket/client` routes orders to
 * ExchangeV3 by the same test, `actions/orders/asset.ts` createOrderRouting).
 */
const V2_RESERVED_BITS = ((1n << 64n) - 1n) << 40n;
const UINT256_MAX = (1n << 256n) - 1n;

export function isProtocolV2PositionId(assetId: string): boolean {
  if (!/^\d{1,78}$/.test(assetId)) return false;
  const value = BigInt(assetId);
  return value <= UINT256_MAX && (value & V2_RESERVED_BITS) === 0n;
}

export function polymarketTrading(client: PolymarketClient): TradingFacet {
  const marketInfo = new MarketInfoCache((ctx, conditionId) =>
    client.get(client.clob, ctx, decodeMarketInfo, {
      path: `/clob-markets/${conditionId}`,
      operation: 'get_market_info',
    }),
  );
  async function readOrder(ctx: VenueContext, auth: PolymarketAuth, orderId: string): Promise<Order> {
    if (!ORDER_ID.test(orderId))
      throw new AppError('order_not_found', `polymarket has no order '${orderId}'`);
    const raw = await client.private(ctx, auth, decodeAny, {
      path: `/data/order/${orderId}`,
      operation: 'get_order',
    });
    // An unknown id is answered with an empty body rather than a 404 on some deployments.
    if (!decodeOpenOrder.check(raw))
      throw new AppError('order_not_found', `polymarket has no order ${orderId}`);
    return openOrderToOrder(raw, Date.now() / 1000);
  }

  async function listOpen(
    ctx: VenueContext,
    auth: PolymarketAuth,
    marketId: string | null,
  ): Promise<Order[]> {
    const orders: Order[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await client.private(ctx, auth, decodeOrdersPage, {
        path: '/data/orders',
        query: { market: marketId ?? undefined, next_cursor: cursor },
        operation: 'list_open_orders',
      });
      const now = Date.now() / 1000;
      for (const o of res.data) orders.push(openOrderToOrder(o, now));
      if (!res.next_cursor || res.next_cursor === END_CURSOR || res.data.length === 0) break;
      cursor = res.next_cursor;
    }
    return orders;
  }

  async function userFills(
    ctx: VenueContext,
    auth: PolymarketAuth,
    marketId: string | null,
    limit: number,
  ): Promise<Fill[]> {
    const me = { apiKey: auth.creds.key, address: auth.wallet.maker };
    const fills: Fill[] = [];
    const exponents = new FeeExponents(client);
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && fills.length < limit; page++) {
      const res = await client.private(ctx, auth, decodeTradesPage, {
        path: '/data/trades',
        query: { market: marketId ?? undefined, next_cursor: cursor },
        operation: 'list_trades',
      });
      for (const t of res.data) fills.push(...userTradeFills(t, me, await exponents.of(ctx, t)));
      if (!res.next_cursor || res.next_cursor === END_CURSOR || res.data.length === 0) break;
      cursor = res.next_cursor;
    }
    return fills.sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, limit);
  }

  return {
    async createOrder(ctx, session, req, hooks) {
      const auth = await client.authenticate(ctx, session);
      if (!CONDITION_ID.test(req.market_id)) {
        throw new AppError('market_not_found', `'${req.market_id}' is not a polymarket condition id`);
      }
      const terms = async (fresh: boolean) => {
        const { value: info, cached } = await marketInfo.get(ctx, req.market_id, fresh);
        const tokens = info.t.filter((t) => t !== null);
        const token = tokens.find((t) => t.o.toLowerCase() === req.outcome.trim().toLowerCase());
        if (!token) {
          const valid = tokens.map((t) => t.o).join(', ');
          throw new AppError('validation_error', `market ${req.market_id} has no outcome '${req.outcome}'`, {
            validationErrors: [`outcome must be one of: ${valid}`],
          });
        }
        const tick = toNumber(info.mts);
        if (tick === null)
          throw new AppError('service_unavailable', 'polymarket sent no tick size for the market');
        try {
          checkOrderTerms(req.price, req.size, tick);
        } catch (error) {
          // The tick may have changed since the entry was read: judge the order by the exchange's current one.
          if (cached) return terms(true);
          throw error;
        }
        return { info, token, tick };
      };
      const { info, token, tick } = await terms(false);
      refuseProtocolV2(req.market_id, token.t);
      const signed = await signOrder(
        auth.signer,
        client.chainId,
        {
          tokenId: token.t,
          price: req.price,
          size: req.size,
          side: req.side,
          tickSize: tick,
          negRisk: info.nr ?? false,
          orderType: ORDER_TYPES[req.order_type],
          ...(req.order_type === 'gtd' && req.expiration !== undefined ? { expiration: req.expiration } : {}),
          owner: auth.creds.key,
        },
        auth.wallet,
      );
      const createdAt = new Date().toISOString();
      const base = {
        id: signed.orderHash,
        market_id: req.market_id,
        outcome: token.o,
        side: req.side,
        ...adjustment(req, signed),
      };
      // A market BUY whose cost was rounded down to whole cents asks for the shares it signed, not req.size.
      const sent: OrderRequest = { ...req, size: signed.shares };
      await hooks?.beforeSend({ orderId: signed.orderHash });
      let res: PolymarketOrderResponse;
      try {
        res = await client.private(ctx, auth, decodeOrderResponse, {
          method: 'POST',
          path: '/order',
          body: signed.body,
          idempotent: false,
          operation: 'create_order',
        });
      } catch (error) {
        if (error instanceof VenueStatusError && isTickSizeMessage(error.venueMessage())) {
          marketInfo.invalidate(req.market_id);
        }
        if (error instanceof VenueStatusError && isKilledOrderMessage(error.venueMessage())) {
          return killed(base, sent, createdAt);
        }
        const refusal =
          error instanceof VenueStatusError
            ? depositWalletRefusal(error.venueMessage(), auth.wallet.signatureType, error)
            : null;
        if (refusal) throw refusal;
        if (
          (error instanceof VenueTransportError && error.maybeProcessed) ||
          (error instanceof VenueStatusError && error.status >= 500)
        ) {
          return reconcile(ctx, auth, signed.orderHash, error);
        }
        throw error;
      }
      if (res.success === false || (res.errorMsg ?? '') !== '') {
        const message = res.errorMsg || 'order refused';
        if (isKilledOrderMessage(message)) return killed(base, sent, createdAt);
        if (isTickSizeMessage(message)) marketInfo.invalidate(req.market_id);
        const refusal = depositWalletRefusal(message, auth.wallet.signatureType, null);
        if (refusal) throw refusal;
        throw mapPolymarketError(
          new VenueStatusError(
            'polymarket',
            'create_order',
            400,
            JSON.stringify({ error: message }),
            null,
            1,
          ),
        );
      }
      return orderFromPost(res, { ...base, id: res.orderID || signed.orderHash }, sent, createdAt);
    },

    async getOrder(ctx, session, orderId) {
      return readOrder(ctx, await client.authenticate(ctx, session), orderId);
    },

    async lookupOrder(ctx, session, ref) {
      // The order hash is computed before sending, so every order we may have sent has its id.
      if (ref.orderId === null) return null;
      try {
        return await readOrder(ctx, await client.authenticate(ctx, session), ref.orderId);
      } catch (error) {
        if (error instanceof AppError && error.code === 'order_not_found') return null;
        throw error;
      }
    },

    async listOpenOrders(ctx, session, marketId) {
      return listOpen(ctx, await client.authenticate(ctx, session), marketId);
    },

    async cancelOrder(ctx, session, orderId) {
      const auth = await client.authenticate(ctx, session);
      if (!ORDER_ID.test(orderId))
        throw new AppError('order_not_found', `polymarket has no order '${orderId}'`);
      const res = await client.private(ctx, auth, decodeCancel, {
        method: 'DELETE',
        path: '/order',
        body: JSON.stringify({ orderID: orderId }),
        // Cancelling twice is harmless, so a lost answer may be retried.
        idempotent: true,
        operation: 'cancel_order',
      });
      const reason = res.not_canceled ? ownValue(res.not_canceled, orderId) : undefined;
      if (!res.canceled?.includes(orderId)) {
        const why = reason ?? 'not cancelled';
        if (/not found|does not exist|doesn't exist|unknown/i.test(why)) {
          throw new AppError('order_not_found', `polymarket has no open order ${orderId}: ${why}`);
        }
        throw new AppError('conflict', `polymarket did not cancel ${orderId}: ${why}`);
      }
      const order = await readOrder(ctx, auth, orderId);
      const status: OrderStatus = order.status === 'expired' ? 'expired' : 'cancelled';
      return { ...order, status, updated_at: new Date().toISOString() };
    },

    async fetchOrderHistory(ctx, session, marketId) {
      // The CLOB lists only open orders; closed ones are found through the trades that filled them. Orders
      // cancelled or expired without any fill are not reported by the venue.
      const auth = await client.authenticate(ctx, session);
      const [open, fills] = await Promise.all([
        listOpen(ctx, auth, marketId),
        userFills(ctx, auth, marketId, 1_000),
      ]);
      const byId = new Map(open.map((o) => [o.id, o]));
      const traded = [...new Set(fills.map((f) => f.order_id))].filter((id) => !byId.has(id)).slice(0, 200);
      for (let i = 0; i < traded.length; i += 8) {
        const batch = await Promise.all(traded.slice(i, i + 8).map((id) => readOrder(ctx, auth, id)));
        for (const o of batch) byId.set(o.id, o);
      }
      return [...byId.values()].sort((a, b) => b.created_at.localeCompare(a.created_at));
    },

    async fetchFills(ctx, session, marketId, limit) {
      return userFills(ctx, await client.authenticate(ctx, session), marketId, limit);
    },

    async fetchPositions(ctx, session, marketId) {
      // Positions are public by wallet and held by the maker (funder), not the signing EOA; no API key is needed.
      const address = (await client.tradingWallet(ctx, session, signerFromSession(session))).maker;
      const rows = await client.get(client.data, ctx, decodePositions, {
        path: '/positions',
        query: { user: address, market: marketId ?? undefined, sizeThreshold: 0, limit: 500 },
        operation: 'get_positions',
      });
      return rows.filter((p) => p.size > 0).map(dataPositionToPosition);
    },

    async fetchBalance(ctx, session, options) {
      const auth = await client.authenticate(ctx, session);
      // The CLOB answers for the wallet of the signature type it is asked about (the SDK always sends it).
      const query = { asset_type: 'COLLATERAL', signature_type: auth.wallet.signatureType };
      if (options?.refresh) {
        await client.private(ctx, auth, decodeAny, {
          path: '/balance-allowance/update',
          query,
          operation: 'refresh_balance',
        });
      }
      const raw = await client.private(ctx, auth, decodeBalance, {
        path: '/balance-allowance',
        query,
        operation: 'get_balance',
      });
      return { raw: raw as Record<string, unknown> };
    },

    openUserStream: (ctx, session) => openPolymarketUserStream(ctx, client, session),

    ensureDepositWallet: (ctx, session) =>
      ensureDepositWallet(client, ctx, signerFromSession(session).address),

    onchainSigner: async (ctx, session) => {
      const signer = signerFromSession(session);
      const wallet = await client.tradingWallet(ctx, session, signer);
      const raw = session.credentials.private_key ?? '';
      return {
        privateKey: (raw.startsWith('0x') ? raw : `0x${raw}`) as Hex,
        owner: signer.address,
        wallet: wallet.maker as Hex,
        signatureType: wallet.signatureType,
      };
    },

    relayWalletCalls: (ctx, session, calls) => relayDepositWalletCalls(client, ctx, session, calls),
  };

  /**
   * Markets on Protocol V2 settle on ExchangeV3 with signing domain version "3" and trade position ids rather
   * than CTF token ids. We sign only V2-exchange orders, so such a market is refused rather than signed with a
   * domain its exchange would reject. The outcome's id says which it is; no request is made for it.
   */
  function refuseProtocolV2(conditionId: string, assetId: string): void {
    if (isProtocolV2PositionId(assetId)) {
      throw new AppError(
        'not_supported',
        `polymarket market ${conditionId} is a Protocol-V2 market (ExchangeV3); orders on it are not supported yet`,
      );
    }
  }

  /** A lost answer to an order POST: the order hash tells whether the exchange took it. */
  async function reconcile(
    ctx: VenueContext,
    auth: PolymarketAuth,
    orderHash: string,
    cause: VenueTransportError | VenueStatusError,
  ): Promise<Order> {
    const lookup = { ...ctx, signal: AbortSignal.timeout(5_000) };
    try {
      return await readOrder(lookup, auth, orderHash);
    } catch {
      throw new AppError(
        'service_unavailable',
        `polymarket did not confirm order ${orderHash}; it may or may not have been placed: look it up by this id before placing it again`,
        { cause, extra: { order_id: orderHash, order_status: 'unknown' } },
      );
    }
  }
}

type OrderBase = Pick<Order, 'id' | 'market_id' | 'outcome' | 'side' | 'note'>;

/**
 * What the answer says when the signed order is not the one asked for: a market (FOK/FAK) BUY spends whole cents
 * (its maker amount carries 2 decimals), so size × price was rounded down and the share count follows from it.
 */
function adjustment(req: OrderRequest, signed: { shares: number; collateral: number }): Pick<Order, 'note'> {
  if (Math.abs(signed.shares - req.size) < 1e-9) return {};
  return {
    note:
      `polymarket ${req.order_type} orders are market orders whose cost carries whole cents: ` +
      `${req.size} at ${req.price} ($${Number((req.size * req.price).toFixed(6))}) was sent as ` +
      `$${signed.collateral.toFixed(2)} for ${signed.shares} shares at most`,
  };
}

/** A FOK order the exchange killed, or a FAK order with nothing to fill: it never rested. */
function killed(base: OrderBase, req: OrderRequest, createdAt: string): Order {
  return {
    ...base,
    price: req.price,
    size: req.size,
    filled: 0,
    status: 'cancelled',
    created_at: createdAt,
    updated_at: null,
  };
}

/** The order as `POST /order` left it. Amounts are human-unit strings: shares are the taking side of a BUY. */
function orderFromPost(
  res: PolymarketOrderResponse,
  base: OrderBase,
  req: OrderRequest,
  createdAt: string,
): Order {
  const shares = toNumber(req.side === 'buy' ? res.takingAmount : res.makingAmount) ?? 0;
  const filled = Math.min(req.size, shares);
  const complete = filled + 1e-9 >= req.size;
  const immediate = req.order_type === 'ioc' || req.order_type === 'fok';
  let status: OrderStatus;
  switch ((res.status ?? '').toLowerCase()) {
    case 'live':
      status = filled > 0 ? 'partially_filled' : 'open';
      break;
    case 'matched':
      status = complete ? 'filled' : immediate ? 'cancelled' : 'partially_filled';
      break;
    case 'delayed':
      status = 'pending';
      break;
    case 'unmatched':
      status = immediate ? 'cancelled' : 'rejected';
      break;
    default:
      throw new AppError('service_unavailable', `polymarket answered the order with status '${res.status}'`);
  }
  return {
    ...base,
    price: req.price,
    size: req.size,
    filled,
    status,
    created_at: createdAt,
    updated_at: null,
  };
}
