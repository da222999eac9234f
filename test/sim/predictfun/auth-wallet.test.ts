// The Predict.fun simulator's authentication and wallet routes, with the official SDK (@predictdotfun/sdk) and
// ethers as conformance clients: the API key on every call, the sign-in flow for an EOA (ethers personal_sign)
// and for a Predict account (the SDK's Kernel-wrapped signature, its owner checked through the chain RPC), JWT
// refusal and expiry, positions by JWT and by address, and USDT balances read by the SDK's balanceOf.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ChainId, OrderBuilder } from '@predictdotfun/sdk';
import { hashMessage, JsonRpcProvider, Wallet } from 'ethers';
import { kernelWrappedHash } from '../../../sim/predictfun/auth.js';
import { type PredictfunSim, startPredictfunSim } from '../../../sim/predictfun/index.js';
import { loadFixture } from '../../support/fixtures.js';

type Json = Record<string, unknown>;
/** The SDK's own view of an ethers signer (its declarations resolve ethers' CommonJS types, ours the ESM ones). */
type SdkSigner = Parameters<typeof OrderBuilder.make>[1];
const sdk = (wallet: unknown): SdkSigner => wallet as SdkSigner;
let sim: PredictfunSim;
let provider: JsonRpcProvider;
before(async () => {
  sim = await startPredictfunSim({ seed: 13, size: 30 });
  provider = new JsonRpcProvider(sim.rpcUrl, undefined, { batchMaxCount: 1 });
});
after(async () => {
  provider.destroy();
  await sim.close();
});

async function call(
  method: string,
  path: string,
  options: { key?: string | null; jwt?: string; body?: unknown } = {},
): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? sim.apiKey : options.key;
  if (key) headers['x-api-key'] = key;
  if (options.jwt) headers.authorization = `Bearer ${options.jwt}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function signIn(
  signer: string,
  sign: (message: string) => Promise<string>,
): Promise<{ status: number; body: Json }> {
  const message = ((await call('GET', '/v1/auth/message')).body.data as { message: string }).message;
  return call('POST', '/v1/auth', { body: { signer, message, signature: await sign(message) } });
}

test('every /v1 call, market data included, needs the API key: missing or wrong is 401 in the venue envelope', async () => {
  for (const key of [null, 'not-the-key']) {
    for (const path of ['/v1/categories', '/v1/markets', '/v1/auth/message']) {
      const { status, body } = await call('GET', path, { key });
      assert.equal(status, 401, `${path} with key ${key}`);
      assert.deepEqual([body.success, body.code, body.error], [false, 401, 'unauthorized']);
    }
  }
});

test('an EOA signs the auth message with personal_sign (ethers) and gets a JWT for its own account', async () => {
  const account = await sim.createAccount();
  const wallet = new Wallet(account.credentials.private_key as string);
  const { status, body } = await signIn(wallet.address, (m) => wallet.signMessage(m));
  assert.equal(status, 200, JSON.stringify(body));
  const token = (body.data as { token: string }).token;
  assert.equal(token.split('.').length, 3, 'a JWT');
  const me = await call('GET', '/v1/account', { jwt: token });
  assert.equal(me.status, 200);
  assert.equal((me.body.data as Json).address, wallet.address);
  // A wallet JWT does not stand in for the API key.
  assert.equal((await call('GET', '/v1/account', { jwt: token, key: null })).status, 401);
});

test('a bad signature, a signature by another wallet, a reused or foreign message are refused with 401', async () => {
  const wallet = Wallet.createRandom();
  const other = Wallet.createRandom();
  const byOther = await signIn(wallet.address, (m) => other.signMessage(m));
  assert.deepEqual([byOther.status, byOther.body.error], [401, 'unauthorized']);
  const garbage = await signIn(wallet.address, async () => `0x${'11'.repeat(65)}`);
  assert.equal(garbage.status, 401);
  const message = ((await call('GET', '/v1/auth/message')).body.data as { message: string }).message;
  const signature = await wallet.signMessage(message);
  const body = { signer: wallet.address, message, signature };
  assert.equal((await call('POST', '/v1/auth', { body })).status, 200);
  assert.equal((await call('POST', '/v1/auth', { body })).status, 401, 'a message signs in once');
  const forged = `Sign in to predict.fun\n\nNonce: ${'0'.repeat(32)}`;
  const foreign = { signer: wallet.address, message: forged, signature: await wallet.signMessage(forged) };
  assert.equal((await call('POST', '/v1/auth', { body: foreign })).status, 401);
  const missing = await call('POST', '/v1/auth', { body: { signer: wallet.address } });
  assert.deepEqual([missing.status, missing.body.error], [400, 'bad_request']);
});

test('wallet routes refuse a missing, forged or expired JWT; the token lives 24 hours on the venue clock', async () => {
  const wallet = Wallet.createRandom();
  const token = ((await signIn(wallet.address, (m) => wallet.signMessage(m))).body.data as { token: string })
    .token;
  assert.equal((await call('GET', '/v1/positions')).status, 401);
  const [h, p] = token.split('.');
  assert.equal((await call('GET', '/v1/positions', { jwt: `${h}.${p}.forged` })).status, 401);
  assert.equal((await call('GET', '/v1/positions', { jwt: token })).status, 200);
  await fetch(`${sim.control}/__sim/clock`, {
    method: 'POST',
    body: JSON.stringify({ advance_seconds: 86_401 }),
  });
  const expired = await call('GET', '/v1/positions', { jwt: token });
  assert.deepEqual([expired.status, expired.body.error], [401, 'unauthorized']);
});

test('a Predict account signs in with the official SDK signature (owner checked on chain through the RPC)', async () => {
  const account = await sim.createAccount({ predict_account: true });
  const owner = new Wallet(account.credentials.private_key as string, provider);
  const predictAccount = account.credentials.predict_account as string;
  // OrderBuilder.make reads the ECDSA validator's owner of the account over JSON-RPC and refuses a mismatch.
  const builder = await OrderBuilder.make(ChainId.BnbMainnet, sdk(owner), { predictAccount });
  const { status, body } = await signIn(predictAccount, (m) => builder.signPredictAccountMessage(m));
  assert.equal(status, 200, JSON.stringify(body));
  const token = (body.data as { token: string }).token;
  const me = await call('GET', '/v1/account', { jwt: token });
  assert.equal((me.body.data as Json).address, predictAccount);
  // The owner's plain signature is not the account's.
  assert.equal((await signIn(predictAccount, (m) => owner.signMessage(m))).status, 401);
  const stranger = Wallet.createRandom().connect(provider);
  await assert.rejects(OrderBuilder.make(ChainId.BnbMainnet, sdk(stranger), { predictAccount }));
});

test('the Kernel digest the simulator checks is the one the official SDK produced, on mainnet and testnet', () => {
  const v = loadFixture('predictfun', 'sdk_kernel_sign_in_vectors.json') as {
    predict_account: string;
    message: string;
    vectors: Array<{ chain_id: number; kernel_digest: string }>;
  };
  for (const { chain_id: chainId, kernel_digest: digest } of v.vectors) {
    assert.equal(kernelWrappedHash(hashMessage(v.message), v.predict_account, chainId), digest);
  }
  assert.throws(() => kernelWrappedHash(hashMessage(v.message), v.predict_account, 1), /no Kernel domain/);
});

test('USDT balances live on chain: the SDK balanceOf reads the paper balance; /__sim/fund adds to it', async () => {
  const account = await sim.createAccount({ balance: '2500000000000000000000' });
  const wallet = new Wallet(account.credentials.private_key as string, provider);
  const builder = await OrderBuilder.make(ChainId.BnbMainnet, sdk(wallet));
  assert.equal(await builder.balanceOf(), 2_500n * 10n ** 18n);
  await fetch(`${sim.control}/__sim/fund`, {
    method: 'POST',
    body: JSON.stringify({ address: wallet.address, amount: '500000000000000000' }),
  });
  assert.equal(await builder.balanceOf(), 2_500n * 10n ** 18n + 5n * 10n ** 17n);
  assert.equal(await builder.balanceOf('USDT', Wallet.createRandom().address), 0n);
  const predict = await sim.createAccount({ predict_account: true });
  const owner = new Wallet(predict.credentials.private_key as string, provider);
  const predictBuilder = await OrderBuilder.make(ChainId.BnbMainnet, sdk(owner), {
    predictAccount: predict.credentials.predict_account as string,
  });
  assert.equal(await predictBuilder.balanceOf(), 1_000n * 10n ** 18n, 'a Predict account holds the funds');
});

test('seeded positions show by JWT and by address, shares in wei, paged by cursor; a fresh wallet holds none', async () => {
  const listing = (await call('GET', '/v1/categories?status=OPEN&first=20')).body.data as Json[];
  const ids = listing.flatMap((c) => (c.markets as Json[]).map((m) => m.id as number)).slice(0, 3);
  const account = await sim.createAccount({
    positions: ids.map((id, i) => ({
      market_id: id,
      outcome: i % 2 === 0 ? 'Yes' : 'No',
      shares: 10 + i,
      average_price: 0.4,
    })),
  });
  const wallet = new Wallet(account.credentials.private_key as string);
  const token = ((await signIn(wallet.address, (m) => wallet.signMessage(m))).body.data as { token: string })
    .token;
  const own = await call('GET', '/v1/positions?first=100', { jwt: token });
  const byAddress = await call('GET', `/v1/positions/${wallet.address}?first=100`);
  assert.deepEqual(own.body, byAddress.body);
  const rows = own.body.data as Json[];
  assert.equal(rows.length, 3);
  assert.equal(rows[1]?.amount, (11n * 10n ** 18n).toString());
  assert.equal(((rows[1] as Json).outcome as Json).indexSet, 2);
  assert.deepEqual(Object.keys(rows[0] as Json), [
    'id',
    'amount',
    'averageBuyPriceUsd',
    'pnlUsd',
    'valueUsd',
    'market',
    'outcome',
  ]);
  const page1 = await call('GET', `/v1/positions/${wallet.address}?first=2`);
  const page2 = await call(
    'GET',
    `/v1/positions/${wallet.address}?first=2&after=${encodeURIComponent(String(page1.body.cursor))}`,
  );
  assert.deepEqual([...(page1.body.data as Json[]), ...(page2.body.data as Json[])], rows);
  assert.equal(page2.body.cursor, null);
  const filtered = await call('GET', `/v1/positions/${wallet.address}?marketId=${ids[0]}`);
  assert.equal((filtered.body.data as Json[]).length, 1);
  const fresh = await call('GET', `/v1/positions/${Wallet.createRandom().address}`);
  assert.deepEqual([fresh.status, fresh.body.data, fresh.body.cursor], [200, [], null]);
});

test('testnet mode serves without an API key (wallet routes still want a JWT) on BNB testnet, as the SDK expects', async () => {
  const testnet = await startPredictfunSim({ seed: 13, size: 10, network: 'testnet' });
  const testnetProvider = new JsonRpcProvider(testnet.rpcUrl, undefined, { batchMaxCount: 1 });
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${testnet.url}${path}`, { headers });
    return { status: res.status, body: (await res.json()) as Json };
  };
  try {
    assert.deepEqual([testnet.network, testnet.chainId], ['testnet', ChainId.BnbTestnet]);
    for (const path of ['/v1/categories', '/v1/markets', '/v1/auth/message']) {
      const { status, body } = await get(path);
      assert.deepEqual([status, body.success], [200, true], path);
    }
    assert.equal((await get('/v1/positions')).status, 401, 'no JWT, no wallet route');
    assert.equal((await testnetProvider.getNetwork()).chainId, BigInt(ChainId.BnbTestnet));
    // A Predict account signs in with the SDK's testnet Kernel domain, its owner read over the testnet RPC.
    const account = await testnet.createAccount({ predict_account: true });
    const owner = new Wallet(account.credentials.private_key as string, testnetProvider);
    const predictAccount = account.credentials.predict_account as string;
    const builder = await OrderBuilder.make(ChainId.BnbTestnet, sdk(owner), { predictAccount });
    assert.equal(await builder.balanceOf(), 1_000n * 10n ** 18n, 'USDT at the testnet address');
    const message = ((await get('/v1/auth/message')).body.data as { message: string }).message;
    const res = await fetch(`${testnet.url}/v1/auth`, {
      method: 'POST',
      body: JSON.stringify({
        signer: predictAccount,
        message,
        signature: await builder.signPredictAccountMessage(message),
      }),
    });
    assert.equal(res.status, 200);
    const token = ((await res.json()) as { data: { token: string } }).data.token;
    const me = await get('/v1/account', { authorization: `Bearer ${token}` });
    assert.equal((me.body.data as Json).address, predictAccount);
  } finally {
    testnetProvider.destroy();
    await testnet.close();
  }
});
