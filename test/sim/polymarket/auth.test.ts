// L1 (EIP-712 ClobAuth) key creation and derivation, L2 HMAC verification with its exact 401, and order signature
// checks: tampered fields and wrong domains are refused with "invalid signature" and leave the book untouched.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import {
  activeMarkets,
  balance,
  book,
  clob,
  hmac,
  l2Headers,
  type MarketRef,
  post,
  signedOrder,
  type Trader,
  trader,
} from './support.js';

let sim: PolymarketSim;
let alice: Trader;
let bob: Trader;
let plain: MarketRef;
let negRisk: MarketRef;
const UNAUTHORIZED = { error: 'Unauthorized/Invalid api key' };

before(async () => {
  sim = await startPolymarketSim({ seed: 13, size: 200, newWalletBalance: '25000000' });
  alice = await trader(sim);
  bob = await trader(sim);
  const markets = await activeMarkets(sim);
  const p = markets.find((m) => !m.negRisk && m.tick === 0.01);
  const n = markets.find((m) => m.negRisk);
  assert.ok(p && n);
  plain = p;
  negRisk = n;
});
after(() => sim.close());

async function l1(privateKey: Hex, nonce = 0, ts = Math.floor(Date.now() / 1000)) {
  const account = privateKeyToAccount(privateKey);
  const signature = await account.signTypedData({
    domain: { name: 'ClobAuthDomain', version: '1', chainId: 137 },
    types: {
      ClobAuth: [
        { name: 'address', type: 'address' },
        { name: 'timestamp', type: 'string' },
        { name: 'nonce', type: 'uint256' },
        { name: 'message', type: 'string' },
      ],
    },
    primaryType: 'ClobAuth',
    message: {
      address: account.address,
      timestamp: String(ts),
      nonce: BigInt(nonce),
      message: 'This message attests that I control the given wallet',
    },
  });
  return {
    POLY_ADDRESS: account.address,
    POLY_SIGNATURE: signature,
    POLY_TIMESTAMP: String(ts),
    POLY_NONCE: String(nonce),
  };
}

test('L1 creates a key once per nonce, derives it again, and onboards the wallet with paper collateral', async () => {
  const pk = generatePrivateKey();
  const created = await fetch(`${sim.urls.clob}/auth/api-key`, { method: 'POST', headers: await l1(pk) });
  assert.equal(created.status, 200);
  const creds = (await created.json()) as { apiKey: string; secret: string; passphrase: string };
  assert.match(creds.apiKey, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(creds.secret, /^[A-Za-z0-9_-]+=*$/);
  const again = await fetch(`${sim.urls.clob}/auth/api-key`, { method: 'POST', headers: await l1(pk) });
  assert.equal(again.status, 400);
  assert.deepEqual(await again.json(), { error: 'Could not create api key' });
  const derived = await fetch(`${sim.urls.clob}/auth/derive-api-key`, { headers: await l1(pk) });
  assert.deepEqual(await derived.json(), creds);
  const other = await fetch(`${sim.urls.clob}/auth/derive-api-key`, { headers: await l1(pk, 7) });
  assert.deepEqual(
    { status: other.status, body: await other.json() },
    {
      status: 400,
      body: { error: 'Could not derive api key!' },
    },
  );
  const me: Trader = {
    account: {
      credentials: { private_key: pk, clob_api_key: '', clob_api_secret: '', clob_api_passphrase: '' },
      address: '',
      kind: 'deposit',
      wallets: {},
    },
    address: privateKeyToAccount(pk).address,
    key: creds.apiKey,
    secret: creds.secret,
    passphrase: creds.passphrase,
    privateKey: pk,
  };
  // A sign-up after the deposit-wallet cutover is funded in its deposit wallet (at WALLET-CREATE), not its EOA.
  assert.equal(await balance(sim, me), 0);
  const keys = await clob(sim, me, 'GET', '/auth/api-keys');
  assert.deepEqual(keys.json, { apiKeys: [creds.apiKey] });
});

test('L1 refuses a signature by another wallet and a stale timestamp', async () => {
  const headers = await l1(generatePrivateKey());
  headers.POLY_ADDRESS = privateKeyToAccount(generatePrivateKey()).address;
  const forged = await fetch(`${sim.urls.clob}/auth/api-key`, { method: 'POST', headers });
  assert.deepEqual(
    { status: forged.status, body: await forged.json() },
    {
      status: 401,
      body: { error: 'Invalid L1 Request headers' },
    },
  );
  const stale = await fetch(`${sim.urls.clob}/auth/derive-api-key`, {
    headers: await l1(alice.privateKey, 0, Math.floor(Date.now() / 1000) - 3600),
  });
  assert.equal(stale.status, 401);
});

test('L2: a correct HMAC passes, with headers in any case', async () => {
  const path = '/data/orders';
  const ok = await fetch(`${sim.urls.clob}${path}?market=${plain.conditionId}`, {
    headers: l2Headers(alice, 'GET', path),
  });
  assert.equal(ok.status, 200);
  const lower = Object.fromEntries(
    Object.entries(l2Headers(alice, 'GET', path)).map(([k, v]) => [k.toLowerCase(), v]),
  );
  assert.equal((await fetch(`${sim.urls.clob}${path}`, { headers: lower })).status, 200);
});

test('L2: wrong HMAC, stale timestamp, wrong passphrase and another user key are all 401', async () => {
  const path = '/data/orders';
  const call = async (headers: Record<string, string>) => {
    const res = await fetch(`${sim.urls.clob}${path}`, { headers });
    return { status: res.status, body: await res.json() };
  };
  const good = l2Headers(alice, 'GET', path);
  assert.deepEqual(
    await call({ ...good, POLY_SIGNATURE: hmac(alice.secret, good.POLY_TIMESTAMP, 'GET', '/data/trades') }),
    {
      status: 401,
      body: UNAUTHORIZED,
    },
  );
  const old = String(Math.floor(Date.now() / 1000) - 301);
  assert.deepEqual(await call(l2Headers(alice, 'GET', path, '', old)), { status: 401, body: UNAUTHORIZED });
  assert.deepEqual(await call({ ...good, POLY_PASSPHRASE: bob.passphrase }), {
    status: 401,
    body: UNAUTHORIZED,
  });
  assert.deepEqual(await call({ ...l2Headers(bob, 'GET', path), POLY_ADDRESS: alice.address }), {
    status: 401,
    body: UNAUTHORIZED,
  });
  assert.deepEqual(await call({ ...good, POLY_API_KEY: '00000000-0000-4000-8000-000000000000' }), {
    status: 401,
    body: UNAUTHORIZED,
  });
  const { POLY_SIGNATURE: _dropped, ...missing } = good;
  assert.deepEqual(await call(missing), { status: 401, body: UNAUTHORIZED });
});

test('L2 signs the exact raw body: a changed byte is 401', async () => {
  const { body } = await signedOrder(alice, { tokenId: plain.yes, side: 'BUY', price: 0.02, size: 5 });
  const text = JSON.stringify(body);
  const headers = { ...l2Headers(alice, 'POST', '/order', text), 'content-type': 'application/json' };
  const res = await fetch(`${sim.urls.clob}/order`, { method: 'POST', headers, body: `${text} ` });
  assert.equal(res.status, 401);
});

test('a tampered order is refused as an invalid signature and changes nothing', async () => {
  const before = await book(sim, plain.yes);
  const cash = await balance(sim, alice);
  const res = await post(sim, alice, {
    tokenId: plain.yes,
    side: 'BUY',
    price: 0.02,
    size: 10,
    tamper: (o) => {
      o.makerAmount = String(Number(o.makerAmount) * 2);
    },
  });
  assert.deepEqual(
    { status: res.status, body: res.body },
    { status: 400, body: { error: 'invalid signature' } },
  );
  const after = await book(sim, plain.yes);
  assert.deepEqual(after.bids, before.bids);
  assert.equal(after.hash, before.hash);
  assert.equal(await balance(sim, alice), cash);
  const swapped = await post(sim, alice, {
    tokenId: plain.yes,
    side: 'BUY',
    price: 0.02,
    size: 10,
    tamper: (o) => {
      const sig = String(o.signature);
      o.signature = `${sig.slice(0, -2)}${sig.endsWith('1b') ? '1c' : '1b'}`;
    },
  });
  assert.equal(swapped.status, 400);
});

test('orders signed for the V1 exchange, domain version "1" or the wrong neg-risk exchange are refused', async () => {
  const v1 = await post(sim, alice, {
    tokenId: plain.yes,
    side: 'BUY',
    price: 0.02,
    size: 10,
    domain: { verifyingContract: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E' },
  });
  assert.deepEqual(v1.body, { error: 'invalid signature' });
  const version1 = await post(sim, alice, {
    tokenId: plain.yes,
    side: 'BUY',
    price: 0.02,
    size: 10,
    domain: { version: '1' },
  });
  assert.deepEqual(version1.body, { error: 'invalid signature' });
  const wrongExchange = await post(sim, alice, {
    tokenId: negRisk.yes,
    side: 'BUY',
    price: 0.02,
    size: 10,
    negRisk: false,
  });
  assert.deepEqual(wrongExchange.body, { error: 'invalid signature' });
  const right = await post(sim, alice, {
    tokenId: negRisk.yes,
    side: 'BUY',
    price: 0.02,
    size: 10,
    negRisk: true,
  });
  assert.equal(right.status, 200);
  assert.equal(right.body.orderID, right.id, 'order id = EIP-712 hash the client computed');
});

test('owner and signer must belong to the API key', async () => {
  const { body } = await signedOrder(alice, { tokenId: plain.yes, side: 'BUY', price: 0.02, size: 10 });
  const asBob = await clob(sim, bob, 'POST', '/order', body);
  assert.deepEqual(asBob.json, { error: 'the order owner has to be the owner of the API KEY' });
  const signedByAlice = await signedOrder(alice, { tokenId: plain.yes, side: 'BUY', price: 0.02, size: 10 });
  signedByAlice.body.owner = bob.key;
  const res = await clob(sim, bob, 'POST', '/order', signedByAlice.body);
  assert.deepEqual(res.json, { error: 'the order signer address has to be the address of the API KEY' });
});

test('a deleted key stops authenticating', async () => {
  const carol = await trader(sim);
  assert.equal((await clob(sim, carol, 'DELETE', '/auth/api-key')).status, 200);
  assert.deepEqual(await clob(sim, carol, 'GET', '/data/orders'), { status: 401, json: UNAUTHORIZED });
});
