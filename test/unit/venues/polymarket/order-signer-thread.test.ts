// Order signatures on the signing thread are viem's own: the same bytes as signing on the main thread (secp256k1
// signatures are deterministic, RFC 6979), and still made, on the main thread, once the thread has stopped, also
// for a signature it had been asked for and not yet answered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recoverTypedDataAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount, signTypedData } from 'viem/accounts';
import {
  OrderSignerThread,
  type OrderTypedData,
} from '../../../../src/venues/polymarket/order-signer-thread.js';

const typedData: OrderTypedData = {
  domain: {
    name: 'Polymarket CTF Exchange',
    version: '2',
    chainId: 137,
    verifyingContract: '0xE111180000d2663C0091e4f400237545B87B996B',
  },
  types: {
    Order: [
      { name: 'salt', type: 'uint256' },
      { name: 'maker', type: 'address' },
      { name: 'side', type: 'uint8' },
    ],
  },
  primaryType: 'Order',
  message: { salt: 123456789n, maker: '0x0000000000000000000000000000000000000001', side: 0 },
};

test('the signing thread signs as viem does on the main thread, and signs on after it stopped', async () => {
  const privateKey = generatePrivateKey();
  const expected = await signTypedData({ privateKey, ...typedData } as never);
  const thread = new OrderSignerThread();
  try {
    assert.equal(await thread.sign(privateKey, typedData), expected);
    const signer = await recoverTypedDataAddress({ ...typedData, signature: expected } as never);
    assert.equal(signer, privateKeyToAccount(privateKey).address);
    // Asked, then stopped before answering: signed on the main thread instead.
    const unanswered = thread.sign(privateKey, typedData);
    await thread.close();
    assert.equal(await unanswered, expected);
    assert.equal(await thread.sign(privateKey, typedData), expected);
  } finally {
    await thread.close();
  }
});
