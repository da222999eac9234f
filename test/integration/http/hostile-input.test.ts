// Client input that once answered 500 or was reflected (issue 31 items 6, 7, 11): per-request private keys of the
// right shape outside secp256k1's range, lone UTF-16 surrogates anywhere in a request, and a secret pasted as a
// credential field's name. Each is a 400 in the contract's shape that repeats nothing of what was sent, and the
// logs hold no trace of the key either (no library error text, which printed it as a decimal).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CatalogueServer, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import type { TestRequestInit, TestResponse } from '../../support/server.js';

let cat: CatalogueServer;
let key: string;

before(async () => {
  cat = await startCatalogueServer(5);
  key = (await cat.server.runtime.keys.create({ name: 'hostile', tier: 'pro' })).key;
});
after(async () => {
  await cat?.stop();
});

const call = (path: string, init: TestRequestInit = {}): Promise<TestResponse> =>
  cat.server.request(path, { key, ...init });
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

/** secp256k1's group order n: keys must be in [1, n-1]. */
const ORDER = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
const OUT_OF_RANGE = ['0'.repeat(64), `0x${'0'.repeat(64)}`, 'f'.repeat(64), `0x${'F'.repeat(64)}`, ORDER];

/** Nothing of `secret` in the text, neither as sent nor as the decimal a big-integer library prints. */
function assertNotEchoed(text: string, secret: string): void {
  const hex = secret.replace(/^0x/i, '');
  assert.ok(!text.toLowerCase().includes(hex.toLowerCase()), `echoed: ${text}`);
  const decimal = BigInt(`0x${hex}`).toString();
  if (decimal.length > 6) assert.ok(!text.includes(decimal.slice(0, 6)), `echoed as decimal: ${text}`);
}

describe('a per-request private key outside the secp256k1 range', () => {
  for (const exchange of ['polymarket', 'predictfun'] as const) {
    for (const pk of OUT_OF_RANGE) {
      test(`${exchange} ${pk.slice(0, 6)}…: 400 on a private route, a fixed message on GET /ping`, async () => {
        const headers = { 'x-exchange-credentials': b64({ private_key: pk }) };
        const logsBefore = cat.server.logs.length;
        const paths = [`/api/v1/balance?exchange=${exchange}`, `/api/v1/orders?exchange=${exchange}`];
        for (const path of paths) {
          const res = await call(path, { headers });
          const body = assertError(res, 400, 'validation_error');
          assert.match(String(body.error), /credentials\.private_key/);
          assertNotEchoed(res.text, pk);
        }
        const ping = await call(`/api/v1/ping?exchange=${exchange}`, { headers });
        assert.equal(ping.status, 200, ping.text);
        const [result] = ping.body as Array<{ authenticated: boolean; message: string }>;
        assert.equal(result?.authenticated, false);
        assert.match(result?.message ?? '', /credentials\.private_key is not a valid secp256k1 private key/);
        assertNotEchoed(ping.text, pk);
        assertNotEchoed(cat.server.logs.slice(logsBefore).join(''), pk);
      });
    }
  }

  test('onboarding refuses the same keys with the same check', async () => {
    for (const pk of OUT_OF_RANGE) {
      const res = await call('/api/v1/onboard', {
        method: 'POST',
        body: { exchange: 'polymarket', mode: 'self', private_key: pk },
      });
      assertError(res, 400, 'validation_error');
      assertNotEchoed(res.text, pk);
    }
  });
});

describe('lone UTF-16 surrogates', () => {
  const order = { market_id: 'KX-1', outcome: 'yes', side: 'buy', price: 0.5, size: 1 };
  const cases: Array<[string, string, TestRequestInit]> = [
    [
      'a body string (market_id)',
      '/api/v1/orders?exchange=kalshi',
      { method: 'POST', body: { ...order, market_id: 'a\ud800b' } },
    ],
    [
      'a low surrogate alone',
      '/api/v1/orders?exchange=kalshi',
      { method: 'POST', body: { ...order, market_id: '\udfff' } },
    ],
    [
      'a body field name',
      '/api/v1/orders?exchange=kalshi',
      { method: 'POST', body: { ...order, '\ud83d': 1 } },
    ],
    [
      'a nested credential',
      '/api/v1/orders?exchange=kalshi',
      { method: 'POST', body: { ...order, credentials: { api_key_id: '\ud800' } } },
    ],
    [
      'an onboarding credential field',
      '/api/v1/onboard',
      { method: 'POST', body: { exchange: 'kalshi', mode: 'self', api_key_id: 'x\udc00' } },
    ],
  ];
  for (const [what, path, init] of cases) {
    test(`in ${what}: 400 naming where`, async () => {
      const res = await call(path, init);
      const body = assertError(res, 400, 'validation_error');
      assert.match(String(body.error), /UTF-16|surrogate/);
    });
  }

  test('percent-encoded in a path or query (the UTF-8 of a surrogate, which no decoder turns into one): no 500', async () => {
    for (const path of [
      '/api/v1/orders/%ED%A0%80?exchange=kalshi',
      '/api/v1/markets?search=%ED%A0%80',
      '/api/v1/orderbook?exchange=kalshi&market_id=%ED%BF%BF&outcome=yes',
    ]) {
      const res = await call(path);
      assert.ok(res.status < 500, `${path}: ${res.status} ${res.text}`);
    }
  });

  test('a well-formed pair (an emoji) is still accepted as text', async () => {
    const res = await call('/api/v1/markets?search=%F0%9F%98%80');
    assert.equal(res.status, 200, res.text);
  });
});

describe('a secret pasted as a credential field name', () => {
  const pasted = `sk_live_${'9'.repeat(40)}`;

  // Credentials in a body (POST /orders) go through the same check as the header's (vault/per-request-credentials.ts).
  test('X-Exchange-Credentials: 400 that does not repeat the name', async () => {
    const res = await call('/api/v1/balance?exchange=kalshi', {
      headers: { 'x-exchange-credentials': b64({ api_key_id: 'id', private_key: 'pem', [pasted]: 'x' }) },
    });
    const body = assertError(res, 400, 'validation_error');
    assert.ok(!res.text.includes(pasted), res.text);
    assert.match(String(body.error), /not kalshi credential fields/);
  });

  test('POST /onboard: 400 that does not repeat the name', async () => {
    const res = await call('/api/v1/onboard', {
      method: 'POST',
      body: { exchange: 'kalshi', mode: 'self', api_key_id: 'id', private_key: 'pem', [pasted]: 'x' },
    });
    assertError(res, 400, 'validation_error');
    assert.ok(!res.text.includes(pasted), res.text);
  });
});
