// The deposit-wallet rules of the simulated CLOB, exercised with orders signed by the official SDK's order builder
// (through our signing module) and verified by the simulator's ethers code: legacy accounts sign as EOA, proxy or
// Safe; accounts opened after the cutover only through their deposit wallet (ERC-7739 / ERC-1271 checked against
// the wallet's owner); signer, owner and funder mismatches answer with the CLOB's texts; the relayer creates a
// deposit wallet once.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Hex } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { signerFromSession } from '../../../src/venues/polymarket/auth.js';
import { type SigningWallet, signOrder } from '../../../src/venues/polymarket/signing.js';
import { activeMarkets, best, book, clob, type MarketRef, type Trader, trader } from './support.js';

let sim: PolymarketSim;
let market: MarketRef & { bid: number };

before(async () => {
  sim = await startPolymarketSim({ seed: 23, size: 200 });
  const [m] = (await activeMarkets(sim, false)).filter((x) => x.tick === 0.01);
  assert.ok(m);
  market = { ...m, bid: best(await book(sim, m.yes)).bid };
});
after(() => sim.close());

const session = (privateKey: string) => ({
  exchange: 'polymarket' as const,
  credentials: { private_key: privateKey },
  source: 'per_request' as const,
});

/** A resting BUY below the book, signed by `signerKey` for `wallet`, posted with `poster`'s API key. */
async function post(poster: Trader, wallet: SigningWallet, signerKey: string = poster.privateKey) {
  const signed = await signOrder(
    signerFromSession(session(signerKey)),
    137,
    {
      tokenId: market.yes,
      price: Math.max(0.01, Math.round((market.bid - 0.05) * 100) / 100),
      size: 10,
      side: 'buy',
      tickSize: 0.01,
      negRisk: false,
      orderType: 'GTC',
      owner: poster.key,
    },
    wallet,
  );
  const res = await clob(sim, poster, 'POST', '/order', JSON.parse(signed.body));
  return { ...res, orderHash: signed.orderHash };
}

const eoa = (t: Trader): SigningWallet => ({ signatureType: 0, maker: t.address as Hex });
const proxy = (t: Trader): SigningWallet => ({ signatureType: 1, maker: t.account.wallets.proxy as Hex });
const safe = (t: Trader): SigningWallet => ({ signatureType: 2, maker: t.account.wallets.safe as Hex });
const deposit = (t: Trader): SigningWallet => ({ signatureType: 3, maker: t.account.wallets.deposit as Hex });

const DEPOSIT_ONLY = { error: 'maker address not allowed, please use the deposit wallet flow' };
const SIGNER_NOT_KEY = { error: 'the order signer address has to be the address of the API KEY' };
const BAD_SIGNATURE = { error: 'invalid signature' };

test('a legacy account trades as EOA, through its proxy and through its Safe; the maker names the funder', async () => {
  const t = await trader(sim, { kind: 'legacy' });
  for (const wallet of [eoa(t), proxy(t), safe(t)]) {
    const res = await post(t, wallet);
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal((res.json as { orderID: string }).orderID, res.orderHash.toLowerCase());
  }
  const open = (await clob(sim, t, 'GET', '/data/orders')).json as { data: Array<{ maker_address: string }> };
  assert.deepEqual(
    open.data.map((o) => o.maker_address.toLowerCase()).sort(),
    [t.address, t.account.wallets.proxy, t.account.wallets.safe].map((a) => String(a).toLowerCase()).sort(),
  );
});

test('a post-cutover account is refused on types 0, 1 and 2 with the exact text and accepted through its deposit wallet', async () => {
  const t = await trader(sim, { kind: 'deposit', collateral: '50000000' });
  assert.equal(t.account.credentials.signature_type, '3');
  assert.equal(t.account.credentials.funder_address, t.account.wallets.deposit);
  for (const type of [0, 1, 2] as const) {
    const res = await post(t, { signatureType: type, maker: t.address as Hex });
    assert.deepEqual({ status: res.status, body: res.json }, { status: 400, body: DEPOSIT_ONLY });
  }
  const ok = await post(t, deposit(t));
  assert.equal(ok.status, 200, JSON.stringify(ok.json));
  const balance = async (type: number) =>
    (
      (
        await clob(
          sim,
          t,
          'GET',
          '/balance-allowance',
          undefined,
          `?asset_type=COLLATERAL&signature_type=${type}`,
        )
      ).json as { balance: string }
    ).balance;
  assert.equal(
    await balance(3),
    '50000000',
    'balance-allowance with signature_type 3 reads the deposit wallet',
  );
  assert.equal(await balance(0), '0', 'the EOA itself holds nothing');
});

test('a 1271 order is checked against the wallet owner; foreign wallets and signers answer as the CLOB does', async () => {
  const alice = await trader(sim, { kind: 'deposit' });
  const bob = await trader(sim, { kind: 'deposit' });
  // Bob's key, Alice's deposit wallet: the wallet is not the API key's.
  assert.deepEqual((await post(bob, deposit(alice), bob.privateKey)).json, SIGNER_NOT_KEY);
  // Alice's key and wallet, but the envelope signed by someone else: isValidSignature fails.
  assert.deepEqual((await post(alice, deposit(alice), generatePrivateKey())).json, BAD_SIGNATURE);
  // A legacy EOA order signed by a key other than the API key's address.
  const carol = await trader(sim, { kind: 'legacy' });
  const dave = await trader(sim, { kind: 'legacy' });
  assert.deepEqual((await post(carol, eoa(dave), dave.privateKey)).json, SIGNER_NOT_KEY);
  // Wrong funder: a proxy order whose maker is the Safe.
  assert.deepEqual((await post(carol, { signatureType: 1, maker: safe(carol).maker })).json, BAD_SIGNATURE);
});

test('the relayer deploys a deposit wallet once, only for the operator builder key', async () => {
  const owner = (await trader(sim, { kind: 'legacy' })).address;
  const path = '/submit';
  const body = JSON.stringify({
    type: 'WALLET-CREATE',
    from: owner,
    to: '0x00000000000Fb5C9ADea0298D729A0CB3823Cc07',
  });
  const submit = (secret: string) => {
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = createHmac('sha256', Buffer.from(secret, 'base64'))
      .update(`${ts}POST${path}${body}`)
      .digest('base64')
      .replace(/\+/g, '-')
      .replace(/\//g, '_');
    return fetch(`${sim.urls.relayer}${path}`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        POLY_BUILDER_API_KEY: sim.relayerAuth.key,
        POLY_BUILDER_PASSPHRASE: sim.relayerAuth.passphrase,
        POLY_BUILDER_TIMESTAMP: ts,
        POLY_BUILDER_SIGNATURE: sig,
      },
    });
  };
  assert.equal((await submit(Buffer.from('wrong').toString('base64'))).status, 401);
  const predicted = (await (
    await fetch(`${sim.urls.relayer}/relay-payload?address=${owner}&type=WALLET`)
  ).json()) as {
    address: string;
  };
  const deployed = async () =>
    (
      (await (
        await fetch(`${sim.urls.relayer}/deployed?address=${predicted.address}&type=WALLET`)
      ).json()) as {
        deployed: boolean;
      }
    ).deployed;
  assert.equal(await deployed(), false);
  const first = await submit(sim.relayerAuth.secret);
  assert.equal(first.status, 200);
  const { transactionID } = (await first.json()) as { transactionID: string };
  const [tx] = (await (await fetch(`${sim.urls.relayer}/transaction?id=${transactionID}`)).json()) as Array<{
    state: string;
    proxyAddress: string;
  }>;
  assert.equal(tx?.state, 'STATE_CONFIRMED');
  assert.equal(tx?.proxyAddress, predicted.address.toLowerCase());
  assert.equal(await deployed(), true);
  assert.equal((await submit(sim.relayerAuth.secret)).status, 400, 'a second WALLET-CREATE deploys nothing');
});
