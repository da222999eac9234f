// The Predict.fun simulator's order entry with the official SDK (@predictdotfun/sdk) as the client that builds and
// signs the orders (EOA and Predict account), so the simulator is held to the venue's own format: resting,
// crossing the house book with the taker fee settled into balance and positions, paper orders matching each other
// at the maker's price, fill-or-kill, removal by hash, and every verification rule refused with the venue's slug.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AddressesByChainId, ChainId, OrderBuilder, Side } from '@predictdotfun/sdk';
import { Wallet } from 'ethers';
import { encodeFunctionData, erc20Abi } from 'viem';
import { type PredictfunSim, startPredictfunSim } from '../../../sim/predictfun/index.js';

type Json = Record<string, unknown>;
const WEI = 10n ** 18n;
let sim: PredictfunSim;
before(async () => {
  sim = await startPredictfunSim({ seed: 17, size: 30 });
});
after(async () => {
  await sim.close();
});

async function call(
  method: string,
  path: string,
  jwt?: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { 'x-api-key': sim.apiKey };
  if (jwt) headers.authorization = `Bearer ${jwt}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

interface Trader {
  jwt: string;
  address: string;
  builder: OrderBuilder;
}

async function trader(
  opts: { predict_account?: boolean; balance?: string; allowance?: string } = {},
): Promise<Trader> {
  const account = await sim.createAccount(opts);
  const wallet = new Wallet(account.credentials.private_key as string);
  const predictAccount = account.credentials.predict_account;
  const builder = new OrderBuilder(
    ChainId.BnbMainnet,
    WEI,
    AddressesByChainId[ChainId.BnbMainnet],
    () => String(Math.floor(Math.random() * 2 ** 31)),
    console as never,
    wallet as never,
    predictAccount,
  );
  const message = ((await call('GET', '/v1/auth/message')).body.data as { message: string }).message;
  const signature = predictAccount
    ? await builder.signPredictAccountMessage(message)
    : await wallet.signMessage(message);
  const auth = await call('POST', '/v1/auth', undefined, { signer: account.address, message, signature });
  assert.equal(auth.status, 200, JSON.stringify(auth.body));
  return { jwt: (auth.body.data as { token: string }).token, address: account.address, builder };
}

interface MarketDoc {
  id: number;
  feeRateBps: number;
  isNegRisk: boolean;
  isYieldBearing: boolean;
  decimalPrecision: number;
  tradingStatus: string;
  outcomes: Array<{ indexSet: number; onChainId: string }>;
}

let market: MarketDoc;
async function tradingMarket(): Promise<MarketDoc> {
  if (market) return market;
  const list = (await call('GET', '/v1/markets?first=100')).body.data as MarketDoc[];
  const found = list.find((m) => m.tradingStatus === 'OPEN' && m.decimalPrecision === 2);
  assert.ok(found);
  market = found;
  return found;
}

async function book(id: number): Promise<{ bids: [number, number][]; asks: [number, number][] }> {
  return (await call('GET', `/v1/markets/${id}/orderbook`)).body.data as never;
}

/** The wallet's USDT on the simulated BNB Chain (balanceOf over its JSON-RPC). */
async function usdt(address: string): Promise<bigint> {
  const data = encodeFunctionData({
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address as `0x${string}`],
  });
  const res = await fetch(sim.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: sim.collateralToken, data }, 'latest'],
    }),
  });
  return BigInt(((await res.json()) as { result: string }).result);
}

const wei = (n: number): bigint => BigInt(Math.round(n * 1e6)) * 10n ** 12n;

interface OrderSpec {
  market?: MarketDoc;
  side: 'buy' | 'sell';
  price: number;
  shares: number;
  indexSet?: 1 | 2;
  strategy?: 'LIMIT' | 'MARKET';
  fillOrKill?: boolean;
  nonce?: bigint;
  expiresAt?: Date;
  /** Changes the order before it is signed (a signed order the SDK would not build, e.g. already expired). */
  before?: (order: { expiration: string }) => void;
  /** Changes the signed order after signing. */
  tamper?: (order: Json) => void;
}

async function place(t: Trader, spec: OrderSpec): Promise<{ status: number; body: Json; hash: string }> {
  const m = spec.market ?? (await tradingMarket());
  const side = spec.side === 'buy' ? Side.BUY : Side.SELL;
  const amounts = t.builder.getLimitOrderAmounts({
    side,
    pricePerShareWei: wei(spec.price),
    quantityWei: wei(spec.shares),
  });
  const order = t.builder.buildOrder(spec.strategy ?? 'LIMIT', {
    side,
    tokenId: m.outcomes.find((o) => o.indexSet === (spec.indexSet ?? 1))?.onChainId as string,
    makerAmount: amounts.makerAmount,
    takerAmount: amounts.takerAmount,
    nonce: spec.nonce ?? 0n,
    feeRateBps: m.feeRateBps,
    ...(spec.expiresAt ? { expiresAt: spec.expiresAt } : {}),
  });
  spec.before?.(order);
  const typed = t.builder.buildTypedData(order, { isNegRisk: m.isNegRisk, isYieldBearing: m.isYieldBearing });
  const signed = await t.builder.signTypedDataOrder(typed);
  const hash = t.builder.buildTypedDataHash(typed);
  const payload: Json = { ...signed, hash };
  spec.tamper?.(payload);
  const res = await call('POST', '/v1/orders', t.jwt, {
    data: {
      order: payload,
      pricePerShare: amounts.pricePerShare.toString(),
      strategy: spec.strategy ?? 'LIMIT',
      ...(spec.fillOrKill ? { isFillOrKill: true } : {}),
    },
  });
  return { ...res, hash };
}

async function order(t: Trader, hash: string): Promise<Json> {
  const res = await call('GET', `/v1/orders/${hash}`, t.jwt);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as Json;
}

async function positions(
  t: Trader,
): Promise<Array<{ amount: string; market: { id: number }; outcome: { indexSet: number } }>> {
  return (await call('GET', '/v1/positions', t.jwt)).body.data as never;
}

test('a resting order is listed, shown in the book and removed by hash; removing again is a noop', async () => {
  const t = await trader();
  const m = await tradingMarket();
  const placed = await place(t, { side: 'buy', price: 0.02, shares: 50 });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  assert.equal((placed.body.data as Json).orderHash, placed.hash.toLowerCase());
  assert.equal((await order(t, placed.hash)).status, 'OPEN');
  const open = (await call('GET', `/v1/orders?status=OPEN&marketId=${m.id}`, t.jwt)).body.data as Json[];
  assert.deepEqual(
    open.map((o) => (o.order as Json).hash),
    [placed.hash.toLowerCase()],
  );
  assert.ok((await book(m.id)).bids.some(([p, s]) => p === 0.02 && s >= 50));
  const stranger = await trader();
  const refused = await call('POST', '/v1/orders/remove-by-hash', stranger.jwt, {
    data: { hashes: [placed.hash] },
  });
  assert.deepEqual(refused.body.rejected, [placed.hash]);
  assert.equal((await call('GET', `/v1/orders/${placed.hash}`, stranger.jwt)).status, 401);
  const removed = await call('POST', '/v1/orders/remove-by-hash', t.jwt, { data: { hashes: [placed.hash] } });
  assert.deepEqual([removed.body.removed, removed.body.noop], [[placed.hash], []]);
  assert.equal((await order(t, placed.hash)).status, 'CANCELLED');
  const again = await call('POST', '/v1/orders/remove-by-hash', t.jwt, { data: { hashes: [placed.hash] } });
  assert.deepEqual(again.body.noop, [placed.hash]);
});

test('a crossing buy fills at the ask, pays the taker fee in shares and settles into balance and positions', async () => {
  const t = await trader();
  const m = await tradingMarket();
  const [askPrice, askSize] = (await book(m.id)).asks[0] as [number, number];
  const shares = Math.min(10, Math.floor(askSize));
  assert.ok(shares * askPrice >= 0.9, 'the test market trades above the minimum value');
  const placed = await place(t, { side: 'buy', price: askPrice, shares });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  assert.ok(
    !(await book(m.id)).asks.some(([price, size]) => price === askPrice && size === askSize),
    'taken off the book',
  );
  const doc = await order(t, placed.hash);
  assert.deepEqual([doc.status, doc.amountFilled], ['FILLED', wei(shares).toString()]);
  const matches = (await call('GET', `/v1/orders/matches?signerAddress=${t.address}`)).body.data as Array<{
    taker: { hash: string; fee: { amount: string; type: string }; signer: string };
    priceExecuted: string;
  }>;
  assert.equal(matches.length, 1);
  const taker = matches[0]?.taker;
  assert.equal(taker?.hash, placed.hash.toLowerCase());
  // feeRateBps × min(p, 1 − p) × shares dollars, taken as shares at the price.
  const p = wei(askPrice);
  const feeDollars = (wei(shares) * (p < WEI - p ? p : WEI - p) * BigInt(m.feeRateBps)) / (10_000n * WEI);
  assert.deepEqual(taker?.fee, { amount: ((feeDollars * WEI) / p).toString(), type: 'SHARES' });
  const held = await positions(t);
  assert.deepEqual(
    held.map((h) => [h.market.id, h.outcome.indexSet, h.amount]),
    [[m.id, 1, (wei(shares) - (feeDollars * WEI) / p).toString()]],
  );
  assert.equal(await usdt(t.address), 1_000n * WEI - (wei(shares) * p) / WEI, 'paid shares × price');
});

test('paper orders match each other at the maker price; the maker pays no fee and is paid in USDT', async () => {
  const maker = await trader();
  const taker = await trader();
  // A market whose spread leaves room for a paper ask inside it.
  const list = (await call('GET', '/v1/markets?first=100')).body.data as MarketDoc[];
  let m: MarketDoc | undefined;
  let ask: [number, number] = [0, 0];
  for (const candidate of list) {
    if (candidate.tradingStatus !== 'OPEN' || candidate.decimalPrecision !== 2) continue;
    const b = await book(candidate.id);
    const [a, bid] = [b.asks[0], b.bids[0]];
    if (a && bid && a[0] - bid[0] >= 0.015 && a[1] >= 12 && a[0] >= 0.2 && a[0] <= 0.8) {
      m = candidate;
      ask = a;
      break;
    }
  }
  assert.ok(m, 'a market with a two-tick spread');
  const bought = await place(maker, { market: m, side: 'buy', price: ask[0], shares: 10 });
  assert.equal(bought.status, 200, JSON.stringify(bought.body));
  const price = Number((ask[0] - 0.01).toFixed(2));
  const resting = await place(maker, { market: m, side: 'sell', price, shares: 5 });
  assert.equal(resting.status, 200, JSON.stringify(resting.body));
  assert.deepEqual((await book(m.id)).asks[0], [price, 5], 'the paper ask is the best ask');
  const before = await usdt(maker.address);
  const crossing = await place(taker, { market: m, side: 'buy', price, shares: 5 });
  assert.equal(crossing.status, 200, JSON.stringify(crossing.body));
  assert.equal((await order(maker, resting.hash)).status, 'FILLED');
  assert.equal((await order(taker, crossing.hash)).status, 'FILLED');
  const matches = (await call('GET', `/v1/orders/matches?signerAddress=${maker.address}&isSignerMaker=true`))
    .body.data as Array<{
    makers: Array<{ hash: string; fee: { amount: string }; price: string; signer: string }>;
  }>;
  const leg = matches[0]?.makers[0];
  assert.deepEqual(
    [leg?.hash, leg?.fee.amount, leg?.price, leg?.signer],
    [resting.hash.toLowerCase(), '0', wei(price).toString(), maker.address],
  );
  assert.equal(
    await usdt(maker.address),
    before + (wei(5) * wei(price)) / WEI,
    'paid at its own price, no fee',
  );
  const held = await positions(maker);
  assert.ok(
    held.every((h) => BigInt(h.amount) < wei(10) - wei(5) + 1n),
    'the maker delivered the 5 shares',
  );
});

test('a Predict account trades with the SDK-signed Kernel signature; a fill-or-kill the book cannot fill is refused', async () => {
  const t = await trader({ predict_account: true });
  const m = await tradingMarket();
  const placed = await place(t, { side: 'buy', price: 0.02, shares: 50 });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  assert.equal(((await order(t, placed.hash)).order as Json).maker, t.address);
  const ask = (await book(m.id)).asks[0] as [number, number];
  const fok = await place(t, {
    side: 'buy',
    price: ask[0],
    shares: Math.ceil(ask[1]) + 500,
    strategy: 'MARKET',
    fillOrKill: true,
  });
  assert.deepEqual([fok.status, fok.body.error], [400, 'create_order_fill_or_kill_not_filled']);
});

test('every verification rule refuses with the venue slug and changes nothing', async () => {
  const t = await trader({ balance: (5n * WEI).toString() });
  const poor = await trader({ allowance: '0' });
  const other = new Wallet(Wallet.createRandom().privateKey);
  const cases: Array<[string, Trader, OrderSpec, number, string]> = [
    [
      'tampered amount',
      t,
      {
        side: 'buy',
        price: 0.02,
        shares: 50,
        tamper: (o) => {
          o.takerAmount = wei(51).toString();
        },
      },
      400,
      'create_order_hash_mismatch',
    ],
    [
      'signed by another key',
      t,
      {
        side: 'buy',
        price: 0.02,
        shares: 50,
        tamper: (o) => {
          o.signature = other.signingKey.sign(o.hash as string).serialized;
        },
      },
      400,
      'create_order_invalid_signature',
    ],
    [
      'a stale nonce',
      t,
      { side: 'buy', price: 0.02, shares: 50, nonce: 1n },
      400,
      'create_order_invalid_nonce',
    ],
    [
      'under the minimum value',
      t,
      { side: 'buy', price: 0.02, shares: 10 },
      400,
      'create_order_min_order_value_not_met',
    ],
    ['off the price grid', t, { side: 'buy', price: 0.025, shares: 50 }, 400, 'create_order_invalid_price'],
    [
      'more than the balance',
      t,
      { side: 'buy', price: 0.5, shares: 20 },
      400,
      'create_order_insufficient_collateral',
    ],
    [
      'no allowance',
      poor,
      { side: 'buy', price: 0.02, shares: 50 },
      400,
      'create_order_insufficient_collateral_allowance',
    ],
    [
      'selling shares not held',
      t,
      { side: 'sell', price: 0.5, shares: 5 },
      400,
      'create_order_insufficient_shares',
    ],
  ];
  for (const [label, who, spec, status, slug] of cases) {
    const res = await place(who, spec);
    assert.deepEqual([res.status, res.body.error], [status, slug], `${label}: ${JSON.stringify(res.body)}`);
  }
  const expired = await place(t, {
    side: 'buy',
    price: 0.02,
    shares: 50,
    before: (o) => {
      o.expiration = '1000';
    },
  });
  assert.deepEqual([expired.status, expired.body.error], [400, 'create_order_expired']);
  const open = (await call('GET', '/v1/orders?status=OPEN', t.jwt)).body.data as unknown[];
  assert.deepEqual(open, [], 'no refused order rests');
});
