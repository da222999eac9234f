// Predict.fun orders: our viem order (signing.ts) against the official SDK's OrderBuilder as the oracle — its
// getLimitOrderAmounts, buildOrder, buildTypedData, buildTypedDataHash and signTypedDataOrder — for EOAs and
// Predict (Kernel) accounts, on both BNB chains and all four exchanges, so the adapter is proven right on its own
// and not only consistent with the simulator (which verifies with the SDK too). ECDSA is deterministic (RFC 6979).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AddressesByChainId, ChainId, OrderBuilder, Side } from '@predictdotfun/sdk';
import { Wallet } from 'ethers';
import fc from 'fast-check';
import { AppError } from '../../../../src/errors/app-error.js';
import { credentialsFrom } from '../../../../src/venues/predictfun/auth.js';
import {
  exchangeAddress,
  orderAmounts,
  retainSignificantDigits,
  signOrder,
} from '../../../../src/venues/predictfun/signing.js';
import { assertProperty } from '../../../support/property.js';

const KEY = Wallet.createRandom().privateKey;
const ACCOUNT = '0x1234567890AbcdEF1234567890aBcdef12345678';
const TOKEN = '21794117812663370870023674333212505719146120894214542748572818978538793884650';

function builder(chainId: ChainId, predictAccount?: string): OrderBuilder {
  // The constructor, not make(): make() with a Predict account asks a BNB Chain node for the account's owner.
  return new OrderBuilder(
    chainId,
    10n ** 18n,
    AddressesByChainId[chainId],
    () => '1',
    console as never,
    new Wallet(KEY) as never,
    predictAccount,
  );
}

const session = (credentials: Record<string, string>) =>
  credentialsFrom({ exchange: 'predictfun', credentials, source: 'per_request' });

test('the exchange addresses are the SDK constants on both chains', () => {
  for (const chainId of [ChainId.BnbMainnet, ChainId.BnbTestnet]) {
    const a = AddressesByChainId[chainId];
    assert.equal(exchangeAddress(chainId, false, false), a.CTF_EXCHANGE);
    assert.equal(exchangeAddress(chainId, true, false), a.NEG_RISK_CTF_EXCHANGE);
    assert.equal(exchangeAddress(chainId, false, true), a.YIELD_BEARING_CTF_EXCHANGE);
    assert.equal(exchangeAddress(chainId, true, true), a.YIELD_BEARING_NEG_RISK_CTF_EXCHANGE);
  }
});

test("limit amounts equal the SDK's getLimitOrderAmounts (the README's 0.4 × 10 and random ones)", () => {
  const sdk = builder(ChainId.BnbMainnet);
  const check = (side: 'buy' | 'sell', price: number, size: number) => {
    const ours = orderAmounts(side, price, size);
    const theirs = sdk.getLimitOrderAmounts({
      side: side === 'buy' ? Side.BUY : Side.SELL,
      pricePerShareWei: ours.pricePerShareWei,
      quantityWei: ours.quantityWei,
    });
    assert.equal(ours.makerAmount, theirs.makerAmount);
    assert.equal(ours.takerAmount, theirs.takerAmount);
    assert.equal(ours.pricePerShareWei, theirs.pricePerShare);
  };
  check('buy', 0.4, 10);
  check('sell', 0.4, 10);
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 999 }),
      fc.integer({ min: 1, max: 99_999 }),
      fc.boolean(),
      (p, q, buy) => check(buy ? 'buy' : 'sell', p / 1000, q / 100),
    ),
    { numRuns: 200, examples: [] },
  );
});

test('an order that would lose digits to the venue is refused, not changed', () => {
  assert.equal(retainSignificantDigits(123_456n, 3), 123_000n);
  for (const [price, size] of [
    [0.1234, 10],
    [0.5, 1.234567],
    [0.5, 0.001],
  ] as const) {
    assert.throws(
      () => orderAmounts('buy', price, size),
      (e) => e instanceof AppError && e.code === 'validation_error',
    );
  }
});

test('EOA and Predict-account orders hash and sign exactly as the SDK, on every exchange and both chains', async () => {
  await assertProperty(
    fc.asyncProperty(
      fc.constantFrom(ChainId.BnbMainnet, ChainId.BnbTestnet),
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
      fc.integer({ min: 1, max: 999 }),
      fc.integer({ min: 1, max: 99_999 }),
      fc.integer({ min: 0, max: 2_147_483_647 }),
      async (chainId, predict, negRisk, yieldBearing, buy, p, q, salt) => {
        const sdk = builder(chainId, predict ? ACCOUNT : undefined);
        const creds = session(
          predict ? { private_key: KEY, predict_account: ACCOUNT } : { private_key: KEY },
        );
        const side = buy ? 'buy' : 'sell';
        const amounts = orderAmounts(side, p / 1000, q / 100);
        const ours = await signOrder(creds, chainId, {
          tokenId: TOKEN,
          side,
          amounts,
          feeRateBps: 200,
          expiration: 4_102_444_800,
          isNegRisk: negRisk,
          isYieldBearing: yieldBearing,
          salt: BigInt(salt),
        });
        const order = sdk.buildOrder('LIMIT', {
          side: buy ? Side.BUY : Side.SELL,
          tokenId: TOKEN,
          makerAmount: amounts.makerAmount,
          takerAmount: amounts.takerAmount,
          feeRateBps: 200,
          nonce: 0n,
          salt: BigInt(salt),
          expiresAt: new Date(4_102_444_800_000),
        });
        const typed = sdk.buildTypedData(order, { isNegRisk: negRisk, isYieldBearing: yieldBearing });
        const signed = await sdk.signTypedDataOrder(typed);
        const { hash, signature, ...struct } = ours;
        assert.deepEqual({ ...struct }, { ...order });
        assert.equal(hash, sdk.buildTypedDataHash(typed));
        assert.equal(signature.toLowerCase(), signed.signature.toLowerCase());
      },
    ),
    { numRuns: 40, examples: [] },
  );
});
