// Polymarket account payloads (user-channel orders and trades, Data API positions and tape) on real recorded
// fixtures, plus invariants over generated trades so a golden value cannot freeze a bug.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  dataPositionToPosition,
  dataTradesToTrades,
  openOrderToOrder,
  orderStatus,
  tradeFee,
  userTradeFills,
} from '../../../../src/venues/polymarket/parse-trading.js';
import {
  PolymarketDataPosition,
  PolymarketDataTradeList,
  PolymarketDataValue,
  PolymarketOrderResponse,
  PolymarketUserTrade,
  PolymarketWsOrder,
} from '../../../../src/venues/polymarket/payloads.js';
import { payloadDecoder } from '../../../../src/venues/shared/payload.js';
import { loadFixture } from '../../../support/fixtures.js';
import { assertProperty } from '../../../support/property.js';

const fixture = (name: string): unknown => loadFixture('polymarket', name);
const decode = <S extends Parameters<typeof payloadDecoder>[0]>(schema: S, value: unknown) =>
  payloadDecoder(schema)(value, 'polymarket', 'fixture');

test('user-channel orders: a placement is open and untouched; a cancellation keeps its filled amount', () => {
  const placed = openOrderToOrder(
    decode(PolymarketWsOrder, fixture('ws_user_order_placement_v1.json')),
    1_725_900_000,
  );
  assert.equal(placed.status, 'open');
  assert.equal(placed.filled, 0);
  assert.equal(placed.updated_at, null);
  assert.equal(placed.side, 'buy');
  assert.equal(placed.price, 0.513);
  assert.equal(placed.size, 5);
  assert.equal(placed.created_at, '2024-09-09T00:42:00.000Z');
  const cancelled = openOrderToOrder(
    decode(PolymarketWsOrder, fixture('ws_user_order_cancellation_v1.json')),
    1_725_900_000,
    '2024-09-09T00:29:03.272Z',
  );
  assert.equal(cancelled.status, 'cancelled');
  assert.equal(cancelled.filled, 5);
  assert.equal(cancelled.updated_at, '2024-09-09T00:29:03.272Z');
});

test('order status: strict, prefixed or not, with expiry telling expired from cancelled', () => {
  assert.equal(orderStatus('ORDER_STATUS_LIVE', 0, 10, 0, 0), 'open');
  assert.equal(orderStatus('live', 3, 10, 0, 0), 'partially_filled');
  assert.equal(orderStatus('MATCHED', 10, 10, 0, 0), 'filled');
  assert.equal(orderStatus('CANCELED', 0, 10, 100, 200), 'expired');
  // Off the book a minute before the expiration it names: that is already the expiry.
  assert.equal(orderStatus('CANCELED', 0, 10, 250, 200), 'expired');
  assert.equal(orderStatus('CANCELED', 0, 10, 300, 200), 'cancelled');
  assert.equal(orderStatus('CANCELED', 0, 10, 0, 200), 'cancelled');
  assert.equal(orderStatus('DELAYED', 0, 10, 0, 0), 'pending');
  assert.throws(() => orderStatus('HALF_ALIVE', 0, 10, 0, 0));
});

test('a user trade gives each participant its own fills: the taker one fill, a maker one per matched order', () => {
  const trade = decode(PolymarketUserTrade, fixture('ws_user_trade_v1.json'));
  // The recorded frame is a MAKER report: the maker order of 86f776cc… matched 247.68 Yes at 0.518.
  const maker = userTradeFills(trade, { apiKey: '86f776cc-e18b-c94e-80b4-a7364e0ecec5', address: '0x0' });
  assert.deepEqual(
    maker.map((f) => [f.order_id, f.outcome, f.side, f.price, f.size, f.is_taker]),
    [
      [
        '0x67620d882faa37cd1a6668de1271c4b1b6f58fb4ebabc2c095692dfd9c15735b',
        'Yes',
        'sell',
        0.518,
        247.68,
        false,
      ],
    ],
  );
  assert.equal(maker[0]?.created_at, '2024-09-09T08:00:59.000Z');
  // A maker on the other token (No) of a BUY Yes trade was buying too: the match minted the pair.
  const minted = userTradeFills(trade, { apiKey: '78132bc3-22af-6aa2-79ae-11929f821cae', address: '0x0' });
  assert.deepEqual(
    minted.map((f) => [f.outcome, f.side, f.size]),
    [['No', 'buy', 10]],
  );
  // Matching by maker address works as well as by API key; a stranger gets nothing.
  assert.equal(
    userTradeFills(trade, { apiKey: 'x', address: '0xac2ce2ba3bde4959921d35d6480ef77fb7ce53d9' }).length,
    1,
  );
  assert.deepEqual(userTradeFills(trade, { apiKey: 'x', address: '0x0' }), []);
  const asTaker = userTradeFills({ ...trade, trader_side: 'TAKER' }, { apiKey: 'x', address: '0x0' });
  assert.deepEqual(
    asTaker.map((f) => [f.order_id, f.side, f.size, f.is_taker]),
    [['0x3ad09f225ebe141dfbdb3824f31cb457e8e0301ca4e0a06311e543f5328b9dea', 'buy', 1096.87, true]],
  );
});

test('a trade whose settlement failed on chain gives nobody a fill, however its status is spelled', () => {
  const trade = decode(PolymarketUserTrade, fixture('ws_user_trade_v1.json'));
  const me = { apiKey: '86f776cc-e18b-c94e-80b4-a7364e0ecec5', address: '0x0' };
  for (const status of ['MATCHED', 'MINED', 'CONFIRMED', 'TRADE_STATUS_CONFIRMED', 'RETRYING'])
    assert.equal(userTradeFills({ ...trade, status }, me).length, 1, status);
  for (const status of ['FAILED', 'TRADE_STATUS_FAILED', 'failed']) {
    assert.deepEqual(userTradeFills({ ...trade, status }, me), [], status);
    assert.deepEqual(userTradeFills({ ...trade, status, trader_side: 'TAKER' }, me), [], status);
  }
});

test('fills never exceed what the trade matched, and fees are non-negative (property)', () => {
  const level = fc.record({
    matched: fc.integer({ min: 1, max: 10_000 }),
    price: fc.integer({ min: 1, max: 99 }),
    mine: fc.boolean(),
    sameToken: fc.boolean(),
  });
  assertProperty(
    fc.property(
      fc.array(level, { minLength: 1, maxLength: 6 }),
      fc.constantFrom('BUY', 'SELL'),
      (levels, side) => {
        const trade = decode(PolymarketUserTrade, {
          ...(fixture('ws_user_trade_v1.json') as object),
          side,
          trader_side: 'MAKER',
          fee_rate_bps: '100',
          maker_orders: levels.map((l, i) => ({
            order_id: `o${i}`,
            owner: l.mine ? 'me' : 'other',
            maker_address: '0x1',
            matched_amount: String(l.matched),
            price: String(l.price / 100),
            fee_rate_bps: '100',
            asset_id: l.sameToken
              ? '21742633143463906290569050155826241533067272736897614950488156847949938836455'
              : 'other',
            outcome: l.sameToken ? 'Yes' : 'No',
          })),
        });
        const fills = userTradeFills(trade, { apiKey: 'me', address: '0x2' }, 1);
        assert.equal(fills.length, levels.filter((l) => l.mine).length);
        for (const f of fills) {
          // p(1 − p) ≤ 1/4; the fee is rounded to 5 decimals.
          assert.ok(f.fee !== null && f.fee >= 0 && f.fee <= f.size * 0.01 * 0.25 + 0.000005);
          assert.ok(f.side === 'buy' || f.side === 'sell');
        }
      },
    ),
    { examples: [] },
  );
  assert.equal(tradeFee(undefined, 2, 0.5, 10), null);
});

test('a V2 fill pays rate × (p(1−p))^exponent per share, not the V1 rate × min(p, 1−p)', () => {
  // The recorded user trade, as a V2 market with a fee (fd r = 0.07, e = 2) would report it: our taker buy of
  // 10 shares at 0.5. V1's formula would charge 0.07 × 0.5 × 10 = 0.35, eight times the V2 fee.
  const recorded = fixture('ws_user_trade_v1.json') as Record<string, unknown>;
  const trade = decode(PolymarketUserTrade, {
    ...recorded,
    trader_side: 'TAKER',
    price: '0.5',
    size: '10',
    fee_rate_bps: '700',
  });
  const [taker] = userTradeFills(trade, { apiKey: String(recorded.owner), address: '0x0' }, 2);
  assert.equal(taker?.is_taker, true);
  assert.equal(taker?.fee, 0.04375);
  // Exponent 1 (the curve docs.polymarket.com/trading/fees shows): 10 × 0.07 × 0.25.
  assert.equal(tradeFee('700', 1, 0.5, 10), 0.175);
  // Rounded to 5 decimals, exactly: 3 × 0.07 × (0.1 × 0.9) = 0.0189 (floats give 0.018900000000000004).
  assert.equal(tradeFee('700', 1, 0.1, 3), 0.0189);
  // The recorded V1 trade itself carries no fee rate: the fee is unreported (null), never a made-up 0.
  const v1 = decode(PolymarketUserTrade, recorded);
  for (const f of userTradeFills(v1, { apiKey: String(recorded.owner), address: '0x0' }, 2))
    assert.equal(f.fee, null);
});

test('Data API: positions keep size, average and current price; the tape is named, newest first as sent', () => {
  const [raw] = fixture('http_get_data_positions.json') as unknown[];
  const p = dataPositionToPosition(decode(PolymarketDataPosition, raw));
  assert.deepEqual(p, {
    market_id: '0xa9a9acb457b3567dd8d1cacaa400ae6aec8e63f858a4560afdb612161e43e57c',
    outcome: 'Nuggets',
    size: 181369.1314,
    average_price: 0.6281,
    current_price: 0.325,
  });
  const trades = dataTradesToTrades(
    decode(PolymarketDataTradeList, fixture('http_get_data_trades_sanitized.json')),
  );
  assert.equal(trades.length, 3);
  assert.deepEqual(
    trades.map((t) => [t.side, t.price, t.size, t.outcome]),
    [
      ['sell', 0.7, 92.59, 'T1'],
      ['buy', 0.709999959, 1.464786, 'T1'],
      ['buy', 0.2972581967, 244, 'Hanwha Life Esports'],
    ],
  );
  assert.equal(new Set(trades.map((t) => t.id)).size, 3);
  assert.equal(trades[0]?.timestamp, new Date(1_786_179_735_000).toISOString());
  assert.deepEqual(decode(PolymarketDataValue, fixture('http_get_data_value.json')), [
    { user: '0x2005d16a84ceefa912d4e380cd32e7ff827875ea', value: 517349.941 },
  ]);
});

test('POST /order answers (recorded) match the response schema', () => {
  for (const name of ['http_post_order_v1.json', 'http_post_order_matched_v1.json']) {
    const res = decode(PolymarketOrderResponse, fixture(name));
    assert.equal(res.status, 'matched');
    assert.match(res.orderID ?? '', /^0x[0-9a-f]{64}$/);
  }
});
