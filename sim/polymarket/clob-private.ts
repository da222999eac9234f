// Authenticated CLOB REST: API keys (L1), orders, cancels, open orders, fills and balance-allowance (L2). Every
// L2 failure is the same 401 the exchange sends; order refusals are 400 {"error"} with the exchange's own text.

import { setOwn } from '../shared/own-key.js';
import type { ApiKey } from './accounts.js';
import { verifyL1, verifyL2 } from './auth.js';
import type { PmContext } from './context.js';
import { MAX_UINT256, V2_SPENDERS } from './contracts.js';
import { CLOB_ERRORS, tooManyOrdersError } from './errors.js';
import { type Ctx, cursorPage, decodeCursor, fail, parseBody, type Route, send } from './http-util.js';
import { admit, intakeOrder } from './intake.js';
import { openOrderJson, type PmOrder } from './order.js';
import { type TradeRecord, tradeJson } from './trade.js';
import { fmtUnits } from './units.js';

const MAX_BATCH_ORDERS = 15;
const MAX_CANCEL_IDS = 3000;
const DATA_PAGE = 500;
const ORDER_ID = /^0x[0-9a-fA-F]{64}$/;
const CONDITION_ID = /^0x[0-9a-fA-F]{64}$/;

export function privateClobRoutes(pm: PmContext): Route[] {
  const { cat, exchange, accounts, wallets } = pm;

  /** Open orders of every wallet the key's address signs for (its EOA, proxy, Safe, deposit wallet). */
  const openOf = (key: ApiKey): PmOrder[] =>
    [...wallets.controlled(key.address)].flatMap((a) => [...accounts.peek(a).open]);

  const l2 = (ctx: Ctx): ApiKey | null => {
    const key = verifyL2(ctx.req.headers, ctx.method, ctx.path, ctx.body, accounts, pm.authWindowSeconds);
    if (!key) fail(ctx, 401, CLOB_ERRORS.unauthorized);
    return key;
  };

  const l1 = async (ctx: Ctx) => {
    const id = await verifyL1(ctx.req.headers, pm.authWindowSeconds);
    if (!id) {
      fail(ctx, 401, CLOB_ERRORS.invalidL1);
      return null;
    }
    // Managed onboarding: a wallet's first L1 authentication is when it receives its paper collateral — only an
    // account that may still trade as an EOA; a newer one is funded in its deposit wallet when that is created.
    const wallet = accounts.wallet(id.address);
    if (!wallet.onboarded) {
      wallet.onboarded = true;
      if (!wallets.postCutover(id.address)) wallet.collateral += pm.newWalletBalance;
    }
    return id;
  };

  const creds = (k: ApiKey) => ({ apiKey: k.key, secret: k.secret, passphrase: k.passphrase });

  /** Places one order body; returns the response body and status. */
  const place = async (
    key: ApiKey,
    body: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const intake = await intakeOrder(body, key, {
      cat,
      exchange,
      wallets,
      nowMs: pm.clock.now(),
      chain: pm.chain,
    });
    if (!intake.ok) return { status: intake.status, body: { error: intake.error } };
    // No await between admission and submission: concurrent posts see each other's reservations.
    const refused = admit(intake.order, { cat, exchange, accounts }, intake.chainFunds);
    if (refused) return { status: 400, body: { error: refused } };
    const result = exchange.submit(intake.order, intake.postOnly);
    if (!result.ok) return { status: 400, body: { error: result.error } };
    const o = intake.order;
    const t = result.trade;
    // A match on a market listed on the sandbox chain is answered once its settlement transaction is mined, so the
    // hash in the answer is the real one and the positions are on chain when the client hears of the fill.
    await t?.settled;
    // A match whose settlement failed was taken back out of the ledger: the answer is the order as it stands,
    // resting (`live`) or, consumed by the failed match, not matched at all; the failed transaction is named.
    const filled = t !== null && t.chainStatus !== 'FAILED';
    const [making, taking] = !filled ? ['', ''] : o.side === 'BUY' ? [t.usdc, t.size] : [t.size, t.usdc];
    return {
      status: 200,
      body: {
        errorMsg: '',
        orderID: o.id,
        takingAmount: typeof taking === 'number' ? fmtUnits(taking) : taking,
        makingAmount: typeof making === 'number' ? fmtUnits(making) : making,
        status: filled ? 'matched' : o.status === 'LIVE' ? 'live' : t ? 'unmatched' : 'live',
        transactionsHashes: t?.txHash ? [t.txHash] : [],
        tradeIDs: t ? [t.id] : [],
        success: true,
      },
    };
  };

  const owned = (key: ApiKey, id: string): PmOrder | undefined => {
    const o = exchange.order(id);
    return o && wallets.controlled(key.address).has(o.account) ? o : undefined;
  };

  const cancelMany = (ctx: Ctx, key: ApiKey, ids: string[]) => {
    const canceled: string[] = [];
    const notCanceled: Record<string, string> = {};
    for (const id of new Set(ids)) {
      const o = owned(key, id);
      if (o && exchange.cancel(o)) canceled.push(o.id);
      else setOwn(notCanceled, id, CLOB_ERRORS.cannotCancel);
    }
    send(ctx, 200, { canceled, not_canceled: notCanceled });
  };

  const json = (ctx: Ctx): { ok: true; value: unknown } | { ok: false } => {
    try {
      return { ok: true, value: parseBody(ctx) };
    } catch {
      fail(ctx, 400, CLOB_ERRORS.invalidOrderPayload);
      return { ok: false };
    }
  };

  const myTrades = (key: ApiKey): Array<{ trade: TradeRecord; taker: boolean }> => {
    const mine = wallets.controlled(key.address);
    const fills = [...mine]
      .flatMap((a) => accounts.peek(a).fills)
      .sort((a, b) => a.timestampMs - b.timestampMs);
    const seen = new Set<string>();
    const out: Array<{ trade: TradeRecord; taker: boolean }> = [];
    for (let i = fills.length - 1; i >= 0; i--) {
      const fill = fills[i];
      if (!fill || seen.has(fill.tradeId)) continue;
      seen.add(fill.tradeId);
      const trade = exchange.trade(fill.tradeId);
      if (trade) out.push({ trade, taker: mine.has(trade.taker.account) });
    }
    return out;
  };

  /**
   * `/balance-allowance` for the wallet the signature type trades through (the funder, not the EOA, for types
   * 1-3). With the sandbox chain the answer is the chain's, as the real CLOB reads it: the funder's on-chain
   * collateral, or ERC-1155 balance of a token listed there, and each V2 spender's allowance (operator approval for
   * tokens). Without a chain, and for a token of a market settled in the ledger only, the ledger's.
   */
  const balance = async (ctx: Ctx) => {
    const key = l2(ctx);
    if (!key) return;
    const assetType = ctx.query.get('asset_type');
    const signatureType = ctx.query.get('signature_type');
    if (assetType !== 'COLLATERAL' && assetType !== 'CONDITIONAL')
      return fail(ctx, 400, CLOB_ERRORS.invalidAssetType);
    if (signatureType !== null && !/^[0-3]$/.test(signatureType))
      return fail(ctx, 400, CLOB_ERRORS.invalidSignatureType);
    const tokenId = assetType === 'CONDITIONAL' ? ctx.query.get('token_id') : null;
    if (assetType === 'CONDITIONAL' && (!tokenId || !/^\d{1,78}$/.test(tokenId)))
      return fail(ctx, 400, CLOB_ERRORS.invalidTokenId);
    const address = wallets.walletFor(key.address, Number(signatureType ?? '0'));
    const market = tokenId === null ? undefined : cat.byToken(tokenId)?.market;
    if (pm.chain && (market === undefined || cat.isOnChain(market))) {
      // A signature type whose wallet does not exist has nothing on chain either.
      const read = address
        ? await pm.chain.balanceAllowances(address, V2_SPENDERS, tokenId)
        : { balance: 0n, allowances: V2_SPENDERS.map(() => 0n) };
      return send(ctx, 200, {
        balance: read.balance.toString(),
        allowances: Object.fromEntries(V2_SPENDERS.map((s, i) => [s, String(read.allowances[i] ?? 0n)])),
      });
    }
    const wallet = accounts.peek(address ?? key.address);
    const units = !address
      ? 0
      : tokenId === null
        ? wallet.collateral
        : (wallet.positions.get(tokenId)?.size ?? 0);
    const allowance = wallet.approved ? MAX_UINT256 : '0';
    send(ctx, 200, {
      balance: String(Math.max(0, units)),
      allowances: Object.fromEntries(V2_SPENDERS.map((s) => [s, allowance])),
    });
  };

  return [
    {
      method: 'POST',
      path: '/auth/api-key',
      handler: async (ctx) => {
        const id = await l1(ctx);
        if (!id) return;
        const key = accounts.createKey(id.address, id.nonce);
        if (!key) return fail(ctx, 400, CLOB_ERRORS.couldNotCreateKey);
        send(ctx, 200, creds(key));
      },
    },
    {
      method: 'GET',
      path: '/auth/derive-api-key',
      handler: async (ctx) => {
        const id = await l1(ctx);
        if (!id) return;
        const key = accounts.deriveKey(id.address, id.nonce);
        if (!key) return fail(ctx, 400, CLOB_ERRORS.couldNotDeriveKey);
        send(ctx, 200, creds(key));
      },
    },
    {
      method: 'GET',
      path: '/auth/api-keys',
      handler: (ctx) => {
        const key = l2(ctx);
        if (key) send(ctx, 200, { apiKeys: accounts.keysOf(key.address).map((k) => k.key) });
      },
    },
    {
      method: 'DELETE',
      path: '/auth/api-key',
      handler: (ctx) => {
        const key = l2(ctx);
        if (!key) return;
        accounts.deleteKey(key.key);
        send(ctx, 200, 'OK');
      },
    },
    {
      method: 'GET',
      path: '/auth/ban-status/closed-only',
      handler: (ctx) => {
        if (l2(ctx)) send(ctx, 200, { closed_only: false });
      },
    },
    {
      method: 'POST',
      path: '/order',
      handler: async (ctx) => {
        const key = l2(ctx);
        if (!key) return;
        const body = json(ctx);
        if (!body.ok) return;
        const answer = await place(key, body.value);
        send(ctx, answer.status, answer.body);
      },
    },
    {
      method: 'POST',
      path: '/orders',
      handler: async (ctx) => {
        const key = l2(ctx);
        if (!key) return;
        const body = json(ctx);
        if (!body.ok) return;
        if (!Array.isArray(body.value) || body.value.length === 0)
          return fail(ctx, 400, CLOB_ERRORS.invalidOrderPayload);
        if (body.value.length > MAX_BATCH_ORDERS) {
          return fail(ctx, 400, tooManyOrdersError(body.value.length, MAX_BATCH_ORDERS));
        }
        const answers: Array<Record<string, unknown>> = [];
        for (const item of body.value) {
          const answer = await place(key, item);
          answers.push(
            answer.status === 200
              ? answer.body
              : {
                  errorMsg: String(answer.body.error),
                  orderID: '',
                  takingAmount: '',
                  makingAmount: '',
                  status: '',
                  transactionsHashes: [],
                  tradeIDs: [],
                  success: false,
                },
          );
        }
        send(ctx, 200, answers);
      },
    },
    {
      method: 'DELETE',
      path: '/order',
      handler: (ctx) => {
        const key = l2(ctx);
        if (!key) return;
        const body = json(ctx);
        if (!body.ok) return;
        const id = (body.value as { orderID?: unknown } | undefined)?.orderID;
        if (typeof body.value !== 'object' || body.value === null)
          return fail(ctx, 400, CLOB_ERRORS.invalidOrderPayload);
        if (typeof id !== 'string' || !ORDER_ID.test(id)) return fail(ctx, 400, CLOB_ERRORS.invalidOrderId);
        cancelMany(ctx, key, [id]);
      },
    },
    {
      method: 'DELETE',
      path: '/orders',
      handler: (ctx) => {
        const key = l2(ctx);
        if (!key) return;
        const body = json(ctx);
        if (!body.ok) return;
        if (!Array.isArray(body.value)) return fail(ctx, 400, CLOB_ERRORS.invalidOrderPayload);
        if (body.value.length > MAX_CANCEL_IDS) {
          return fail(ctx, 400, `Too many orders in payload, max allowed: ${MAX_CANCEL_IDS}`);
        }
        if (body.value.some((id) => typeof id !== 'string' || !ORDER_ID.test(id))) {
          return fail(ctx, 400, CLOB_ERRORS.invalidOrderId);
        }
        cancelMany(ctx, key, body.value as string[]);
      },
    },
    {
      method: 'DELETE',
      path: '/cancel-all',
      handler: (ctx) => {
        const key = l2(ctx);
        if (key)
          cancelMany(
            ctx,
            key,
            openOf(key).map((o) => o.id),
          );
      },
    },
    {
      method: 'DELETE',
      path: '/cancel-market-orders',
      handler: (ctx) => {
        const key = l2(ctx);
        if (!key) return;
        const body = json(ctx);
        if (!body.ok) return;
        const filter = (body.value ?? {}) as { market?: unknown; asset_id?: unknown };
        if (
          typeof filter !== 'object' ||
          (filter.market !== undefined &&
            (typeof filter.market !== 'string' || !CONDITION_ID.test(filter.market))) ||
          (filter.asset_id !== undefined &&
            (typeof filter.asset_id !== 'string' || !/^\d+$/.test(filter.asset_id)))
        ) {
          return fail(ctx, 400, CLOB_ERRORS.invalidOrderPayload);
        }
        const ids = openOf(key)
          .filter(
            (o) =>
              filter.market === undefined ||
              cat.conditionId(o.market) === String(filter.market).toLowerCase(),
          )
          .filter(
            (o) => filter.asset_id === undefined || cat.tokenId(o.market, o.outcome) === filter.asset_id,
          )
          .map((o) => o.id);
        cancelMany(ctx, key, ids);
      },
    },
    {
      method: 'GET',
      path: '/data/orders',
      handler: (ctx) => {
        const key = l2(ctx);
        if (!key) return;
        const { id, market, asset_id: asset } = Object.fromEntries(ctx.query);
        const offset = decodeCursor(ctx.query.get('next_cursor'));
        if (
          offset === null ||
          (id !== undefined && !ORDER_ID.test(id)) ||
          (market !== undefined && !CONDITION_ID.test(market)) ||
          (asset !== undefined && !/^\d{1,78}$/.test(asset))
        ) {
          return fail(ctx, 400, CLOB_ERRORS.invalidOrderParams);
        }
        const orders = openOf(key)
          .filter((o) => id === undefined || o.id === id.toLowerCase())
          .filter((o) => market === undefined || cat.conditionId(o.market) === market.toLowerCase())
          .filter((o) => asset === undefined || cat.tokenId(o.market, o.outcome) === asset)
          .sort((a, b) => a.seq - b.seq);
        const page = cursorPage(orders, offset, DATA_PAGE);
        send(ctx, 200, { ...page, data: page.data.map((o) => openOrderJson(o, cat)) });
      },
    },
    {
      method: 'GET',
      path: /^\/data\/order\/([^/]+)$/,
      handler: (ctx) => {
        const key = l2(ctx);
        if (!key) return;
        const id = ctx.params[0] ?? '';
        if (!ORDER_ID.test(id)) return fail(ctx, 400, CLOB_ERRORS.invalidOrderId);
        const o = owned(key, id);
        // The exchange answers 200 with an empty (null) body for an order it will not show this key.
        send(ctx, 200, o ? openOrderJson(o, cat) : null);
      },
    },
    {
      method: 'GET',
      path: '/data/trades',
      handler: (ctx) => {
        const key = l2(ctx);
        if (!key) return;
        const q = Object.fromEntries(ctx.query);
        const offset = decodeCursor(ctx.query.get('next_cursor'));
        const time = (v: string | undefined) => v === undefined || /^\d{1,12}$/.test(v);
        if (
          offset === null ||
          (q.market !== undefined && !CONDITION_ID.test(q.market)) ||
          (q.asset_id !== undefined && !/^\d{1,78}$/.test(q.asset_id)) ||
          !time(q.before) ||
          !time(q.after)
        ) {
          return fail(ctx, 400, CLOB_ERRORS.invalidTradeParams);
        }
        const rows = myTrades(key)
          .filter(({ trade }) => q.id === undefined || trade.id === q.id)
          .filter(
            ({ trade }) =>
              q.market === undefined || cat.conditionId(trade.market) === q.market?.toLowerCase(),
          )
          .filter(({ trade }) => {
            if (q.asset_id === undefined) return true;
            const assets = [trade.taker, ...trade.makers.map((m) => m.order)].map((o) =>
              cat.tokenId(o.market, o.outcome),
            );
            return assets.includes(q.asset_id);
          })
          .filter(({ trade }) => q.before === undefined || trade.ms / 1000 < Number(q.before))
          .filter(({ trade }) => q.after === undefined || trade.ms / 1000 > Number(q.after))
          .map(({ trade, taker }) => {
            const mine = taker
              ? trade.taker
              : (trade.makers.find((m) => wallets.controlled(key.address).has(m.order.account))?.order ??
                trade.taker);
            return tradeJson(trade, cat, {
              apiKey: mine.ownerKey,
              makerAddress: mine.makerAddress,
              side: taker ? 'TAKER' : 'MAKER',
            });
          });
        send(ctx, 200, cursorPage(rows, offset, DATA_PAGE));
      },
    },
    { method: 'GET', path: '/balance-allowance', handler: balance },
    { method: 'GET', path: '/balance-allowance/update', handler: balance },
  ];
}
