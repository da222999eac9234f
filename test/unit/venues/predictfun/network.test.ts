// Which Predict.fun network a REST base URL names, and what follows from it: mainnet wants our API key before any
// call goes out, the testnet (BNB testnet, chain 97) serves without one, any other host is asked without a key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PredictfunClient, predictfunNetwork } from '../../../../src/venues/predictfun/client.js';

test('the mainnet host requires a key; the testnet host does not and is chain 97; other hosts are not known to', () => {
  assert.deepEqual(predictfunNetwork('https://api.predict.fun'), { keyRequired: true, chainId: 56 });
  assert.deepEqual(predictfunNetwork('https://API.predict.fun/'), { keyRequired: true, chainId: 56 });
  assert.deepEqual(predictfunNetwork('https://api-testnet.predict.fun'), { keyRequired: false, chainId: 97 });
  assert.deepEqual(predictfunNetwork('http://127.0.0.1:4000'), { keyRequired: false, chainId: 56 });
  assert.deepEqual(predictfunNetwork('https://api.predict.fun.example.org'), {
    keyRequired: false,
    chainId: 56,
  });
});

test('a client is usable without a key except on mainnet; an explicit chain id wins over the host', async () => {
  const base = {
    rpcUrl: 'http://127.0.0.1:1',
    collateralToken: '0x0',
    pollIntervalMs: 1000,
    timeoutMs: 1000,
  };
  const clients = [
    new PredictfunClient({ ...base, restUrl: 'https://api.predict.fun' }),
    new PredictfunClient({ ...base, restUrl: 'https://api.predict.fun', apiKey: 'k' }),
    new PredictfunClient({ ...base, restUrl: 'https://api-testnet.predict.fun' }),
    new PredictfunClient({ ...base, restUrl: 'https://api-testnet.predict.fun', chainId: 56 }),
  ];
  try {
    assert.deepEqual(
      clients.map((c) => [c.usable, c.chainId]),
      [
        [false, 56],
        [true, 56],
        [true, 97],
        [true, 56],
      ],
    );
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
});
