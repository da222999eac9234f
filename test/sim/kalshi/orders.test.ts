// V2 event-order entry against the simulated book: resting, IOC partial fills, FOK, post-only, self-trade
// prevention, maker/taker fills between two accounts, netting YES against NO, amend/decrease, and the exchange's
// refusal bodies (recorded on the demo exchange where a recording exists).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import { type Account, account, call, type Json, liquid } from './client.js';

let sim: KalshiSim;
let acct: Account;
before(async () => {
  sim = await startKalshiSim({ seed: 11, size: 30 });
  acct = await account(sim);
});
after(() => sim.close());

const order = (over: Json) => ({
  client_order_id: randomUUID(),
  count: '2.00',
  self_trade_prevention_type: 'taker_at_cross',
  time_in_force: 'good_till_canceled',
  side: 'bid',
  ...over,
});
const create = (who: Account, body: unknown) =>
  call(sim, 'POST', '/portfolio/events/orders', { account: who, body });
const get = (who: Account, path: string) => call(sim, 'GET', path, { account: who });

test('a resting bid shows in the book and the order list, cancels once, and its client_order_id stays taken', async () => {
  const { ticker } = await liquid(sim);
  const body = order({ ticker, price: '0.0100', count: '3' });
  const created = await create(acct, body);
  assert.equal(created.status, 201);
  const ack = created.body as Json;
  assert.deepEqual(Object.keys(ack), [
    'client_order_id',
    'fill_count',
    'order_id',
    'remaining_count',
    'ts_ms',
  ]);
  assert.deepEqual([ack.fill_count, ack.remaining_count], ['0.00', '3.00']);
  const id = ack.order_id as string;
  const book = (await call(sim, 'GET', `/markets/${ticker}/orderbook`)).body as {
    orderbook_fp: { yes_dollars: string[][] };
  };
  assert.deepEqual(book.orderbook_fp.yes_dollars[0], ['0.0100', '3.00']);
  const read = (await get(acct, `/portfolio/orders/${id}`)).body as { order: Json };
  assert.deepEqual(
    [
      read.order.status,
      read.order.book_side,
      read.order.outcome_side,
      read.order.yes_price_dollars,
      read.order.no_price_dollars,
    ],
    ['resting', 'bid', 'yes', '0.0100', '0.9900'],
  );
  const listed = (await get(acct, '/portfolio/orders?status=resting')).body as { orders: Json[] };
  assert.ok(listed.orders.some((o) => o.order_id === id));

  const cancel = await call(sim, 'DELETE', `/portfolio/events/orders/${id}`, { account: acct });
  assert.equal(cancel.status, 200);
  assert.deepEqual(
    Object.keys(cancel.body as Json),
    ['order_id', 'reduced_by', 'ts_ms'],
    'no client_order_id (recorded)',
  );
  assert.equal((cancel.body as Json).reduced_by, '3.00');
  assert.equal(
    ((await get(acct, `/portfolio/orders/${id}`)).body as { order: Json }).order.status,
    'canceled',
  );
  const again = await call(sim, 'DELETE', `/portfolio/events/orders/${id}`, { account: acct });
  assert.deepEqual(
    [again.status, again.body],
    [404, { error: { code: 'not_found', message: 'not found', service: 'exchange' } }],
  );
  const reuse = await create(acct, body);
  assert.deepEqual(
    [reuse.status, reuse.body],
    [409, { error: { code: 'order_already_exists', message: 'order already exists', service: 'exchange' } }],
  );
});

test('IOC takes the best ask level only, cancels the rest, and books fills, position, fees and cash', async () => {
  const fresh = await account(sim);
  const { ticker, ask, askSize } = await liquid(sim);
  const want = askSize + 5;
  const res = await create(
    fresh,
    order({ ticker, price: ask.toFixed(4), count: want.toFixed(2), time_in_force: 'immediate_or_cancel' }),
  );
  assert.equal(res.status, 201);
  const ack = res.body as Json;
  assert.equal(ack.fill_count, askSize.toFixed(2));
  assert.equal(ack.remaining_count, '0.00');
  assert.equal(ack.average_fill_price, ask.toFixed(4));
  assert.match(String(ack.average_fee_paid), /^\d+\.\d{4}$/);
  const o = ((await get(fresh, `/portfolio/orders/${ack.order_id}`)).body as { order: Json }).order;
  assert.deepEqual(
    [o.status, o.fill_count_fp, o.remaining_count_fp],
    ['canceled', askSize.toFixed(2), '0.00'],
  );
  const fills = ((await get(fresh, `/portfolio/fills?ticker=${ticker}`)).body as { fills: Json[] }).fills;
  assert.equal(fills.length, 1);
  assert.deepEqual(
    [fills[0]?.is_taker, fills[0]?.count_fp, fills[0]?.yes_price_dollars],
    [true, askSize.toFixed(2), ask.toFixed(4)],
  );
  // Quadratic taker fee, rounded up to $0.0001: 0.07 × C × P × (1 − P).
  const fee = Math.ceil(0.07 * askSize * ask * (1 - ask) * 10_000 - 1e-9) / 10_000;
  assert.equal(fills[0]?.fee_cost, fee.toFixed(6));
  const positions = (await get(fresh, '/portfolio/positions')).body as {
    market_positions: Json[];
    event_positions: Json[];
  };
  assert.equal(positions.market_positions[0]?.position_fp, askSize.toFixed(2));
  assert.equal(positions.event_positions.length, 1);
  const balance = (await get(fresh, '/portfolio/balance')).body as { balance_dollars: string };
  const spent = Math.round((askSize * ask + fee) * 10_000) / 10_000;
  assert.equal(balance.balance_dollars, (10_000 - spent).toFixed(4));
});

test('FOK larger than the book is killed whole; post-only that would cross is refused (recorded body)', async () => {
  const { ticker, ask } = await liquid(sim);
  const fok = await create(
    acct,
    order({ ticker, price: ask.toFixed(4), count: '3000', time_in_force: 'fill_or_kill' }),
  );
  assert.equal(fok.status, 201);
  assert.deepEqual([(fok.body as Json).fill_count, (fok.body as Json).remaining_count], ['0.00', '0.00']);
  const post = await create(acct, { ...order({ ticker, price: ask.toFixed(4) }), post_only: true });
  assert.deepEqual(
    [post.status, post.body],
    [400, { error: { code: 'invalid_order', message: 'invalid order', details: 'post only cross' } }],
  );
});

test('self-trade prevention taker_at_cross cancels the taker and leaves the own resting order (recorded)', async () => {
  const { ticker, bid } = await liquid(sim);
  const above = (bid + 0.01).toFixed(4);
  const resting = await create(acct, order({ ticker, price: above, count: '1.00' }));
  const sell = await create(
    acct,
    order({ ticker, side: 'ask', price: above, count: '1.00', time_in_force: 'immediate_or_cancel' }),
  );
  assert.deepEqual([(sell.body as Json).fill_count, (sell.body as Json).remaining_count], ['0.00', '0.00']);
  const still = (
    (await get(acct, `/portfolio/orders/${(resting.body as Json).order_id}`)).body as { order: Json }
  ).order;
  assert.equal(still.status, 'resting');
  await call(sim, 'DELETE', `/portfolio/events/orders/${(resting.body as Json).order_id}`, { account: acct });
});

test('two accounts trade: the resting side is maker (no fee), the crossing side taker; YES and NO net out', async () => {
  const maker = await account(sim);
  const taker = await account(sim);
  const { ticker, bid } = await liquid(sim);
  const price = (bid + 0.01).toFixed(4);
  const rest = await create(maker, order({ ticker, price, count: '4.00' }));
  // Selling YES at p is buying NO at 1 − p: it meets the resting YES bid at p.
  const hit = await create(
    taker,
    order({ ticker, side: 'ask', price, count: '4.00', time_in_force: 'immediate_or_cancel' }),
  );
  assert.equal((hit.body as Json).fill_count, '4.00');
  const makerFill = ((await get(maker, '/portfolio/fills')).body as { fills: Json[] }).fills[0];
  assert.deepEqual(
    [makerFill?.is_taker, makerFill?.fee_cost, makerFill?.order_id],
    [false, '0.000000', (rest.body as Json).order_id],
  );
  const takerFill = ((await get(taker, '/portfolio/fills')).body as { fills: Json[] }).fills[0];
  assert.deepEqual([takerFill?.is_taker, takerFill?.book_side, takerFill?.outcome_side], [true, 'ask', 'no']);
  const takerPos = ((await get(taker, '/portfolio/positions')).body as { market_positions: Json[] })
    .market_positions[0];
  assert.equal(takerPos?.position_fp, '-4.00', 'a NO holding is a negative position');
  // The maker now holds 4 YES; selling them (an ask) at the bid nets the position back to zero.
  const { bid: nowBid } = await liquid(sim);
  await create(
    maker,
    order({
      ticker,
      side: 'ask',
      price: nowBid.toFixed(4),
      count: '4.00',
      time_in_force: 'immediate_or_cancel',
    }),
  );
  const flat = (
    (await get(maker, '/portfolio/positions?count_filter=position')).body as { market_positions: Json[] }
  ).market_positions;
  assert.deepEqual(flat, []);
  const traded = ((await get(maker, '/portfolio/positions')).body as { market_positions: Json[] })
    .market_positions;
  assert.equal(traded[0]?.position_fp, '0.00', 'without count_filter a closed position is still listed');
});

test('amend moves price and size; decrease reduces the remainder; both keep the order id', async () => {
  const { ticker } = await liquid(sim);
  const created = await create(acct, order({ ticker, price: '0.0200', count: '5.00' }));
  const id = (created.body as Json).order_id as string;
  const amend = await call(sim, 'POST', `/portfolio/events/orders/${id}/amend`, {
    account: acct,
    body: { ticker, side: 'bid', price: '0.0300', count: '6.00' },
  });
  assert.equal(amend.status, 200);
  assert.deepEqual([(amend.body as Json).order_id, (amend.body as Json).remaining_count], [id, '6.00']);
  const decrease = await call(sim, 'POST', `/portfolio/events/orders/${id}/decrease`, {
    account: acct,
    body: { reduce_by: '2.00' },
  });
  assert.equal((decrease.body as Json).remaining_count, '4.00');
  const o = ((await get(acct, `/portfolio/orders/${id}`)).body as { order: Json }).order;
  assert.deepEqual([o.yes_price_dollars, o.remaining_count_fp], ['0.0300', '4.00']);
  const wrongSide = await call(sim, 'POST', `/portfolio/events/orders/${id}/amend`, {
    account: acct,
    body: { ticker, side: 'ask', price: '0.0300', count: '6.00' },
  });
  assert.equal(wrongSide.status, 400);
  await call(sim, 'DELETE', `/portfolio/events/orders/${id}`, { account: acct });
});

test('refusals: insufficient balance, off-tick price, JSON numbers, missing fields, unknown market, retired endpoints', async () => {
  const { ticker } = await liquid(sim);
  const poor = await account(sim, 100);
  const broke = await create(poor, order({ ticker, price: '0.5000', count: '10' }));
  assert.deepEqual(
    [broke.status, broke.body],
    [400, { error: { code: 'insufficient_balance', message: 'insufficient balance', service: 'exchange' } }],
  );
  const offTick = await create(acct, order({ ticker, price: '0.5150' }));
  assert.deepEqual(
    [offTick.status, offTick.body],
    [400, { error: { code: 'invalid_price', message: 'invalid price', service: 'exchange' } }],
  );
  const numeric = await create(acct, order({ ticker, price: '0.0100', count: 1 }));
  assert.deepEqual(
    [numeric.status, numeric.body],
    [
      400,
      {
        code: 'bad_request',
        message: 'bad request',
        details:
          'json: cannot unmarshal number into Go struct field CreateOrderV2Request.count of type string',
      },
    ],
  );
  const missing = await create(acct, order({ price: '0.0100' }));
  assert.equal(missing.status, 400);
  assert.equal(((missing.body as Json).error as Json).code, 'invalid_parameters');
  const ioc = await create(acct, {
    ...order({ ticker, price: '0.0100', time_in_force: 'immediate_or_cancel' }),
    expiration_time: 4_000_000_000,
  });
  assert.equal(ioc.status, 400, 'IOC cannot carry an expiration time');
  assert.equal((await create(acct, order({ ticker: 'NO-SUCH-MARKET', price: '0.0100' }))).status, 404);
  const legacy = await call(sim, 'POST', '/portfolio/orders', {
    account: acct,
    body: { ticker, action: 'buy', side: 'yes', count: 1, yes_price: 1, type: 'limit' },
  });
  assert.equal(legacy.status, 410);
  assert.equal(((legacy.body as Json).error as Json).code, 'deprecated_v1_order_endpoint');
  assert.equal((await call(sim, 'GET', '/no/such/path')).status, 404);
});

test('an expiring order (good_till_canceled + expiration_time) is cancelled when the simulator clock passes it', async () => {
  const { ticker } = await liquid(sim);
  const expiry = Math.floor(Date.now() / 1000) + 120;
  const created = await create(acct, { ...order({ ticker, price: '0.0100' }), expiration_time: expiry });
  const id = (created.body as Json).order_id as string;
  assert.equal(
    ((await get(acct, `/portfolio/orders/${id}`)).body as { order: Json }).order.status,
    'resting',
  );
  await fetch(`${sim.control}/__sim/clock`, {
    method: 'POST',
    body: JSON.stringify({ advance_seconds: 180 }),
  });
  const o = ((await get(acct, `/portfolio/orders/${id}`)).body as { order: Json }).order;
  assert.equal(o.status, 'canceled');
  assert.ok(typeof o.expiration_time === 'string');
});
