// Kalshi request signing: the headers signed on the thread pool carry an RSA-PSS (SHA-256, digest-length salt)
// signature over timestamp + METHOD + path without its query, which the key's public half verifies; each call
// signs afresh (PSS is randomised, and a retry needs a new timestamp).
import assert from 'node:assert/strict';
import { constants, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { test } from 'node:test';
import { authHeaders, kalshiKey, signedHeaders } from '../../../../src/venues/kalshi/auth.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const key = kalshiKey({ credentials: { api_key_id: 'key-1', private_key: pem } });
const publicKey = createPublicKey(privateKey);

function verifies(headers: Record<string, string>, message: string): boolean {
  return verify(
    'sha256',
    Buffer.from(message),
    {
      key: publicKey,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
    },
    Buffer.from(headers['KALSHI-ACCESS-SIGNATURE'] ?? '', 'base64'),
  );
}

test('headers signed on the thread pool verify over timestamp + method + path, without the query', async () => {
  const path = '/trade-api/v2/portfolio/orders?limit=5';
  const signed = await signedHeaders(key, 'GET', path, 1_700_000_000_000);
  assert.equal(signed['KALSHI-ACCESS-KEY'], 'key-1');
  assert.equal(signed['KALSHI-ACCESS-TIMESTAMP'], '1700000000000');
  assert.ok(verifies(signed, '1700000000000GET/trade-api/v2/portfolio/orders'));
  assert.ok(!verifies(signed, '1700000000000GET/trade-api/v2/portfolio/orders?limit=5'));
  assert.ok(!verifies(signed, '1700000000000POST/trade-api/v2/portfolio/orders'));
  // The event-loop variant signs the same message.
  assert.ok(
    verifies(
      authHeaders(key, 'GET', path, 1_700_000_000_000),
      '1700000000000GET/trade-api/v2/portfolio/orders',
    ),
  );
  const again = await signedHeaders(key, 'GET', path, 1_700_000_000_000);
  assert.notEqual(again['KALSHI-ACCESS-SIGNATURE'], signed['KALSHI-ACCESS-SIGNATURE']);
});
