// The Limitless simulator's exchange, driven by the official SDK (@limitless-exchange/sdk 1.1.0 OrderClient,
// OrderBuilder, OrderSigner over ethers) as an independent client: its signed GTC and FOK orders are accepted,
// rest, match and cancel; and every verification rule refuses what it must (signature, nonce, expiry, fee rate,
// tick and share step, balance and approvals, post-only, duplicates, owner), matching between two paper accounts
// charges the taker alone, and the status batch finds an order by its clientOrderId.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  HttpClient,
  MarketFetcher,
  OrderBuilder,
  OrderClient,
  OrderSigner,
  OrderType,
  Side,
} from '@limitless-exchange/sdk';
import { Wallet } from 'ethers';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import type { SimAccount } from '../../../sim/shared/control.js';
import { control, getJson, sampleSlugs, signed } from './helpers.js';

let sim: LimitlessSim;
let slug: string;
let venue: { exchange: string };
let tokens: { yes: string; no: string };
const FUND = '1000000000';

before(async () => {
  sim = await startLimitlessSim({ seed: 9, size: 60 });
  ({ market: slug } = await sampleSlugs(sim));
  const market = (await getJson(sim, `/markets/${slug}`)).body as {
    venue: { exchange: string };
    tokens: { yes: string; no: string };
  };
  venue = market.venue;
  tokens = market.tokens;
});
after(() => sim.close());

const hmac = (a: SimAccount) => ({
  tokenId: a.credentials.token_id ?? '',
  secret: a.credentials.secret ?? '',
});
const orderClient = (a: SimAccount) =>
  new OrderClient({
    httpClient: new HttpClient({ baseURL: sim.url, hmacCredentials: hmac(a) }),
    wallet: new Wallet(a.credentials.private_key ?? ''),
  });

async function book(): Promise<{
  bids: { price: number; size: number }[];
  asks: { price: number; size: number }[];
}> {
  return (await new MarketFetcher(new HttpClient({ baseURL: sim.url })).getOrderBook(slug)) as never;
}

async function profileId(a: SimAccount): Promise<number> {
  return ((await getJson(sim, `/profiles/${a.address}`)).body as { id: number }).id;
}

/** POST /orders signed by our test helper, with an order the SDK built and signed (then possibly altered). */
async function post(
  a: SimAccount,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const text = JSON.stringify(body);
  const res = await fetch(`${sim.url}/orders`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signed(a.credentials, 'POST', '/orders', new Date(), text),
    },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function sdkSigned(
  a: SimAccount,
  args: { price: number; size: number; side: Side; nonce?: number; expiration?: string },
  feeRateBps = 300,
) {
  const wallet = new Wallet(a.credentials.private_key ?? '');
  const unsigned = new OrderBuilder(wallet.address, feeRateBps, 0.001).buildOrder({
    tokenId: tokens.yes,
    ...args,
  });
  const signature = await new OrderSigner(wallet).signOrder(unsigned, {
    chainId: 8453,
    contractAddress: venue.exchange,
  });
  return { ...unsigned, signature };
}

const message = (r: { body: Record<string, unknown> }) => String(r.body.message);

test('SDK OrderClient: a GTC order rests, is listed LIVE, and cancels', async () => {
  const a = await sim.createAccount({ fund: FUND });
  const client = orderClient(a);
  const placed = await client.createOrder({
    tokenId: tokens.yes,
    price: 0.011,
    size: 12.5,
    side: Side.BUY,
    orderType: OrderType.GTC,
    marketSlug: slug,
  });
  assert.ok(placed.order.id);
  assert.equal(placed.makerMatches?.length ?? 0, 0);
  assert.equal(placed.execution?.settlementStatus, 'UNMATCHED');
  const path = `/markets/${slug}/user-orders`;
  const live = (await getJson(sim, path, signed(a.credentials, 'GET', path))).body as {
    orders: Array<{ id: string; status: string; side: string }>;
  };
  assert.deepEqual(
    live.orders.map((o) => [o.id, o.status, o.side]),
    [[placed.order.id, 'LIVE', 'BUY']],
  );
  const bids = (await book()).bids;
  assert.ok(
    bids.some((l) => l.price === 0.011 && l.size === 12_500_000),
    'the order is on the public book',
  );
  const cancelled = await client.cancel(placed.order.id);
  assert.match(cancelled.message, /cancel/i);
  const after = (await getJson(sim, path, signed(a.credentials, 'GET', path))).body as { orders: unknown[] };
  assert.deepEqual(after.orders, []);
});

test('SDK OrderClient: a FOK buy spends its USDC against the house book; the taker fee is taken in shares', async () => {
  const a = await sim.createAccount({ fund: FUND });
  const placed = await orderClient(a).createOrder({
    tokenId: tokens.yes,
    makerAmount: 3,
    side: Side.BUY,
    orderType: OrderType.FOK,
    marketSlug: slug,
  });
  assert.ok((placed.makerMatches?.length ?? 0) > 0);
  const totals = placed.execution?.totalsRaw;
  assert.ok(totals && Number(totals.contractsFee) > 0 && totals.usdFee === '0', JSON.stringify(totals));
  assert.ok(Number(totals.usdGross) <= 3_000_000);
  const path = '/portfolio/positions';
  const positions = (await getJson(sim, path, signed(a.credentials, 'GET', path))).body as {
    clob: Array<{ tokensBalance: { yes: string } }>;
  };
  assert.equal(
    Number(positions.clob[0]?.tokensBalance.yes),
    Number(totals.contractsGross) - Number(totals.contractsFee),
  );
});

test('two paper accounts match: the resting seller is the maker (no fee), the buyer pays the CTF fee', async () => {
  const seller = await sim.createAccount({ fund: FUND });
  const buyer = await sim.createAccount({ fund: FUND });
  await orderClient(seller).createOrder({
    tokenId: tokens.yes,
    makerAmount: 5,
    side: Side.BUY,
    orderType: OrderType.FOK,
    marketSlug: slug,
  });
  const levels = await book();
  const bestBid = levels.bids[0]?.price ?? 0;
  const bestAsk = levels.asks[0]?.price ?? 1;
  const price = Math.round(((bestBid + bestAsk) / 2) * 1000) / 1000;
  assert.ok(price > bestBid && price < bestAsk, `no room inside ${bestBid}/${bestAsk}`);
  const ask = await orderClient(seller).createOrder({
    tokenId: tokens.yes,
    price,
    size: 2,
    side: Side.SELL,
    orderType: OrderType.GTC,
    marketSlug: slug,
  });
  const taken = await orderClient(buyer).createOrder({
    tokenId: tokens.yes,
    price,
    size: 2,
    side: Side.BUY,
    orderType: OrderType.FAK,
    marketSlug: slug,
  });
  assert.deepEqual(
    taken.makerMatches?.map((m) => [m.orderId, m.matchedSize]),
    [[ask.order.id, '2000000']],
  );
  // feeRate × min(p, 1 − p) × shares, in shares for a buy: 300 bps.
  const expected = Math.floor((0.03 * Math.min(price, 1 - price) * 2_000_000) / price);
  assert.equal(taken.execution?.totalsRaw.contractsFee, String(expected));
  const status = await fetch(`${sim.url}/orders/status/batch`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signed(
        seller.credentials,
        'POST',
        '/orders/status/batch',
        new Date(),
        JSON.stringify({ items: [{ orderId: ask.order.id }] }),
      ),
    },
    body: JSON.stringify({ items: [{ orderId: ask.order.id }] }),
  });
  interface StatusResult {
    status: string;
    data: {
      order: { order: { status: string } };
      makerMatches: Array<{ role: string }>;
      execution: { totalsRaw: { usdFee: string } };
    };
  }
  const result = ((await status.json()) as { results: StatusResult[] }).results[0];
  assert.equal(result?.status, 'found');
  assert.equal(result?.data.order.order.status, 'MATCHED');
  assert.deepEqual(
    result?.data.makerMatches.map((m) => m.role),
    ['MAKER'],
  );
  assert.equal(result?.data.execution.totalsRaw.usdFee, '0');
});

test('verification: signature, owner, nonce, expiry, fee rate, tick, share step, post-only and duplicates', async () => {
  const a = await sim.createAccount({ fund: FUND });
  const ownerId = await profileId(a);
  const base = { orderType: 'GTC', marketSlug: slug, ownerId };
  const ok = await sdkSigned(a, { price: 0.01, size: 10, side: Side.BUY });
  const cases: Array<[string, unknown, number, RegExp]> = [
    ['altered amount', { ...base, order: { ...ok, makerAmount: ok.makerAmount + 1 } }, 400, /signature/],
    ['someone else', { ...base, ownerId: ownerId + 1, order: ok }, 403, /ownerId/],
    [
      'nonce',
      { ...base, order: await sdkSigned(a, { price: 0.01, size: 10, side: Side.BUY, nonce: 1 }) },
      400,
      /nonce/,
    ],
    [
      'expired',
      { ...base, order: await sdkSigned(a, { price: 0.01, size: 10, side: Side.BUY, expiration: '1000' }) },
      400,
      /expired/,
    ],
    [
      'fee rate',
      { ...base, order: await sdkSigned(a, { price: 0.01, size: 10, side: Side.BUY }, 100) },
      400,
      /feeRateBps/,
    ],
    ['off tick', { ...base, order: { ...ok, price: 0.0105 } }, 400, /tick/],
    ['no book token', { ...base, order: { ...ok, tokenId: '123' } }, 400, /tokenId/],
    ['FAK post-only', { ...base, orderType: 'FAK', postOnly: true, order: ok }, 400, /postOnly/],
    ['bad type', { ...base, orderType: 'GTD', order: ok }, 400, /orderType/],
  ];
  for (const [what, body, status, pattern] of cases) {
    const res = await post(a, body);
    assert.equal(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
    assert.match(message(res), pattern, what);
  }
  const first = await post(a, { ...base, order: ok, clientOrderId: 'c-1' });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  assert.equal((await post(a, { ...base, order: ok })).status, 409, 'the same signed order twice');
  const other = await sdkSigned(a, { price: 0.01, size: 10, side: Side.BUY });
  assert.equal(
    (await post(a, { ...base, order: other, clientOrderId: 'c-1' })).status,
    409,
    'a client id again',
  );
  const asks = (await book()).asks;
  const crossing = await sdkSigned(a, { price: asks[0]?.price ?? 0.99, size: 1, side: Side.BUY });
  const postOnly = await post(a, { ...base, postOnly: true, order: crossing });
  assert.equal(postOnly.status, 400);
  assert.match(message(postOnly), /Post-only/);
  const batch = JSON.stringify({ items: [{ clientOrderId: 'c-1' }, { clientOrderId: 'never' }, {}] });
  const res = await fetch(`${sim.url}/orders/status/batch`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signed(a.credentials, 'POST', '/orders/status/batch', new Date(), batch),
    },
    body: batch,
  });
  const results = ((await res.json()) as { results: Array<{ status: string }> }).results;
  assert.deepEqual(
    results.map((r) => r.status),
    ['found', 'not_found', 'error'],
  );
  const unsigned = await fetch(`${sim.url}/orders`, { method: 'POST', body: '{}' });
  assert.equal(unsigned.status, 401);
});

test('balance and approvals: USDC for a buy, tokens for a sell, both approved towards the exchange', async () => {
  const a = await sim.createAccount({ fund: '1000000' });
  const ownerId = await profileId(a);
  const base = { orderType: 'GTC', marketSlug: slug, ownerId };
  const big = await post(a, { ...base, order: await sdkSigned(a, { price: 0.5, size: 10, side: Side.BUY }) });
  assert.equal(big.status, 400);
  assert.match(message(big), /Insufficient USDC balance/);
  const sell = await post(a, {
    ...base,
    order: await sdkSigned(a, { price: 0.5, size: 1, side: Side.SELL }),
  });
  assert.match(message(sell), /Insufficient token balance/);
  // Resting buys set their USDC aside: a second one beyond the rest is refused.
  const first = await post(a, {
    ...base,
    order: await sdkSigned(a, { price: 0.01, size: 60, side: Side.BUY }),
  });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  const second = await post(a, {
    ...base,
    order: await sdkSigned(a, { price: 0.01, size: 60, side: Side.BUY }),
  });
  assert.match(message(second), /Insufficient USDC balance/);
  await control(sim, 'POST', 'limitless/approvals', { address: a.address, usdc: false });
  const unapproved = await post(a, {
    ...base,
    order: await sdkSigned(a, { price: 0.01, size: 1, side: Side.BUY }),
  });
  assert.match(message(unapproved), /allowance/);
});
