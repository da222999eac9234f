// Polymarket L2 HMAC and V2 order signing, checked against the official SDK's own implementations (known vectors
// computed by @polymarket/clob-client-v2 in the same run) and against signature recovery.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createL2Headers } from '@polymarket/clob-client-v2';
import { recoverAddress } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { AppError } from '../../../../src/errors/app-error.js';
import {
  apiCredsFromSession,
  hmacSignature,
  l2Headers,
  signerFromSession,
} from '../../../../src/venues/polymarket/auth.js';
import {
  checkOrderTerms,
  exchangeAddress,
  signOrder,
  tickSizeKey,
} from '../../../../src/venues/polymarket/signing.js';
import type { VenueSession } from '../../../../src/venues/port.js';

const session = (credentials: Record<string, string>): VenueSession => ({
  exchange: 'polymarket',
  credentials,
  source: 'per_request',
});

test('L2 headers equal the official SDK headers for the same request and timestamp', async () => {
  const signer = signerFromSession(session({ private_key: generatePrivateKey() }));
  const creds = {
    key: 'f4f247b7-4ac7-ff29-a152-04fda0a8755a',
    secret: 'dGVzdC1zZWNyZXQtdmFsdWUtMzItYnl0ZXMtbG9uZyE_',
    passphrase: 'p',
  };
  const body = '{"orderID":"0xabc"}';
  const ours = l2Headers(signer.address, creds, 'DELETE', '/order', body, 1_795_000_000);
  const sdk = await createL2Headers(
    signer.wallet as never,
    creds,
    { method: 'DELETE', requestPath: '/order', body },
    1_795_000_000,
  );
  assert.deepEqual(ours, Object.fromEntries(Object.entries(sdk).map(([k, v]) => [k, String(v)])));
  // Without a body the message is just timestamp + method + path.
  const get = l2Headers(signer.address, creds, 'GET', '/data/orders', undefined, 1_795_000_001);
  const sdkGet = await createL2Headers(
    signer.wallet as never,
    creds,
    { method: 'GET', requestPath: '/data/orders' },
    1_795_000_001,
  );
  assert.equal(get.POLY_SIGNATURE, sdkGet.POLY_SIGNATURE);
  assert.match(hmacSignature(creds.secret, 'x'), /^[A-Za-z0-9_-]+=*$/, 'url-safe alphabet');
});

test('session credentials: a bad private key or a partial CLOB triple is a 400 naming fields, never values', () => {
  for (const bad of ['0x1234', 'z'.repeat(64), '']) {
    assert.throws(
      () => signerFromSession(session({ private_key: bad })),
      (e: unknown) => e instanceof AppError && e.status === 400 && !e.message.includes(bad || '\u0000'),
    );
  }
  const key = generatePrivateKey();
  assert.equal(apiCredsFromSession(session({ private_key: key })), null);
  assert.throws(() => apiCredsFromSession(session({ private_key: key, clob_api_key: 'k' })), AppError);
  assert.deepEqual(
    apiCredsFromSession(
      session({ private_key: key, clob_api_key: 'k', clob_api_secret: 's', clob_api_passphrase: 'p' }),
    ),
    {
      key: 'k',
      secret: 's',
      passphrase: 'p',
    },
  );
  // Without the 0x prefix the key is accepted as well.
  assert.equal(
    signerFromSession(session({ private_key: key.slice(2) })).address,
    signerFromSession(session({ private_key: key })).address,
  );
});

test('a signed V2 order: amounts by the tick rules, the JSON the CLOB expects, and a hash the signature recovers to', async () => {
  const signer = signerFromSession(session({ private_key: generatePrivateKey() }));
  for (const negRisk of [false, true]) {
    const signed = await signOrder(signer, 137, {
      tokenId: '71321045679252212594626385532706912750332728571942532289631379312455583992563',
      price: 0.55,
      size: 10,
      side: 'buy',
      tickSize: 0.01,
      negRisk,
      orderType: 'GTC',
      owner: 'api-key-uuid',
    });
    const body = JSON.parse(signed.body) as {
      order: Record<string, unknown>;
      owner: string;
      orderType: string;
    };
    assert.equal(body.owner, 'api-key-uuid');
    assert.equal(body.orderType, 'GTC');
    assert.equal(body.order.makerAmount, '5500000');
    assert.equal(body.order.takerAmount, '10000000');
    assert.equal(body.order.side, 'BUY');
    assert.equal(body.order.signatureType, 0);
    assert.equal(typeof body.order.salt, 'number');
    assert.equal(body.order.expiration, '0');
    const recovered = await recoverAddress({
      hash: signed.orderHash,
      signature: body.order.signature as `0x${string}`,
    });
    assert.equal(recovered, signer.address, 'the hash we report is the digest the wallet signed');
  }
  const sell = await signOrder(signer, 137, {
    tokenId: '1',
    price: 0.123,
    size: 7.5,
    side: 'sell',
    tickSize: 0.001,
    negRisk: false,
    orderType: 'GTD',
    expiration: 1_900_000_000,
    owner: 'k',
  });
  const order = (JSON.parse(sell.body) as { order: Record<string, unknown> }).order;
  assert.equal(order.makerAmount, '7500000');
  assert.equal(order.takerAmount, '922500');
  assert.equal(order.expiration, '1900000000');
  assert.notEqual(exchangeAddress(137, true), exchangeAddress(137, false));
});

test('order terms: price on the tick and inside (tick, 1 − tick), sizes to 2 decimals', () => {
  assert.doesNotThrow(() => checkOrderTerms(0.01, 5, 0.01));
  assert.doesNotThrow(() => checkOrderTerms(0.99, 5.25, 0.01));
  assert.doesNotThrow(() => checkOrderTerms(0.123, 5, 0.001));
  for (const [price, size, tick] of [
    [0.555, 5, 0.01],
    [0, 5, 0.01],
    [1, 5, 0.01],
    [0.5, 5.123, 0.01],
  ] as const) {
    assert.throws(
      () => checkOrderTerms(price, size, tick),
      (e: unknown) => e instanceof AppError && e.status === 400,
    );
  }
  assert.equal(tickSizeKey(0.001), '0.001');
  assert.throws(() => tickSizeKey(0.02), AppError);
});
