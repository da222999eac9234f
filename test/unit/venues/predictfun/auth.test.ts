// Predict.fun sign-in signatures against the official SDK and ethers as known-answer oracles (ECDSA signatures are
// deterministic, RFC 6979): an EOA's personal_sign, and a Predict account's Kernel-wrapped signature as the SDK's
// signPredictAccountMessage builds it — live, and against vectors the SDK produced once (fixtures), so the adapter
// is proven right on its own, not only consistent with the simulator. Plus the credential checks, whose messages
// never echo a value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AddressesByChainId, ChainId, OrderBuilder } from '@predictdotfun/sdk';
import { Wallet } from 'ethers';
import fc from 'fast-check';
import { type Hex, hashMessage } from 'viem';
import { AppError } from '../../../../src/errors/app-error.js';
import type { VenueSession } from '../../../../src/venues/port.js';
import {
  credentialsFrom,
  ECDSA_VALIDATOR,
  kernelWrappedHash,
  signAuthMessage,
  signerAddress,
} from '../../../../src/venues/predictfun/auth.js';
import { loadFixture } from '../../../support/fixtures.js';
import { assertProperty } from '../../../support/property.js';

const session = (credentials: Record<string, string>): VenueSession => ({
  exchange: 'predictfun',
  credentials,
  source: 'per_request',
});

// A throwaway key per run: the two implementations are compared, no fixed vector is needed.
const KEY = Wallet.createRandom().privateKey;
const ACCOUNT = '0x1234567890AbcdEF1234567890aBcdef12345678';

test('the ECDSA validator address is the SDK constant on both BNB chains', () => {
  assert.equal(AddressesByChainId[ChainId.BnbMainnet].ECDSA_VALIDATOR, ECDSA_VALIDATOR);
  assert.equal(AddressesByChainId[ChainId.BnbTestnet].ECDSA_VALIDATOR, ECDSA_VALIDATOR);
});

test('an EOA signs the auth message exactly as ethers personal_sign does', async () => {
  const wallet = new Wallet(KEY);
  await assertProperty(
    fc.asyncProperty(fc.string({ minLength: 1, maxLength: 200 }), async (message) => {
      const creds = credentialsFrom(session({ private_key: KEY }));
      assert.equal(await signAuthMessage(creds, message, 56), await wallet.signMessage(message));
    }),
    { numRuns: 25, examples: [] },
  );
  assert.equal(signerAddress(credentialsFrom(session({ private_key: KEY.slice(2) }))), wallet.address);
});

test('a Predict account signs exactly as the official SDK signPredictAccountMessage, on mainnet and testnet', async () => {
  for (const chainId of [ChainId.BnbMainnet, ChainId.BnbTestnet]) {
    const builder = new OrderBuilder(
      chainId,
      10n ** 18n,
      AddressesByChainId[chainId],
      () => '1',
      console as never,
      new Wallet(KEY) as never,
      ACCOUNT,
    );
    const creds = credentialsFrom(session({ private_key: KEY, predict_account: ACCOUNT.toLowerCase() }));
    assert.equal(signerAddress(creds), ACCOUNT, 'signs in as the Predict account, checksummed');
    for (const message of ['Sign in to predict.fun', 'nonce: 4f1c\nline two', '∑ unicode ✓']) {
      assert.equal(
        (await signAuthMessage(creds, message, chainId)).toLowerCase(),
        (await builder.signPredictAccountMessage(message)).toLowerCase(),
      );
    }
  }
});

interface SdkVectors {
  private_key: Hex;
  owner: string;
  predict_account: Hex;
  message: string;
  vectors: Array<{ chain_id: number; kernel_digest: Hex; signature: Hex }>;
}

test('a Predict account sign-in reproduces the vectors the official SDK produced, digest and signature', async () => {
  const v = loadFixture('predictfun', 'sdk_kernel_sign_in_vectors.json') as SdkVectors;
  const creds = credentialsFrom(session({ private_key: v.private_key, predict_account: v.predict_account }));
  assert.equal(new Wallet(v.private_key).address, v.owner);
  assert.deepEqual(
    v.vectors.map((x) => x.chain_id),
    [56, 97],
  );
  for (const { chain_id: chainId, kernel_digest: digest, signature } of v.vectors) {
    assert.equal(kernelWrappedHash(hashMessage(v.message), v.predict_account, chainId), digest);
    assert.equal((await signAuthMessage(creds, v.message, chainId)).toLowerCase(), signature);
  }
});

test('credentials: a key or a JWT is required; malformed fields are refused without echoing them', () => {
  const bad: Array<Record<string, string>> = [
    {},
    { private_key: 'not-hex-secret-value' },
    { private_key: KEY, predict_account: 'nope-account' },
    { predict_account: ACCOUNT },
    { jwt: 'not a jwt secret' },
  ];
  for (const credentials of bad) {
    try {
      credentialsFrom(session(credentials));
      assert.fail(`accepted ${Object.keys(credentials).join(',')}`);
    } catch (error) {
      assert.ok(error instanceof AppError && error.code === 'validation_error');
      for (const value of Object.values(credentials)) assert.ok(!error.message.includes(value));
      for (const m of error.validationErrors ?? []) {
        for (const value of Object.values(credentials)) assert.ok(!m.includes(value));
      }
    }
  }
  const jwtOnly = credentialsFrom(session({ jwt: 'aaa.bbb.ccc' }));
  assert.deepEqual(jwtOnly, { privateKey: null, predictAccount: null, jwt: 'aaa.bbb.ccc' });
  assert.equal(signerAddress(jwtOnly), null, 'a JWT alone names no address until GET /v1/account answers');
});
