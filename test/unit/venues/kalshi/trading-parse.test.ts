// Order mapping onto Kalshi's single YES book, order/fill/position normalizers, the error table on the
// exchange's three error-body shapes, and request signing checked against the official SDK's signer.
import assert from 'node:assert/strict';
import { constants, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { test } from 'node:test';
import { KalshiAuth } from 'kalshi-typescript/dist/auth.js';
import type { OrderRequest } from '../../../../src/domain/trading.js';
import { AppError } from '../../../../src/errors/app-error.js';
import { authHeaders, kalshiKey, signature } from '../../../../src/venues/kalshi/auth.js';
import { mapKalshiError, readErrorBody } from '../../../../src/venues/kalshi/errors.js';
import {
  orderBody,
  orderFromCreate,
  orderStatus,
  parseFill,
  parseOrder,
  parsePosition,
} from '../../../../src/venues/kalshi/parse-trading.js';
import { VenueStatusError, VenueTransportError } from '../../../../src/venues/shared/venue-errors.js';

const request = (over: Partial<OrderRequest>): OrderRequest => ({
  market_id: 'KXT-26NOV30-T1',
  outcome: 'Yes',
  side: 'buy',
  price: 0.6,
  size: 5,
  order_type: 'gtc',
  client_order_id: 'c-1',
  ...over,
});

test('buy/sell Yes/No map onto one YES book: side bid/ask and the YES price', () => {
  const cases: Array<[OrderRequest['side'], 'Yes' | 'No', 'bid' | 'ask', string]> = [
    ['buy', 'Yes', 'bid', '0.6000'],
    ['sell', 'Yes', 'ask', '0.6000'],
    ['buy', 'No', 'ask', '0.4000'],
    ['sell', 'No', 'bid', '0.4000'],
  ];
  for (const [side, outcome, book, price] of cases) {
    const body = orderBody(request({ side, outcome }), outcome);
    assert.deepEqual([body.side, body.price], [book, price], `${side} ${outcome}`);
    assert.equal(body.count, '5.00');
    assert.equal(body.self_trade_prevention_type, 'taker_at_cross');
  }
  assert.equal(orderBody(request({ order_type: 'ioc' }), 'Yes').time_in_force, 'immediate_or_cancel');
  assert.equal(orderBody(request({}), 'Yes').time_in_force, 'good_till_canceled');
  const gtd = orderBody(request({ order_type: 'gtd', expiration: 1_900_000_000 }), 'Yes');
  assert.deepEqual([gtd.time_in_force, gtd.expiration_time], ['good_till_canceled', 1_900_000_000]);
  assert.equal(orderBody(request({ price: 0.1234, size: 0.5 }), 'No').price, '0.8766');
});

test("a client's price or size is never rounded: too many decimals or out of range is a 400", () => {
  for (const over of [{ price: 0.12345 }, { price: 0 }, { price: 1 }, { size: 1.005 }]) {
    assert.throws(
      () => orderBody(request(over), 'Yes'),
      (e: unknown) => e instanceof AppError && e.code === 'validation_error',
      JSON.stringify(over),
    );
  }
});

test('orders read back as buying the outcome they position for, at that outcome’s price', () => {
  // Shape recorded on the demo exchange (2026-06-11): a resting bid, legacy action/side still present.
  const resting = parseOrder({
    order_id: 'o1',
    client_order_id: 'c1',
    ticker: 'T',
    status: 'resting',
    outcome_side: 'yes',
    book_side: 'bid',
    yes_price_dollars: '0.0100',
    no_price_dollars: '0.9900',
    initial_count_fp: '1.00',
    fill_count_fp: '0.00',
    remaining_count_fp: '1.00',
    created_time: '2026-06-11T06:29:20.866753Z',
    last_update_time: '2026-06-11T06:29:20.866753Z',
  });
  assert.deepEqual(
    [resting.outcome, resting.side, resting.price, resting.status, resting.updated_at],
    ['Yes', 'buy', 0.01, 'open', null],
  );
  const ask = parseOrder({
    order_id: 'o2',
    ticker: 'T',
    status: 'canceled',
    book_side: 'ask',
    yes_price_dollars: '0.0200',
    initial_count_fp: '3.00',
    fill_count_fp: '1.00',
    remaining_count_fp: '0.00',
    created_time: '2026-06-11T06:25:36.973747Z',
    last_update_time: '2026-06-11T06:25:37.380099Z',
  });
  assert.deepEqual(
    [ask.outcome, ask.side, ask.price, ask.filled, ask.status],
    ['No', 'buy', 0.98, 1, 'cancelled'],
  );
  assert.equal(ask.updated_at, '2026-06-11T06:25:37.380Z');
  assert.equal(orderStatus({ status: 'executed' }, 1, 0), 'filled');
  assert.equal(orderStatus({ status: 'resting' }, 1, 2), 'partially_filled');
  assert.equal(
    orderStatus(
      {
        status: 'canceled',
        expiration_time: '2026-01-01T00:00:00Z',
        last_update_time: '2026-01-01T00:00:01Z',
      },
      0,
      0,
    ),
    'expired',
  );
});

test('the create answer (counts only, recorded shapes) becomes an order: open, filled, or IOC-cancelled', () => {
  const body = orderBody(request({ outcome: 'No', side: 'buy', price: 0.48, size: 1 }), 'No');
  const maker = orderFromCreate(
    {
      order_id: 'o',
      client_order_id: 'c',
      fill_count: '0.00',
      remaining_count: '1.00',
      ts_ms: 1781159360866,
    },
    body,
  );
  assert.deepEqual(
    [maker.status, maker.filled, maker.updated_at, maker.outcome, maker.price],
    ['open', 0, null, 'No', 0.48],
  );
  const taker = orderFromCreate(
    {
      order_id: 'o',
      fill_count: '1.00',
      remaining_count: '0.00',
      average_fill_price: '0.5200',
      ts_ms: 1781159370164,
    },
    body,
  );
  assert.deepEqual([taker.status, taker.filled], ['filled', 1]);
  const partial = orderFromCreate(
    { order_id: 'o', fill_count: '0.40', remaining_count: '0.00', ts_ms: 1 },
    {
      ...body,
      count: '1.00',
    },
  );
  assert.deepEqual([partial.status, partial.filled], ['cancelled', 0.4]);
});

test('fills (recorded demo shape) and signed positions', () => {
  const fill = parseFill({
    fill_id: 'f4a42159-b500-57c6-efa2-c31d94d916c1',
    trade_id: 'f4a42159-b500-57c6-efa2-c31d94d916c1',
    order_id: '97ec18b7-10d3-4557-9de0-8598aad625f0',
    ticker: 'KXWTACHALLENGERMATCH-26JUN11JIMLEP-LEP',
    outcome_side: 'yes',
    book_side: 'bid',
    count_fp: '1.00',
    yes_price_dollars: '0.5200',
    no_price_dollars: '0.4800',
    is_taker: true,
    fee_cost: '0.017500',
    created_time: '2026-06-11T06:29:30.164956Z',
    ts: 1781159370,
  });
  assert.deepEqual(
    [fill.outcome, fill.side, fill.price, fill.size, fill.fee, fill.is_taker, fill.created_at],
    ['Yes', 'buy', 0.52, 1, 0.0175, true, '2026-06-11T06:29:30.164Z'],
  );
  const long = parsePosition({ ticker: 'T', position_fp: '3.00', market_exposure_dollars: '2.500000' }, 0.6);
  assert.deepEqual(long, {
    market_id: 'T',
    outcome: 'Yes',
    size: 3,
    average_price: 0.833333,
    current_price: 0.6,
  });
  const short = parsePosition(
    { ticker: 'T', position_fp: '-2.00', market_exposure_dollars: '0.800000' },
    0.6,
  );
  assert.deepEqual(short, { market_id: 'T', outcome: 'No', size: 2, average_price: 0.4, current_price: 0.4 });
  assert.equal(parsePosition({ ticker: 'T', position_fp: '0.00' }, null), null);
});

const status = (code: number, body: unknown) =>
  new VenueStatusError('kalshi', 'op', code, JSON.stringify(body), null, 1);

test('the error table reads all three recorded body shapes and maps codes, not texts', () => {
  assert.deepEqual(
    readErrorBody(
      '{"error":{"code":"authentication_error","message":"authentication_error","details":"INCORRECT_API_KEY_SIGNATURE"}}',
    ),
    {
      code: 'authentication_error',
      message: 'authentication_error',
      details: 'INCORRECT_API_KEY_SIGNATURE',
    },
  );
  assert.equal(
    readErrorBody('{"code":"bad_request","message":"bad request","details":"json: …"}').code,
    'bad_request',
  );
  assert.equal(readErrorBody('{"msg":"Parameter validation failed"}').message, 'Parameter validation failed');
  assert.equal(readErrorBody('{"error":"too many requests"}').message, 'too many requests');

  const mapped = (error: unknown, context?: 'order' | 'market') => mapKalshiError(error, context) as AppError;
  const sig = mapped(
    status(401, {
      error: {
        code: 'authentication_error',
        message: 'authentication_error',
        details: 'INCORRECT_API_KEY_SIGNATURE',
      },
    }),
  );
  assert.deepEqual([sig.code, sig.status], ['authentication_failed', 403]);
  assert.match(sig.message, /INCORRECT_API_KEY_SIGNATURE/);
  assert.equal(
    mapped(status(401, { error: { code: 'header_timestamp_expired', message: 'header timestamp expired' } }))
      .code,
    'authentication_failed',
  );
  assert.equal(
    mapped(
      status(401, {
        error: { code: 'authentication_error', message: 'authentication_error', details: 'NOT_FOUND' },
      }),
    ).code,
    'authentication_failed',
  );
  assert.equal(
    mapped(
      status(400, {
        error: { code: 'insufficient_balance', message: 'insufficient balance', service: 'exchange' },
      }),
    ).code,
    'insufficient_funds',
  );
  assert.equal(
    mapped(status(409, { error: { code: 'order_already_exists', message: 'order already exists' } })).code,
    'conflict',
  );
  for (const code of ['market_closed', 'trading_is_paused']) {
    const notTrading = mapped(
      status(409, { error: { code, message: code.replace(/_/g, ' '), service: 'exchange' } }),
      'market',
    );
    assert.deepEqual([notTrading.code, notTrading.status], ['conflict', 409], code);
  }
  assert.equal(
    mapped(status(404, { error: { code: 'not_found', message: 'not found', service: 'exchange' } }), 'order')
      .code,
    'order_not_found',
  );
  assert.equal(
    mapped(status(404, { error: { code: 'not_found', message: 'not found' } }), 'market').code,
    'market_not_found',
  );
  const postOnly = mapped(
    status(400, { error: { code: 'invalid_order', message: 'invalid order', details: 'post only cross' } }),
  );
  assert.deepEqual([postOnly.code, postOnly.status], ['bad_request', 400]);
  assert.match(postOnly.message, /invalid order \(post only cross\)/);
  const limited = mapped(new VenueStatusError('kalshi', 'op', 429, '{"error":"too many requests"}', null, 3));
  assert.deepEqual([limited.code, limited.retryable], ['service_unavailable', true]);
  assert.equal(
    mapped(new VenueTransportError('kalshi', 'op', 'timeout', true, 1)).code,
    'service_unavailable',
  );
});

test('signing: RSA-PSS SHA-256 with a digest-length salt over timestamp + METHOD + path without the query', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const key = kalshiKey({ credentials: { api_key_id: 'kid', private_key: privateKey } });
  const headers = authHeaders(key, 'GET', '/trade-api/v2/portfolio/orders?status=resting', 1703123456789);
  assert.equal(headers['KALSHI-ACCESS-KEY'], 'kid');
  assert.equal(headers['KALSHI-ACCESS-TIMESTAMP'], '1703123456789');
  const ok = (message: string, sig: string, saltLength: number) =>
    verify(
      'sha256',
      Buffer.from(message),
      { key: createPublicKey(publicKey), padding: constants.RSA_PKCS1_PSS_PADDING, saltLength },
      Buffer.from(sig, 'base64'),
    );
  const sig = headers['KALSHI-ACCESS-SIGNATURE'] ?? '';
  assert.ok(
    ok('1703123456789GET/trade-api/v2/portfolio/orders', sig, 32),
    'signed over the path without the query',
  );
  assert.ok(!ok('1703123456789GET/trade-api/v2/portfolio/orders?status=resting', sig, 32));
  // The official SDK's signer and ours produce signatures the other side verifies the same way.
  const sdk = new KalshiAuth('kid', privateKey).generateAuthHeaders(
    'POST',
    '/trade-api/v2/portfolio/events/orders',
  );
  const message = `${sdk['KALSHI-ACCESS-TIMESTAMP']}POST/trade-api/v2/portfolio/events/orders`;
  assert.ok(ok(message, sdk['KALSHI-ACCESS-SIGNATURE'] ?? '', 32));
  assert.ok(
    ok(
      message,
      signature(
        key.privateKey,
        sdk['KALSHI-ACCESS-TIMESTAMP'] ?? '',
        'POST',
        '/trade-api/v2/portfolio/events/orders',
      ),
      32,
    ),
  );
  // PEMs pasted into JSON with literal "\n" still load; anything else is the client's 400, never echoed.
  assert.equal(
    kalshiKey({ credentials: { api_key_id: 'kid', private_key: privateKey.replace(/\n/g, '\\n') } }).keyId,
    'kid',
  );
  assert.throws(
    () => kalshiKey({ credentials: { api_key_id: 'kid', private_key: 'not a key' } }),
    (e: unknown) =>
      e instanceof AppError && e.code === 'validation_error' && !e.message.includes('not a key'),
  );
});
