// Limitless order amounts and EIP-712 signatures: ours (viem) against the official SDK's own OrderBuilder and
// OrderSigner (ethers) on the SDK's documented examples and on random orders. A shared misreading of the domain,
// the field order or the rounding would make one side disagree here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OrderBuilder, OrderSigner, Side } from '@limitless-exchange/sdk';
import { Wallet } from 'ethers';
import fc from 'fast-check';
import { AppError } from '../../../../src/errors/app-error.js';
import {
  addressOfKey,
  LIMITLESS_CHAIN_ID,
  type LimitlessUnsignedOrder,
  limitAmounts,
  limitlessOrderHash,
  signLimitlessOrder,
} from '../../../../src/venues/limitless/signing.js';
import { assertProperty } from '../../../support/property.js';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as const;
const EXCHANGE = '0xa4409D988CA2218d956BeEFD3874100F444f0DC3';
const TOKEN = '19633204485790857949828516737993423758628930235371629943999544859324645414627';

function sdkOrder(side: 'buy' | 'sell', price: number, size: number) {
  const { address } = addressOfKey(KEY);
  return new OrderBuilder(address, 300, 0.001).buildOrder({
    tokenId: TOKEN,
    price,
    size,
    side: side === 'buy' ? Side.BUY : Side.SELL,
  });
}

test('limit amounts match the SDK builder on its documented examples (0.38 × 22.123, 0.65 × 10, 0.75 × 5)', () => {
  for (const [side, price, size] of [
    ['buy', 0.38, 22.123],
    ['buy', 0.65, 10],
    ['sell', 0.75, 5],
    ['sell', 0.001, 0.001],
    ['buy', 0.999, 1234.567],
  ] as const) {
    const sdk = sdkOrder(side, price, size);
    const ours = limitAmounts(side, price, size);
    assert.equal(Number(ours.makerAmount), sdk.makerAmount, `${side} ${price} × ${size} maker`);
    assert.equal(Number(ours.takerAmount), sdk.takerAmount, `${side} ${price} × ${size} taker`);
  }
});

test('limit amounts match the SDK builder on random tick-aligned orders', () => {
  assertProperty(
    fc.property(
      fc.constantFrom('buy' as const, 'sell' as const),
      fc.integer({ min: 1, max: 999 }),
      fc.integer({ min: 1, max: 10_000_000 }),
      (side, priceTicks, sizeThousandths) => {
        const price = priceTicks / 1000;
        const size = sizeThousandths / 1000;
        const sdk = sdkOrder(side, price, size);
        const ours = limitAmounts(side, price, size);
        assert.equal(Number(ours.makerAmount), sdk.makerAmount);
        assert.equal(Number(ours.takerAmount), sdk.takerAmount);
      },
    ),
    { examples: [] },
  );
});

test('a price off the 0.001 tick or a size off the 0.001-share step is refused, as the SDK refuses it', () => {
  for (const [price, size] of [
    [0.3805, 10],
    [0.38, 10.0005],
  ] as const) {
    assert.throws(() => sdkOrder('buy', price, size));
    assert.throws(
      () => limitAmounts('buy', price, size),
      (e) => e instanceof AppError && e.code === 'validation_error',
    );
  }
});

test('our viem signature equals the SDK OrderSigner signature (ethers) on the same orders', async () => {
  const wallet = new Wallet(KEY);
  const signer = new OrderSigner(wallet);
  const samples = fc.sample(
    fc.record({
      side: fc.constantFrom('buy' as const, 'sell' as const),
      ticks: fc.integer({ min: 1, max: 999 }),
      size: fc.integer({ min: 1, max: 5_000_000 }),
      nonce: fc.integer({ min: 0, max: 1000 }),
      expiration: fc.constantFrom('0', '1893456000'),
    }),
    { numRuns: 12, seed: 35 },
  );
  for (const s of samples) {
    const sdk = sdkOrder(s.side, s.ticks / 1000, s.size / 1000);
    const unsigned: LimitlessUnsignedOrder = {
      ...sdk,
      nonce: s.nonce,
      expiration: s.expiration,
      side: s.side === 'buy' ? 0 : 1,
      signatureType: 0,
      price: s.ticks / 1000,
    };
    const theirs = await signer.signOrder(
      { ...sdk, nonce: s.nonce, expiration: s.expiration },
      { chainId: LIMITLESS_CHAIN_ID, contractAddress: EXCHANGE },
    );
    const ours = await signLimitlessOrder(KEY, unsigned, EXCHANGE);
    assert.equal(ours.signature, theirs);
    assert.match(limitlessOrderHash(unsigned, EXCHANGE), /^0x[0-9a-f]{64}$/);
  }
});

test('a malformed private key is a 400, never a crash', () => {
  for (const bad of ['', '0x12', `0x${'g'.repeat(64)}`, `0x${'0'.repeat(64)}`]) {
    assert.throws(
      () => addressOfKey(bad),
      (e) => e instanceof AppError && e.code === 'validation_error',
    );
  }
});
