// Order placement and matching over the wire: fills at the resting price with balances, positions and fills on
// both sides, price-time priority, FOK/FAK, GTD expiry on the simulator clock, mint and merge across YES/NO,
// refusals with the exchange's texts, duplicates and cancels.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { loadFixture } from '../../support/fixtures.js';
import {
  activeMarkets,
  assertCovers,
  balance,
  best,
  book,
  clob,
  connect,
  control,
  type MarketRef,
  post,
  signedOrder,
  type Trader,
  trader,
  waitFor,
} from './support.js';

type Json = Record<string, unknown>;
let sim: PolymarketSim;
let pool: MarketRef[];

before(async () => {
  sim = await startPolymarketSim({ seed: 17, size: 400 });
  pool = (await activeMarkets(sim, false)).filter((m) => m.tick === 0.01 && m.market.taker_base_fee === 0);
});
after(() => sim.close());

/** A market no other test touched, with its YES best bid/ask. */
async function take(): Promise<MarketRef & { bid: number; ask: number }> {
  const m = pool.shift();
  assert.ok(m, 'enough fresh markets');
  const { bid, ask } = best(await book(sim, m.yes));
  return { ...m, bid, ask };
}

const cents = (n: number) => Math.round(n * 100) / 100;
const micro = (n: number) => Math.round(n * 1e6);

async function openOrders(t: Trader): Promise<Json[]> {
  return ((await clob(sim, t, 'GET', '/data/orders')).json as { data: Json[] }).data;
}

async function order(t: Trader, id: string): Promise<Json | null> {
  return (await clob(sim, t, 'GET', `/data/order/${id}`)).json as Json | null;
}

async function trades(t: Trader): Promise<Json[]> {
  return ((await clob(sim, t, 'GET', '/data/trades')).json as { data: Json[] }).data;
}

test('a crossing BUY fills at the resting price and moves balances, positions and fills on both sides', async () => {
  const m = await take();
  const seller = await trader(sim);
  const buyer = await trader(sim);
  const bought = await post(sim, seller, { tokenId: m.yes, side: 'BUY', price: m.ask, size: 10 });
  assert.equal(bought.body.status, 'matched');
  const restPrice = cents(m.ask - 0.01);
  const rest = await post(sim, seller, { tokenId: m.yes, side: 'SELL', price: restPrice, size: 10 });
  assert.equal(rest.body.status, 'live');
  assert.equal(rest.body.makingAmount, '');
  const sellerCash = await balance(sim, seller);
  const buyerCash = await balance(sim, buyer);
  const res = await post(sim, buyer, { tokenId: m.yes, side: 'BUY', price: m.ask, size: 10 });
  assert.equal(res.status, 200);
  assertCovers('POST /order', loadFixture('polymarket', 'http_post_order_v1.json'), res.body);
  assert.equal(res.body.status, 'matched');
  assert.equal(res.body.takingAmount, '10');
  assert.equal(Number(res.body.makingAmount), cents(10 * restPrice));
  assert.equal(buyerCash - (await balance(sim, buyer)), micro(10 * restPrice));
  assert.equal((await balance(sim, seller)) - sellerCash, micro(10 * restPrice));
  assert.equal(await balance(sim, buyer, 'CONDITIONAL', m.yes), 10_000_000);
  assert.equal(await balance(sim, seller, 'CONDITIONAL', m.yes), 0);
  assert.equal((await order(seller, rest.id))?.status, 'MATCHED');
  const makerView = (await trades(seller)).find((t) => t.taker_order_id === res.id);
  assert.ok(makerView);
  assert.equal(makerView.trader_side, 'MAKER');
  const makerOrder = (makerView.maker_orders as Json[]).find((o) => o.order_id === rest.id);
  assert.deepEqual([makerOrder?.matched_amount, makerOrder?.price], ['10', String(restPrice)]);
  const takerView = (await trades(buyer)).find((t) => t.taker_order_id === res.id);
  assert.equal(takerView?.trader_side, 'TAKER');
  assert.equal(takerView?.price, String(restPrice));
  const positions = (await (
    await fetch(`${sim.urls.data}/positions?user=${buyer.address}`)
  ).json()) as Json[];
  const pos = positions.find((p) => p.asset === m.yes);
  assert.equal(pos?.size, 10);
  assert.equal(pos?.avgPrice, restPrice);
});

test('price-time priority: earlier order first at a price, better price before earlier orders', async () => {
  const m = await take();
  const [a, b, c, d] = await Promise.all([trader(sim), trader(sim), trader(sim), trader(sim)]);
  const p1 = cents(m.bid + 0.01);
  const first = await post(sim, a, { tokenId: m.yes, side: 'BUY', price: p1, size: 10 });
  const second = await post(sim, b, { tokenId: m.yes, side: 'BUY', price: p1, size: 10 });
  await post(sim, c, { tokenId: m.yes, side: 'BUY', price: m.ask, size: 30 });
  const sold = await post(sim, c, { tokenId: m.yes, side: 'SELL', price: p1, size: 10 });
  assert.equal(sold.body.status, 'matched');
  assert.equal((await order(a, first.id))?.status, 'MATCHED');
  assert.equal((await order(b, second.id))?.size_matched, '0');
  const late = await post(sim, d, { tokenId: m.yes, side: 'BUY', price: m.bid, size: 10 });
  const hit = await post(sim, c, { tokenId: m.yes, side: 'SELL', price: m.bid, size: 10 });
  assert.equal(Number(hit.body.takingAmount), cents(10 * p1), 'filled at the better resting price');
  assert.equal((await order(b, second.id))?.status, 'MATCHED');
  assert.equal((await order(d, late.id))?.size_matched, '0');
});

test('FOK that cannot fill fully is killed with nothing changed; FAK fills what it can and cancels the rest', async () => {
  const m = await take();
  const t = await trader(sim);
  const before = await book(sim, m.yes);
  const level = before.asks.find((l) => Number(l.price) === m.ask);
  assert.ok(level);
  const cash = await balance(sim, t);
  const dollars = (shares: number) => Math.ceil(shares * m.ask * 100) / 100;
  const fok = await post(sim, t, {
    tokenId: m.yes,
    side: 'BUY',
    price: m.ask,
    size: 0,
    amount: dollars(Number(level.size) + 1),
    orderType: 'FOK',
  });
  assert.deepEqual(
    { status: fok.status, body: fok.body },
    {
      status: 400,
      body: { error: "order couldn't be fully filled. FOK orders are fully filled or killed." },
    },
  );
  assert.equal((await book(sim, m.yes)).hash, before.hash);
  assert.equal(await balance(sim, t), cash);
  assert.equal((await openOrders(t)).length, 0);
  assert.equal(await order(t, fok.id), null);

  const fak = await post(sim, t, {
    tokenId: m.yes,
    side: 'BUY',
    price: m.ask,
    size: 0,
    amount: dollars(Number(level.size) + 5),
    orderType: 'FAK',
  });
  assert.equal(fak.body.status, 'matched');
  assert.equal(fak.body.takingAmount, level.size);
  const killed = await order(t, fak.id);
  assert.deepEqual([killed?.status, killed?.size_matched], ['CANCELED', level.size]);
  assert.equal((await openOrders(t)).length, 0);
  assert.ok(!(await book(sim, m.yes)).asks.some((l) => Number(l.price) === m.ask), 'level consumed');
  const nothing = await post(sim, t, {
    tokenId: m.yes,
    side: 'BUY',
    price: m.bid,
    size: 0,
    amount: 5,
    orderType: 'FAK',
  });
  assert.deepEqual(nothing.body, {
    error:
      'no orders found to match with FAK order. FAK orders are partially filled or killed if no match is found.',
  });
});

test('a GTD order expires on the simulator clock, leaves the book and is announced on the user channel', async () => {
  const m = await take();
  const t = await trader(sim);
  const user = await connect(sim.urls.wsUser);
  user.send({
    type: 'user',
    auth: { apiKey: t.key, secret: t.secret, passphrase: t.passphrase },
    markets: [m.conditionId],
  });
  const now = Math.floor(Date.now() / 1000);
  const gtd = await post(sim, t, {
    tokenId: m.yes,
    side: 'BUY',
    price: m.bid,
    size: 10,
    orderType: 'GTD',
    expiration: now + 120,
  });
  assert.equal(gtd.body.status, 'live');
  await waitFor(() => user.events.find((e) => e.type === 'PLACEMENT'), 10_000, 'placement');
  const sizeAt = async () => (await book(sim, m.yes)).bids.find((l) => Number(l.price) === m.bid)?.size;
  const withOrder = await sizeAt();
  assert.equal((await control(sim, 'POST', '/__sim/clock', { advance_seconds: 61 })).status, 200);
  assert.equal((await order(t, gtd.id))?.status, 'CANCELED');
  assert.equal((await openOrders(t)).length, 0);
  assert.equal(Number(await sizeAt()), Math.round((Number(withOrder) - 10) * 100) / 100);
  const cancel = await waitFor(
    () => user.events.find((e) => e.type === 'CANCELLATION'),
    10_000,
    'cancellation',
  );
  assert.equal(cancel.status, 'CANCELED');
  assert.equal(cancel.id, gtd.id);
  user.ws.close();
  const soon = await post(sim, t, {
    tokenId: m.yes,
    side: 'BUY',
    price: m.bid,
    size: 10,
    orderType: 'GTD',
    expiration: now + 30,
  });
  assert.deepEqual(soon.body, { error: 'invalid expiration' });
  const gtc = await post(sim, t, {
    tokenId: m.yes,
    side: 'BUY',
    price: m.bid,
    size: 10,
    expiration: now + 3600,
  });
  assert.deepEqual(gtc.body, { error: 'invalid expiration' });
});

test('a BUY NO crosses a resting BUY YES (mint) and a SELL YES crosses a resting SELL NO (merge)', async () => {
  const m = await take();
  const a = await trader(sim);
  const b = await trader(sim);
  const start = (await balance(sim, a)) + (await balance(sim, b));
  const yesPrice = cents(m.ask - 0.01);
  const noRest = await post(sim, a, { tokenId: m.no, side: 'BUY', price: cents(1 - yesPrice), size: 10 });
  assert.equal(noRest.body.status, 'live');
  assert.equal(best(await book(sim, m.yes)).ask, yesPrice, 'a BUY NO rests as a YES ask at 1 − q');
  const mint = await post(sim, b, { tokenId: m.yes, side: 'BUY', price: yesPrice, size: 10 });
  assert.equal(mint.body.status, 'matched');
  assert.equal(await balance(sim, a, 'CONDITIONAL', m.no), 10_000_000);
  assert.equal(await balance(sim, b, 'CONDITIONAL', m.yes), 10_000_000);
  assert.equal(
    start - (await balance(sim, a)) - (await balance(sim, b)),
    10_000_000,
    'one dollar per minted set',
  );

  const bidPrice = cents(m.bid + 0.01);
  const noSell = await post(sim, a, { tokenId: m.no, side: 'SELL', price: cents(1 - bidPrice), size: 10 });
  assert.equal(noSell.body.status, 'live');
  const merge = await post(sim, b, { tokenId: m.yes, side: 'SELL', price: bidPrice, size: 10 });
  assert.equal(merge.body.status, 'matched');
  assert.equal(merge.body.takingAmount, String(cents(10 * bidPrice)));
  assert.equal(await balance(sim, a, 'CONDITIONAL', m.no), 0);
  assert.equal(await balance(sim, b, 'CONDITIONAL', m.yes), 0);
  assert.equal((await balance(sim, a)) + (await balance(sim, b)), start, 'merging gives the dollar back');
});

test('insufficient balance, missing allowance and unheld tokens are refused with the exchange text', async () => {
  const m = await take();
  const poor = await trader(sim, { collateral: '1000000' });
  const res = await post(sim, poor, { tokenId: m.yes, side: 'BUY', price: m.bid, size: 10 });
  assert.equal(res.status, 400);
  assert.equal(
    res.body.error,
    `not enough balance / allowance: the balance is not enough -> balance: 1000000, order amount: ${micro(10 * m.bid)}`,
  );
  const unapproved = await trader(sim, { approved: false });
  const refused = await post(sim, unapproved, { tokenId: m.yes, side: 'BUY', price: m.bid, size: 10 });
  assert.match(String(refused.body.error), /^not enough balance \/ allowance/);
  const allowances = (
    await clob(sim, unapproved, 'GET', '/balance-allowance', undefined, '?asset_type=COLLATERAL')
  ).json as {
    allowances: Record<string, string>;
  };
  assert.ok(Object.values(allowances.allowances).every((v) => v === '0'));
  const seller = await trader(sim);
  const naked = await post(sim, seller, { tokenId: m.yes, side: 'SELL', price: m.ask, size: 10 });
  assert.match(
    String(naked.body.error),
    /^not enough balance \/ allowance: the balance is not enough -> balance: 0/,
  );
  const rich = await trader(sim);
  await post(sim, rich, { tokenId: m.yes, side: 'BUY', price: 0.01, size: 900_000 });
  const second = await post(sim, rich, { tokenId: m.yes, side: 'BUY', price: 0.02, size: 100_000 });
  assert.match(String(second.body.error), /sum of active orders: 9000000000, order amount: 2000000000$/);
});

test('posting the same signed order twice books it once', async () => {
  const m = await take();
  const t = await trader(sim);
  const { body, id } = await signedOrder(t, { tokenId: m.yes, side: 'BUY', price: m.bid, size: 10 });
  const first = await clob(sim, t, 'POST', '/order', body);
  assert.equal((first.json as Json).orderID, id);
  const again = await clob(sim, t, 'POST', '/order', body);
  assert.deepEqual(again, { status: 400, json: { error: `order ${id} is invalid. Duplicated.` } });
  assert.equal((await openOrders(t)).length, 1);
});

test('concurrent posts: the same order books once, and two orders cannot spend one balance', async () => {
  const m = await take();
  const t = await trader(sim);
  const { body, id } = await signedOrder(t, { tokenId: m.yes, side: 'BUY', price: m.bid, size: 10 });
  const answers = await Promise.all([1, 2, 3].map(() => clob(sim, t, 'POST', '/order', body)));
  assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400, 400]);
  assert.equal((await openOrders(t)).length, 1);
  assert.deepEqual(
    answers.filter((a) => a.status === 400).map((a) => a.json),
    [{ error: `order ${id} is invalid. Duplicated.` }, { error: `order ${id} is invalid. Duplicated.` }],
  );
  const tight = await trader(sim, { collateral: String(micro(6 * m.bid)) });
  const both = await Promise.all([
    post(sim, tight, { tokenId: m.yes, side: 'BUY', price: m.bid, size: 5 }),
    post(sim, tight, { tokenId: m.yes, side: 'BUY', price: m.bid, size: 5 }),
  ]);
  assert.deepEqual(both.map((r) => r.status).sort(), [200, 400]);
});

test('validation refusals use the exchange texts', async () => {
  const m = await take();
  const t = await trader(sim);
  const small = await post(sim, t, { tokenId: m.yes, side: 'BUY', price: m.bid, size: 3 });
  assert.deepEqual(small.body, { error: `order ${small.id} is invalid. Size (3) lower than the minimum: 5` });
  const offTick = await post(sim, t, { tokenId: m.yes, side: 'BUY', price: 0.555, size: 10 });
  assert.deepEqual(offTick.body, {
    error: `order ${offTick.id} is invalid. Price (0.555) breaks minimum tick size rule: 0.01`,
  });
  const precise = await post(sim, t, { tokenId: m.yes, side: 'BUY', price: m.bid, size: 10.125 });
  assert.deepEqual(precise.body, {
    error:
      'invalid amounts, the buy orders maker amount supports a max accuracy of 4 decimals, taker amount a max of 2 decimals',
  });
  const cross = await post(sim, t, { tokenId: m.yes, side: 'BUY', price: m.ask, size: 10, postOnly: true });
  assert.deepEqual(cross.body, { error: 'invalid post-only order: order crosses book' });
  const postOnlyFak = await post(sim, t, {
    tokenId: m.yes,
    side: 'BUY',
    price: m.bid,
    size: 10,
    postOnly: true,
    orderType: 'FAK',
  });
  assert.deepEqual(postOnlyFak.body, { error: 'Invalid order payload' });
  const proxy = await post(sim, t, {
    tokenId: m.yes,
    side: 'BUY',
    price: m.bid,
    size: 10,
    tamper: (o) => {
      o.signatureType = 1;
    },
  });
  // A legacy account may sign as its proxy, but the maker must then be that proxy, not the EOA.
  assert.deepEqual(proxy.body, { error: 'invalid signature' });
  const unknown = await post(sim, t, { tokenId: '123456789', side: 'BUY', price: m.bid, size: 10 });
  assert.deepEqual(
    { status: unknown.status, body: unknown.body },
    { status: 404, body: { error: 'market not found' } },
  );
  assert.deepEqual(await clob(sim, t, 'POST', '/order', { order: { salt: 'x' } }), {
    status: 400,
    json: { error: 'Invalid order payload' },
  });
  const raw = await fetch(`${sim.urls.clob}/order`, { method: 'POST', body: '{' });
  assert.equal(raw.status, 401, 'unauthenticated garbage is refused before parsing');
});

test('cancels: one, many, by market, all; unknown and finished orders are not_canceled with the reason', async () => {
  const m = await take();
  const t = await trader(sim);
  const other = await trader(sim);
  const ids: string[] = [];
  for (const price of [0.01, 0.02, 0.03, 0.04]) {
    ids.push((await post(sim, t, { tokenId: m.yes, side: 'BUY', price, size: 10 })).id);
  }
  const noSide = await post(sim, t, { tokenId: m.no, side: 'BUY', price: 0.01, size: 10 });
  const reason = "order can't be found - already canceled or matched";
  assert.deepEqual((await clob(sim, t, 'DELETE', '/order', { orderID: ids[0] })).json, {
    canceled: [ids[0]],
    not_canceled: {},
  });
  assert.deepEqual((await clob(sim, t, 'DELETE', '/order', { orderID: ids[0] })).json, {
    canceled: [],
    not_canceled: { [ids[0] as string]: reason },
  });
  const unknown = `0x${'1'.repeat(64)}`;
  assert.deepEqual((await clob(sim, t, 'DELETE', '/orders', [ids[1], unknown])).json, {
    canceled: [ids[1]],
    not_canceled: { [unknown]: reason },
  });
  assert.deepEqual((await clob(sim, other, 'DELETE', '/order', { orderID: ids[2] })).json, {
    canceled: [],
    not_canceled: { [ids[2] as string]: reason },
  });
  assert.equal((await clob(sim, other, 'GET', `/data/order/${ids[2]}`)).json, null, "another user's order");
  const byAsset = (await clob(sim, t, 'DELETE', '/cancel-market-orders', { asset_id: m.no })).json as Json;
  assert.deepEqual(byAsset.canceled, [noSide.id]);
  const all = (await clob(sim, t, 'DELETE', '/cancel-all')).json as Json;
  assert.deepEqual((all.canceled as string[]).sort(), [ids[2], ids[3]].sort());
  assert.equal((await openOrders(t)).length, 0);
  assert.deepEqual((await clob(sim, t, 'DELETE', '/order', { orderID: 'nope' })).json, {
    error: 'Invalid orderID',
  });
  assert.deepEqual((await clob(sim, t, 'DELETE', '/order', [1])).json, { error: 'Invalid orderID' });
  assert.deepEqual((await clob(sim, t, 'GET', '/data/orders', undefined, '?market=0xzz')).json, {
    error: 'invalid order params payload',
  });
});
