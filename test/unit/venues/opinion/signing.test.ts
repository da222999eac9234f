// Our Opinion order signing (viem, src/venues/opinion/signing.ts) held equal to the official SDK's
// (@opinion-labs/opinion-clob-sdk: its amount calculation, OrderBuilder and Signer) on the SDK's own inputs: the
// same amounts, order hash and signature for each vector, and the simulator's ethers check accepts both.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  calculateOrderAmounts,
  OrderBuilder,
  OrderSide,
  SignatureType,
  Signer,
  safeAmountToWei,
} from '@opinion-labs/opinion-clob-sdk';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { recoverOrderSigner } from '../../../../sim/opinion/order-signature.js';
import { AppError } from '../../../../src/errors/app-error.js';
import { orderAmounts, signOpinionOrder } from '../../../../src/venues/opinion/signing.js';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as Hex;
const SAFE = '0x1111111111111111111111111111111111111111' as Hex;
const EXCHANGE = '0x5F45344126D6488025B0b84A3A8189F2487a7246' as Hex;
const USDT = '0x55d398326f99059fF775485246999027B3197955' as Hex;
const TOKEN = '72936048731589292555781174533757608024096898681344338816447372274344589246891';

/** Vectors: side, price, shares; the SDK's limit path takes shares as makerAmountInBaseToken. */
const VECTORS: Array<['buy' | 'sell', number, number]> = [
  ['buy', 0.5, 10],
  ['buy', 0.01, 5],
  ['buy', 0.123456, 3],
  ['sell', 0.77, 12.5],
  ['sell', 0.999999, 1],
  ['buy', 0.333, 7],
];

/** What the SDK's placeOrder computes for a limit order of `shares` (client.ts calculateMakerAmount + amounts). */
function sdkAmounts(side: 'buy' | 'sell', price: number, shares: number) {
  const sdkSide = side === 'buy' ? OrderSide.BUY : OrderSide.SELL;
  const maker = side === 'buy' ? shares * price : shares;
  const { recalculatedMakerAmount, takerAmount } = calculateOrderAmounts(
    price,
    safeAmountToWei(maker, 18),
    sdkSide,
    18,
  );
  return { makerAmount: recalculatedMakerAmount, takerAmount, sdkSide };
}

test('amounts, order hash and signature equal the official SDK on its vectors', async () => {
  const signerAddress = privateKeyToAccount(KEY).address;
  for (const [side, price, size] of VECTORS) {
    const label = `${side} ${size} @ ${price}`;
    const sdk = sdkAmounts(side, price, size);
    const ours = orderAmounts(side, price, size, 18);
    assert.equal(ours.makerAmount, sdk.makerAmount, `${label}: maker amount`);
    assert.equal(ours.takerAmount, sdk.takerAmount, `${label}: taker amount`);

    const salt = 123456789n + BigInt(Math.round(price * 1e6));
    const builder = new OrderBuilder(EXCHANGE, 56, new Signer(KEY), () => salt);
    const signed = await builder.buildSignedOrder({
      maker: SAFE,
      taker: '0x0000000000000000000000000000000000000000',
      tokenId: TOKEN,
      makerAmount: sdk.makerAmount,
      takerAmount: sdk.takerAmount,
      side: sdk.sdkSide,
      feeRateBps: '0',
      signatureType: SignatureType.POLY_GNOSIS_SAFE,
      signer: signerAddress,
      nonce: '0',
      expiration: '0',
    });
    const mine = await signOpinionOrder(KEY, {
      marketId: 42,
      tokenId: TOKEN,
      side,
      price,
      size,
      maker: SAFE,
      exchange: EXCHANGE,
      quoteToken: USDT,
      decimals: 18,
      salt,
      timestamp: 1_700_000_000,
    });
    assert.equal(mine.signature, signed.signature, `${label}: signature`);
    assert.deepEqual(mine.struct, signed.order, `${label}: the signed struct`);
    const body = JSON.parse(mine.body) as Record<string, unknown>;
    assert.equal(body.makerAmount, signed.order.makerAmount.toString());
    assert.equal(body.side, String(signed.order.side));
    assert.equal(body.signatureType, '2');
    // The simulator's independent check (ethers) recovers the signer from both.
    assert.equal(recoverOrderSigner(body, EXCHANGE), signerAddress, `${label}: ethers recovers the signer`);
  }
});

test('sizes and prices the exchange cannot carry are refused before signing', () => {
  assert.throws(() => orderAmounts('buy', 0.1234567, 10, 18), AppError);
  assert.throws(() => orderAmounts('buy', 0.5, 0.5, 18), AppError);
  assert.throws(() => orderAmounts('sell', 1, 10, 18), AppError);
  assert.throws(() => orderAmounts('buy', 0.5, 1.0000000000001, 18), AppError);
});
