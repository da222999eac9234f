// Deposit wallets as contracts on the sandbox chain: the simulator's account creation and the relayer's
// WALLET-CREATE deploy a wallet through the factory at the address the official client derives; the wallet's owner
// and factory are its own immutable args; type-3 orders signed by our signing module (the official V2 SDK's
// ERC-7739 envelope) are judged by the wallet contract's isValidSignature — shown by taking the contract away, after
// which the same kind of order is refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestClient, type Hex, http, parseAbi, publicActions } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { type SandboxChain, startSandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
import { builderHeaders, signerFromSession } from '../../../src/venues/polymarket/auth.js';
import { signOrder } from '../../../src/venues/polymarket/signing.js';
import { activeMarkets, best, book, clob, type MarketRef, type Trader, trader } from './support.js';

const FACTORY = '0x00000000000Fb5C9ADea0298D729A0CB3823Cc07';
const walletAbi = parseAbi([
  'function owner() view returns (address)',
  'function factory() view returns (address)',
  'function nonce() view returns (uint256)',
  'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
]);

let chain: SandboxChain;
let sim: PolymarketSim;
let client: ReturnType<typeof testClient>;
let market: MarketRef & { bid: number };

function testClient(rpcUrl: string) {
  return createTestClient({
    mode: 'anvil',
    chain: {
      id: 137,
      name: 'sandbox',
      nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    },
    transport: http(rpcUrl),
  }).extend(publicActions);
}

before(async () => {
  chain = await startSandboxChain();
  client = testClient(chain.rpcUrl);
  sim = await startPolymarketSim({
    seed: 23,
    size: 50,
    chain: {
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      contracts: chain.contracts,
      minterKey: chain.minterKey,
    },
  });
  const [m] = (await activeMarkets(sim, false)).filter((x) => x.tick === 0.01);
  assert.ok(m);
  market = { ...m, bid: best(await book(sim, m.yes)).bid };
});
after(async () => {
  await sim?.close();
  await chain?.close();
});

/** A resting type-3 BUY below the book for `t`'s deposit wallet, the envelope signed by `signerKey`. */
async function postDeposit(t: Trader, signerKey: string = t.privateKey) {
  const signed = await signOrder(
    signerFromSession({
      exchange: 'polymarket',
      credentials: { private_key: signerKey },
      source: 'per_request',
    }),
    137,
    {
      tokenId: market.yes,
      price: Math.max(0.01, Math.round((market.bid - 0.05) * 100) / 100),
      size: 10,
      side: 'buy',
      tickSize: 0.01,
      negRisk: false,
      orderType: 'GTC',
      owner: t.key,
    },
    { signatureType: 3, maker: t.account.wallets.deposit as Hex },
  );
  const body = JSON.parse(signed.body) as { order: { signature: Hex } };
  const res = await clob(sim, t, 'POST', '/order', body);
  return { ...res, orderHash: signed.orderHash as Hex, signature: body.order.signature };
}

test('a deposit account gets its wallet contract at the derived address, owned by its EOA, made by the factory', async () => {
  const t = await trader(sim, { kind: 'deposit', collateral: '20000000' });
  const wallet = t.account.wallets.deposit as Hex;
  const code = await client.getCode({ address: wallet });
  assert.ok(code && code.length > 2, 'the wallet has code');
  const read = (functionName: 'owner' | 'factory' | 'nonce') =>
    client.readContract({ address: wallet, abi: walletAbi, functionName });
  assert.equal(String(await read('owner')).toLowerCase(), t.address.toLowerCase());
  assert.equal(String(await read('factory')).toLowerCase(), FACTORY.toLowerCase());
  assert.equal(await read('nonce'), 0n);
});

test('the relayer deploys the wallet contract on WALLET-CREATE, and answers with the real transaction', async () => {
  // An EOA the simulator has never seen: the relayer's WALLET-CREATE is its onboarding.
  const owner = privateKeyToAccount(generatePrivateKey()).address;
  const predicted = (await (
    await fetch(`${sim.urls.relayer}/relay-payload?address=${owner}&type=WALLET`)
  ).json()) as { address: Hex };
  assert.equal(await client.getCode({ address: predicted.address }), undefined);
  const body = JSON.stringify({ type: 'WALLET-CREATE', from: owner, to: FACTORY });
  const res = await fetch(`${sim.urls.relayer}/submit`, {
    method: 'POST',
    headers: {
      ...builderHeaders(sim.relayerAuth, 'POST', '/submit', body),
      'content-type': 'application/json',
    },
    body,
  });
  assert.equal(res.status, 200);
  const { transactionHash } = (await res.json()) as { transactionHash: Hex };
  const receipt = await client.getTransactionReceipt({ hash: transactionHash });
  assert.equal(receipt.status, 'success');
  assert.equal(receipt.to?.toLowerCase(), FACTORY.toLowerCase());
  assert.ok((await client.getCode({ address: predicted.address }))?.length);
  const walletOwner = await client.readContract({
    address: predicted.address,
    abi: walletAbi,
    functionName: 'owner',
  });
  assert.equal(walletOwner.toLowerCase(), owner.toLowerCase());
});

test("type-3 orders are judged by the wallet contract's isValidSignature", async () => {
  const t = await trader(sim, { kind: 'deposit', collateral: '20000000' });
  const wallet = t.account.wallets.deposit as Hex;
  const ok = await postDeposit(t);
  assert.equal(ok.status, 200, JSON.stringify(ok.json));
  const isValid = (hash: Hex, signature: Hex) =>
    client.readContract({
      address: wallet,
      abi: walletAbi,
      functionName: 'isValidSignature',
      args: [hash, signature],
    });
  // The contract itself accepts the SDK's envelope for that order hash, and nothing else.
  assert.equal(await isValid(ok.orderHash, ok.signature), '0x1626ba7e');
  assert.equal(await isValid(`0x${'11'.repeat(32)}`, ok.signature), '0xffffffff');
  const flipped =
    `${ok.signature.slice(0, 10)}${ok.signature[10] === '0' ? '1' : '0'}${ok.signature.slice(11)}` as Hex;
  assert.equal(await isValid(ok.orderHash, flipped), '0xffffffff');

  // Someone else's key inside the envelope: the contract says no, so the CLOB does.
  const foreign = await postDeposit(t, generatePrivateKey());
  assert.deepEqual(
    { status: foreign.status, body: foreign.json },
    { status: 400, body: { error: 'invalid signature' } },
  );

  // With the contract gone from the chain, the owner's own, well-formed order is refused too: the CLOB asked the
  // chain, not an off-chain copy of the check.
  const code = await client.getCode({ address: wallet });
  await client.setCode({ address: wallet, bytecode: '0x' });
  const orphan = await postDeposit(t);
  assert.deepEqual(
    { status: orphan.status, body: orphan.json },
    { status: 400, body: { error: 'invalid signature' } },
  );
  await client.setCode({ address: wallet, bytecode: code as Hex });
  const again = await postDeposit(t);
  assert.equal(again.status, 200, JSON.stringify(again.json));
});
