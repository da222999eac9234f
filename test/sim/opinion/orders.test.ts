// The Opinion simulator's order book over HTTP: the official SDK places, lists and cancels orders on it (its own
// signing, its own request shapes), and each verification rule refuses what breaks it — signature, maker, signer,
// nonce, expiry, tick and price precision, amounts against the price, minimum size, duplicate, balance, allowance —
// while an order on the house book fills with the FeeManager taker fee and one paper order fills another.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  Client,
  OrderBuilder,
  OrderSide,
  OrderType,
  SignatureType,
  Signer,
} from '@opinion-labs/opinion-clob-sdk';
import type { Hex } from 'viem';
import { type OpinionSim, startOpinionSim } from '../../../sim/opinion/index.js';
import { signOpinionOrder } from '../../../src/venues/opinion/signing.js';

let sim: OpinionSim;
type Any = Record<string, unknown>;

before(async () => {
  sim = await startOpinionSim({ seed: 11, size: 30 });
});
after(() => sim.close());

async function api(key: string, method: string, path: string, body?: unknown): Promise<Any> {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: { apikey: key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return (await res.json()) as Any;
}

interface Paper {
  key: string;
  privateKey: Hex;
  safe: Hex;
}

async function paper(options: { allowance?: string } = {}): Promise<Paper> {
  const { credentials } = await sim.createAccount(options);
  const auth = (await api(credentials.api_key, 'GET', '/user/auth')).result as {
    walletUsers: Record<string, Hex>;
  };
  return {
    key: credentials.api_key,
    privateKey: credentials.private_key as Hex,
    safe: auth.walletUsers['56'] as Hex,
  };
}

/** An activated binary market with a YES ask and bid, and its YES token. */
async function market(): Promise<{ id: number; token: string; ask: number; bid: number }> {
  for (let page = 1; page < 5; page++) {
    const list = ((await api(sim.apiKey, 'GET', `/market?page=${page}&limit=20&marketType=0`)).result as Any)
      .list as Any[];
    for (const m of list) {
      if (m.status !== 2) continue;
      const book = (await api(sim.apiKey, 'GET', `/token/orderbook?token_id=${m.yesTokenId}`)).result as {
        asks: Array<{ price: string }>;
        bids: Array<{ price: string }>;
      };
      if (book.asks[0] && book.bids[0])
        return {
          id: m.marketId as number,
          token: m.yesTokenId as string,
          ask: Number(book.asks[0].price),
          bid: Number(book.bids[0].price),
        };
    }
  }
  assert.fail('no activated market with a book');
}

function sdk(account: Paper): Client {
  return new Client({
    host: sim.url,
    apiKey: account.key,
    chainId: 56,
    // Never contacted: placeOrder without checkApproval touches no chain.
    rpcUrl: 'http://127.0.0.1:9',
    privateKey: account.privateKey,
    multiSigAddress: account.safe,
    marketCacheTtl: 0,
  });
}

async function signed(
  account: Paper,
  m: { id: number; token: string },
  over: Partial<Parameters<typeof signOpinionOrder>[1]> = {},
) {
  return signOpinionOrder(account.privateKey, {
    marketId: m.id,
    tokenId: m.token,
    side: 'buy',
    price: 0.01,
    size: 5,
    maker: account.safe,
    exchange: sim.exchangeAddress as Hex,
    quoteToken: '0x55d398326f99059fF775485246999027B3197955',
    decimals: 18,
    timestamp: Math.floor(Date.now() / 1000),
    ...over,
  });
}

test('the official SDK places a resting order, lists it, reads it and cancels it', async () => {
  const account = await paper();
  const m = await market();
  const client = sdk(account);
  const placed = await client.placeOrder({
    marketId: m.id,
    tokenId: m.token,
    side: OrderSide.BUY,
    orderType: OrderType.LIMIT_ORDER,
    price: '0.01',
    makerAmountInBaseToken: '5',
  });
  assert.equal(placed.errno, 0, placed.errmsg);
  const order = placed.result.orderData as Any;
  assert.equal(order.status, 1);
  assert.equal(order.orderShares, '5');
  const open = await client.getMyOrders({ status: '1' });
  assert.ok((open.result.list as Any[]).some((o) => o.orderId === order.orderId));
  const balance = (await client.getMyBalances()).result.balances?.[0] as Any;
  assert.ok(Number(balance.frozenBalance) > 0.05, 'the resting buy sets its cost aside');
  const cancelled = await client.cancelOrder(order.orderId as string);
  assert.equal(cancelled.errno, 0);
  assert.equal(cancelled.result.result, true);
  const detail = await client.getOrderById(order.orderId as string);
  assert.equal((detail.result.orderData as Any).status, 3);
  assert.equal((await client.cancelOrder(order.orderId as string)).result.result, false, 'not open any more');
  const after = (await client.getMyBalances()).result.balances ?? [];
  assert.equal((after[0] as Any).frozenBalance, '0');
});

test('a buy at the ask fills on the house book with the taker fee; a paper sell fills a paper bid, the maker paying none', async () => {
  const buyer = await paper();
  const m = await market();
  const order = await signed(buyer, m, { price: m.ask, size: 5 });
  const res = await api(buyer.key, 'POST', '/order', order.body);
  assert.equal(res.errno, 0, String(res.errmsg));
  const data = (res.result as { orderData: Any }).orderData;
  assert.equal(data.status, 2);
  assert.equal(data.filledShares, '5');
  const trades = ((await api(buyer.key, 'GET', '/trade')).result as { list: Any[] }).list;
  const fill = trades.find((t) => t.orderNo === data.orderId) as Any;
  const p = m.ask;
  const expected = Math.round(5 * p * 0.08 * p * (1 - p) * 1e6) / 1e6;
  assert.ok(Math.abs(Number(fill.feeFormatted) - expected) <= 1e-6, `${fill.feeFormatted} vs ${expected}`);

  // The buyer rests a bid inside the spread; a second account buys at the ask and sells into that bid.
  const inside = Math.round((m.bid + 0.001) * 1000) / 1000;
  const bid = await signed(buyer, m, { price: inside, size: 3 });
  const resting = (await api(buyer.key, 'POST', '/order', bid.body)).result as { orderData: Any };
  assert.equal(resting.orderData.status, 1);
  const seller = await paper();
  assert.equal(
    (await api(seller.key, 'POST', '/order', (await signed(seller, m, { price: m.ask, size: 3 })).body))
      .errno,
    0,
  );
  const sell = await signed(seller, m, { side: 'sell', price: inside, size: 3 });
  const sold = (await api(seller.key, 'POST', '/order', sell.body)).result as { orderData: Any };
  assert.equal(sold.orderData.status, 2);
  const makerOrder = (
    (await api(buyer.key, 'GET', `/order/${resting.orderData.orderId}`)).result as { orderData: Any }
  ).orderData;
  assert.equal(makerOrder.status, 2);
  const makerFill = (makerOrder.trades as Any[])[0] as Any;
  assert.equal(makerFill.feeFormatted, '0');
  assert.equal(makerFill.price, String(inside));
});

test('each rule refuses what breaks it, and nothing is recorded', async () => {
  const account = await paper();
  const other = await paper();
  const m = await market();
  const refuse = async (body: string, pattern: RegExp, key = account.key) => {
    const res = await api(key, 'POST', '/order', body);
    assert.notEqual(res.errno, 0, `accepted: ${body}`);
    assert.match(String(res.errmsg), pattern);
  };
  const good = await signed(account, m);
  const edit = (o: { body: string }, change: Any) => JSON.stringify({ ...JSON.parse(o.body), ...change });
  // Signed by another key, for another Safe, by another signer, tampered after signing.
  const forged = (await signed(other, m, { maker: account.safe, salt: good.struct.salt })).signature;
  await refuse(edit(good, { signature: forged, sign: forged }), /invalid signature/);
  await refuse((await signed(account, m, { maker: other.safe })).body, /maker is not/);
  await refuse(good.body, /signer is not|maker is not/, other.key);
  await refuse(edit(good, { makerAmount: '1' }), /invalid signature/);
  // A signature for another exchange contract.
  await refuse(
    (await signed(account, m, { exchange: `0x${'3'.repeat(40)}` as Hex })).body,
    /invalid signature/,
  );
  await refuse(edit(good, { nonce: '1' }), /invalid nonce|invalid signature/);
  await refuse((await signed(account, m, { expiresAt: Math.floor(Date.now() / 1000) - 5 })).body, /expired/);
  await refuse((await signed(account, m, { price: 0.0105 })).body, /multiple of 0.001/);
  await refuse(edit(good, { price: '0.02' }), /do not match the price/);
  await refuse(edit(good, { tradingMethod: 1 }), /limit orders/);
  // Under one share: signed by the SDK's order builder, as our signer refuses it.
  const builder = new OrderBuilder(sim.exchangeAddress, 56, new Signer(account.privateKey));
  const half = await builder.buildSignedOrder({
    maker: account.safe,
    taker: '0x0000000000000000000000000000000000000000',
    tokenId: m.token,
    makerAmount: 5n * 10n ** 15n,
    takerAmount: 5n * 10n ** 17n,
    side: OrderSide.BUY,
    feeRateBps: '0',
    signatureType: SignatureType.POLY_GNOSIS_SAFE,
    signer: (await signed(account, m)).struct.signer,
    nonce: '0',
    expiration: '0',
  });
  await refuse(
    edit(good, {
      salt: half.order.salt.toString(),
      makerAmount: half.order.makerAmount.toString(),
      takerAmount: half.order.takerAmount.toString(),
      signature: half.signature,
      sign: half.signature,
    }),
    /at least 1 share/,
  );
  await refuse(edit(good, { tokenId: '1' }), /token not found/);
  await refuse((await signed(account, m, { side: 'sell', size: 5 })).body, /position not enough/);
  await refuse((await signed(account, m, { price: 0.5, size: 100_000 })).body, /balance not enough/);
  const stingy = await paper({ allowance: '1000' });
  await refuse((await signed(stingy, m)).body, /allowance not enough/, stingy.key);
  // The order itself is accepted once, never twice.
  assert.equal((await api(account.key, 'POST', '/order', good.body)).errno, 0);
  await refuse(good.body, /already exists/);
  const mine = ((await api(account.key, 'GET', '/order')).result as { list: Any[] }).list;
  assert.equal(mine.length, 1, 'only the accepted order is on record');
});

test('a gtd order (orderExpTime) expires when its time passes', async () => {
  const account = await paper();
  const m = await market();
  const expiresAt = Math.floor(Date.now() / 1000) + 120;
  const res = await api(account.key, 'POST', '/order', (await signed(account, m, { expiresAt })).body);
  const id = ((res.result as { orderData: Any }).orderData as Any).orderId as string;
  const read = async () =>
    ((await api(account.key, 'GET', `/order/${id}`)).result as { orderData: Any }).orderData;
  assert.equal((await read()).status, 1);
  assert.equal((await read()).expiresAt, expiresAt);
  await fetch(`${sim.control}/__sim/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advance_seconds: 180 }),
  });
  assert.equal((await read()).status, 4);
  const balance = ((await api(account.key, 'GET', '/user/balance?chain_id=56')).result as { balances: Any[] })
    .balances[0] as Any;
  assert.equal(balance.frozenBalance, '0');
});

test("one key's orders are not found under another key", async () => {
  const a = await paper();
  const b = await paper();
  const m = await market();
  const res = await api(a.key, 'POST', '/order', (await signed(a, m)).body);
  const id = ((res.result as { orderData: Any }).orderData as Any).orderId as string;
  const seen = await api(b.key, 'GET', `/order/${id}`);
  assert.match(String(seen.errmsg), /order not found/);
});
