// Trading facet: signed orders on Predict.fun's CLOB (POST /v1/orders with the wallet's JWT), their lifecycle
// (GET /v1/orders, GET /v1/orders/{hash}, POST /v1/orders/remove-by-hash), fills from the wallet's settled matches,
// positions (GET /v1/positions) and the balance. The order id is the EIP-712 order hash, computed before sending,
// so an order whose answer was lost is looked up by it rather than sent again. Predict.fun has no balance
// endpoint; the balance is the collateral (BSC USDT) held by the account's address, read with balanceOf over BNB
// Chain JSON-RPC, and `raw` carries that on-chain reading.
import { Type } from 'typebox';
import type { Balance, Fill, Order, Position } from '../../domain/trading.js';
import { AppError } from '../../errors/app-error.js';
import type { TradingFacet, VenueContext, VenueSession } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import { MARKET_ID } from './catalog.js';
import type { PredictfunClient, WalletSession } from './client.js';
import { predictfunErrorSlug } from './errors.js';
import { toPosition } from './parse.js';
import { matchFills, toOrder } from './parse-trading.js';
import {
  envelope,
  PredictfunCreatedOrder,
  PredictfunMarket,
  type PredictfunMarket as PredictfunMarketDoc,
  PredictfunMatch,
  PredictfunOrderDoc,
  PredictfunPosition,
  type PredictfunPosition as PredictfunPositionDoc,
  PredictfunRemoved,
} from './payloads.js';
import { MARKET_ORDER_LIFETIME_SECONDS, NO_EXPIRATION_SECONDS, orderAmounts, signOrder } from './signing.js';

const decodePositions = payloadDecoder(envelope(Type.Array(PredictfunPosition)));
const decodeMarket = payloadDecoder(envelope(PredictfunMarket));
const decodeOrder = payloadDecoder(envelope(PredictfunOrderDoc));
const decodeOrders = payloadDecoder(envelope(Type.Array(PredictfunOrderDoc)));
const decodeCreated = payloadDecoder(envelope(PredictfunCreatedOrder));
const decodeRemoved = payloadDecoder(PredictfunRemoved);
const decodeMatches = payloadDecoder(envelope(Type.Array(PredictfunMatch)));
const PAGE_SIZE = 100;
/** A wallet with more than 5,000 holdings or orders is read in 50 pages at most; the rest would exceed any deadline. */
const MAX_PAGES = 50;
const ORDER_HASH = /^0x[0-9a-fA-F]{64}$/;
/** Markets whose outcome names are kept (they never change), for naming the tokens orders carry. */
const MAX_NAMED_MARKETS = 2_000;

export function predictfunTrading(client: PredictfunClient): TradingFacet {
  const names = new Map<number, Map<string, string>>();

  async function readMarket(ctx: VenueContext, marketId: string): Promise<PredictfunMarketDoc> {
    if (!MARKET_ID.test(marketId)) {
      throw new AppError('market_not_found', `'${marketId}' is not a predictfun market id`);
    }
    try {
      const { data } = await client.public(ctx, decodeMarket, {
        path: `/v1/markets/${marketId}`,
        operation: 'get_market',
      });
      remember(data);
      return data;
    } catch (error) {
      if (error instanceof VenueStatusError && error.status === 404) {
        throw new AppError('market_not_found', `predictfun has no market ${marketId}`, { cause: error });
      }
      throw error;
    }
  }

  function remember(market: PredictfunMarketDoc): void {
    if (names.size >= MAX_NAMED_MARKETS) names.delete(names.keys().next().value as number);
    names.set(market.id, new Map(market.outcomes.map((o) => [o.onChainId, o.name])));
  }

  /** Names the outcome tokens of every market the orders are on (one market read per market not seen yet). */
  async function namer(ctx: VenueContext, docs: readonly { marketId: number }[]) {
    const unknown = [...new Set(docs.map((d) => d.marketId))].filter((id) => !names.has(id));
    for (let i = 0; i < unknown.length; i += 8) {
      await Promise.all(unknown.slice(i, i + 8).map((id) => readMarket(ctx, String(id))));
    }
    return (marketId: number, tokenId: string) => names.get(marketId)?.get(tokenId) ?? tokenId;
  }

  async function readOrder(ctx: VenueContext, wallet: WalletSession, hash: string): Promise<Order> {
    if (!ORDER_HASH.test(hash)) throw new AppError('order_not_found', `predictfun has no order '${hash}'`);
    let doc: PredictfunOrderDoc;
    try {
      doc = (
        await client.wallet(ctx, wallet, decodeOrder, { path: `/v1/orders/${hash}`, operation: 'get_order' })
      ).data;
    } catch (error) {
      if (error instanceof VenueStatusError && error.status === 404) {
        throw new AppError('order_not_found', `predictfun has no order ${hash}`, { cause: error });
      }
      throw error;
    }
    return toOrder(doc, await namer(ctx, [doc]));
  }

  async function listOrders(
    ctx: VenueContext,
    wallet: WalletSession,
    status: 'OPEN' | 'FILLED',
    marketId: string | null,
  ): Promise<Order[]> {
    if (marketId !== null && !MARKET_ID.test(marketId)) return [];
    const docs: PredictfunOrderDoc[] = [];
    let after: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res: { data: PredictfunOrderDoc[]; cursor?: string | null } = await client.wallet(
        ctx,
        wallet,
        decodeOrders,
        {
          path: '/v1/orders',
          query: { status, first: PAGE_SIZE, after: after ?? undefined, marketId: marketId ?? undefined },
          operation: status === 'OPEN' ? 'list_open_orders' : 'list_filled_orders',
        },
      );
      docs.push(...res.data);
      after = res.data.length > 0 ? (res.cursor ?? null) : null;
      if (after === null) break;
    }
    const name = await namer(ctx, docs);
    return docs.map((d) => toOrder(d, name));
  }

  async function walletFills(
    ctx: VenueContext,
    wallet: WalletSession,
    marketId: string | null,
    limit: number,
  ): Promise<Fill[]> {
    if (marketId !== null && !MARKET_ID.test(marketId)) return [];
    const address = await client.walletAddress(ctx, wallet);
    const fills: Fill[] = [];
    let after: string | null = null;
    for (let page = 0; page < MAX_PAGES && fills.length < limit; page++) {
      const res: { data: PredictfunMatch[]; cursor?: string | null } = await client.public(
        ctx,
        decodeMatches,
        {
          path: '/v1/orders/matches',
          query: {
            signerAddress: address,
            marketId: marketId ?? undefined,
            first: PAGE_SIZE,
            after: after ?? undefined,
          },
          operation: 'list_fills',
        },
      );
      for (const m of res.data) fills.push(...matchFills(m, address));
      after = res.data.length > 0 ? (res.cursor ?? null) : null;
      if (after === null) break;
    }
    return fills.sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, limit);
  }

  return {
    async createOrder(ctx, session, req, hooks) {
      const wallet = await client.signIn(ctx, session);
      if (!wallet.creds.privateKey) {
        // A JWT alone cannot sign an order; one the venue refuses is said first (403), then what is missing.
        await client.walletAddress(ctx, wallet);
      }
      const market = await readMarket(ctx, req.market_id);
      const outcome = outcomeOf(market, req.outcome);
      if (market.feeRateBps === null || market.feeRateBps === undefined) {
        throw new AppError('service_unavailable', `predictfun sent no fee rate for market ${req.market_id}`);
      }
      const amounts = orderAmounts(req.side, req.price, req.size);
      const nowSeconds = Math.floor(Date.now() / 1000);
      const market_order = req.order_type === 'ioc' || req.order_type === 'fok';
      const expiration =
        req.order_type === 'gtd'
          ? (req.expiration as number)
          : market_order
            ? nowSeconds + MARKET_ORDER_LIFETIME_SECONDS
            : NO_EXPIRATION_SECONDS;
      const signed = await signOrder(wallet.creds, client.chainId, {
        tokenId: outcome.onChainId,
        side: req.side,
        amounts,
        feeRateBps: market.feeRateBps,
        expiration,
        isNegRisk: market.isNegRisk ?? false,
        isYieldBearing: market.isYieldBearing ?? false,
      });
      const body = JSON.stringify({
        data: {
          order: signed,
          pricePerShare: amounts.pricePerShareWei.toString(),
          strategy: market_order ? 'MARKET' : 'LIMIT',
          ...(req.order_type === 'fok' ? { isFillOrKill: true } : {}),
        },
      });
      const base = {
        id: signed.hash.toLowerCase(),
        market_id: req.market_id,
        outcome: outcome.name,
        side: req.side,
        price: req.price,
        size: req.size,
        created_at: new Date().toISOString(),
        updated_at: null,
      };
      await hooks?.beforeSend({ orderId: base.id });
      try {
        await client.wallet(ctx, wallet, decodeCreated, {
          method: 'POST',
          path: '/v1/orders',
          body,
          idempotent: false,
          operation: 'create_order',
        });
      } catch (error) {
        // A fill-or-kill order the book could not fill in full never rested: it is an order, cancelled unfilled.
        if (
          error instanceof VenueStatusError &&
          predictfunErrorSlug(error) === 'create_order_fill_or_kill_not_filled'
        ) {
          return { ...base, filled: 0, status: 'cancelled' };
        }
        throw error;
      }
      // The answer names the order only (hash and id): whether it filled at once or rests is read back.
      try {
        return await readOrder(ctx, wallet, signed.hash);
      } catch {
        return { ...base, filled: 0, status: 'pending' };
      }
    },

    async getOrder(ctx, session, orderId) {
      return readOrder(ctx, await client.signIn(ctx, session), orderId.toLowerCase());
    },

    async lookupOrder(ctx, session, ref) {
      // The order hash is computed before sending, so every order we may have sent has its id.
      if (ref.orderId === null) return null;
      try {
        return await readOrder(ctx, await client.signIn(ctx, session), ref.orderId);
      } catch (error) {
        if (error instanceof AppError && error.code === 'order_not_found') return null;
        throw error;
      }
    },

    async listOpenOrders(ctx, session, marketId) {
      return listOrders(ctx, await client.signIn(ctx, session), 'OPEN', marketId);
    },

    async cancelOrder(ctx, session, orderId) {
      const wallet = await client.signIn(ctx, session);
      const hash = orderId.toLowerCase();
      if (!ORDER_HASH.test(hash))
        throw new AppError('order_not_found', `predictfun has no order '${orderId}'`);
      const res = await client.wallet(ctx, wallet, decodeRemoved, {
        method: 'POST',
        path: '/v1/orders/remove-by-hash',
        body: JSON.stringify({ data: { hashes: [hash] } }),
        // Removing twice is harmless (the second is a noop), so a lost answer may be resent.
        idempotent: true,
        operation: 'cancel_order',
      });
      const is = (list: string[]) => list.some((h) => h.toLowerCase() === hash);
      if (is(res.rejected))
        throw new AppError('order_not_found', `predictfun has no open order ${hash} of this wallet`);
      const order = await readOrder(ctx, wallet, hash);
      if (is(res.removed)) return { ...order, status: 'cancelled', updated_at: new Date().toISOString() };
      // A noop: nothing was resting (filled, expired or removed before).
      throw new AppError('conflict', `predictfun order ${hash} is not open (it is ${order.status})`);
    },

    async fetchOrderHistory(ctx, session, marketId) {
      // The venue lists orders by status OPEN or FILLED only; orders cancelled or expired after a partial fill are
      // found through the fills they left. Orders cancelled or expired without any fill are not reported.
      const wallet = await client.signIn(ctx, session);
      const [open, filled, fills] = await Promise.all([
        listOrders(ctx, wallet, 'OPEN', marketId),
        listOrders(ctx, wallet, 'FILLED', marketId),
        walletFills(ctx, wallet, marketId, 1_000),
      ]);
      const byId = new Map([...open, ...filled].map((o) => [o.id, o]));
      const traded = [...new Set(fills.map((f) => f.order_id))].filter((id) => !byId.has(id)).slice(0, 200);
      for (let i = 0; i < traded.length; i += 8) {
        const batch = await Promise.all(traded.slice(i, i + 8).map((id) => readOrder(ctx, wallet, id)));
        for (const o of batch) byId.set(o.id, o);
      }
      return [...byId.values()].sort((a, b) => b.created_at.localeCompare(a.created_at));
    },

    async fetchFills(ctx, session, marketId, limit) {
      return walletFills(ctx, await client.signIn(ctx, session), marketId, limit);
    },

    async fetchPositions(
      ctx: VenueContext,
      session: VenueSession,
      marketId: string | null,
    ): Promise<Position[]> {
      const wallet = await client.signIn(ctx, session);
      if (marketId !== null && !MARKET_ID.test(marketId)) return [];
      const positions: Position[] = [];
      let after: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const res: { data: PredictfunPositionDoc[]; cursor?: string | null } = await client.wallet(
          ctx,
          wallet,
          decodePositions,
          {
            path: '/v1/positions',
            query: { first: PAGE_SIZE, after: after ?? undefined, marketId: marketId ?? undefined },
            operation: 'positions',
          },
        );
        positions.push(...res.data.map(toPosition));
        after = res.data.length > 0 ? (res.cursor ?? null) : null;
        if (after === null) break;
      }
      return positions.filter((p) => p.size > 0);
    },

    async fetchBalance(ctx: VenueContext, session: VenueSession): Promise<Balance> {
      const wallet = await client.signIn(ctx, session);
      const address = await client.walletAddress(ctx, wallet);
      const balance = await client.collateralBalance(ctx, address);
      return {
        raw: {
          balance: balance.toString(),
          decimals: 18,
          token: 'USDT',
          token_address: client.options.collateralToken,
          chain_id: client.chainId,
          address,
        },
      };
    },
  };
}

/** The outcome an order names: the venue's name (any case), or yes/no for indexSet 1/2 of a binary market. */
function outcomeOf(market: PredictfunMarketDoc, asked: string): PredictfunMarketDoc['outcomes'][number] {
  const wanted = asked.trim().toLowerCase();
  const byName = market.outcomes.find((o) => o.name.toLowerCase() === wanted);
  const alias =
    market.outcomes.length !== 2 ? undefined : wanted === 'yes' ? 1 : wanted === 'no' ? 2 : undefined;
  const found = byName ?? market.outcomes.find((o) => o.indexSet === alias);
  if (!found) {
    const valid = market.outcomes.map((o) => o.name).join(', ');
    throw new AppError('validation_error', `market ${market.id} has no outcome '${asked}'`, {
      validationErrors: [`outcome must be one of: ${valid}`],
    });
  }
  return found;
}
