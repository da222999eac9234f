import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REDACTED, redactBody } from '../../../src/cli/record/redact.js';

test('secret-named fields lose their values at any depth; ids, prices and addresses are kept', () => {
  const body = JSON.stringify({
    apiKey: 'k-1',
    secret: 's-1',
    passphrase: 'p-1',
    creds: [{ api_key: 'k-2', API_SECRET: 's-2', private_key: '0xabc', access_token: 't', jwt: 'j' }],
    order: { signature: '0xsig', token_id: '123', tokenId: '456', price: '0.5', maker: '0xdef' },
    nothing_secret: null,
    key_count: 3,
  });
  assert.deepEqual(redactBody(body), {
    apiKey: REDACTED,
    secret: REDACTED,
    passphrase: REDACTED,
    creds: [
      {
        api_key: REDACTED,
        API_SECRET: REDACTED,
        private_key: REDACTED,
        access_token: REDACTED,
        jwt: REDACTED,
      },
    ],
    order: { signature: REDACTED, token_id: '123', tokenId: '456', price: '0.5', maker: '0xdef' },
    nothing_secret: null,
    key_count: 3,
  });
});

test('a body that is not JSON is not kept (it may be a bare token), only its length', () => {
  assert.deepEqual(redactBody('eyJhbGciOi.secret.token'), { not_json: true, length: 23 });
});
