// Polymarket's official relayer client (@polymarket/builder-relayer-client 0.0.10), signing with ethers 5, against the
// simulated relayer's Safe (SAFE-CREATE, SAFE) and proxy-wallet (PROXY) types on the sandbox chain. The simulator
// checks these signatures with ethers and our adapter makes them with viem; here the client's own code signs, so a
// misreading shared by both cannot cancel out — and a Safe's `execTransaction` checks the owner's signature again on
// chain. Effects are read back from the chain; refusals are shown to move nothing.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import {
  buildProxyTransactionRequest,
  buildSafeTransactionRequest,
  CallType,
  deriveProxyWallet,
  deriveSafe,
  encodeProxyTransactionData,
  OperationType,
  RelayClient,
  RelayerTxType,
  TransactionType,
} from '@polymarket/builder-relayer-client';
import { decodeFunctionResult, encodeFunctionData, type Hex, parseAbi, zeroHash } from 'viem';
import { polygon } from 'viem/chains';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { type SandboxChain, startSandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
import { ctf, erc20, newSimCondition, sandboxChainReads } from '../../support/sandbox-chain-reads.js';

const clientRequire = createRequire(
  createRequire(import.meta.url).resolve('@polymarket/builder-relayer-client'),
);
const ethers5 = clientRequire('ethers') as {
  Wallet: new (key: string, provider: unknown) => { address: string };
  providers: {
    StaticJsonRpcProvider: new (url: string, network: { chainId: number; name: string }) => unknown;
  };
};
const { BuilderConfig } = clientRequire('@polymarket/builder-signing-sdk') as {
  BuilderConfig: new (config: {
    localBuilderCreds: { key: string; secret: string; passphrase: string };
  }) => NonNullable<RelayClient['builderConfig']>;
};
type ClientSigner = ConstructorParameters<typeof RelayClient>[2];

const SAFE_FACTORY = '0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b';
const PROXY_FACTORY = '0xaB45c5A4B0c941a2F231C04C3f49182e1A254052';
const RELAY_HUB = '0xD216153c06E857cD7f72665E0aF1d7D82172F494';
const MULTISEND = '0xA238CBeb142c10Ef7Ad8442C6D1f9E89e07e7761';

const safeAbi = parseAbi([
  'function getOwners() view returns (address[])',
  'function nonce() view returns (uint256)',
  'function VERSION() view returns (string)',
  'function masterCopy() view returns (address)',
]);

let chain: SandboxChain;
const { rpc, collateralOf, allowanceOf, positionOf } = sandboxChainReads(() => chain);
const newCondition = () => newSimCondition(sim.control);
let sim: PolymarketSim;

before(async () => {
  chain = await startSandboxChain();
  sim = await startPolymarketSim({
    seed: 12,
    size: 10,
    chain: {
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      contracts: chain.contracts,
      minterKey: chain.minterKey,
    },
  });
});
after(async () => {
  await sim?.close();
  await chain?.close();
});

function relayClient(privateKey: string, type: RelayerTxType): { client: RelayClient; address: string } {
  const provider = new ethers5.providers.StaticJsonRpcProvider(chain.rpcUrl, { chainId: 137, name: 'matic' });
  const wallet = new ethers5.Wallet(privateKey, provider);
  const client = new RelayClient(
    sim.urls.relayer,
    137,
    wallet as unknown as ClientSigner,
    new BuilderConfig({ localBuilderCreds: sim.relayerAuth }),
    type,
    { chain: { ...polygon, rpcUrls: { default: { http: [chain.rpcUrl] } } } },
  );
  return { client, address: wallet.address };
}

/** approve(CTF, allowance) then splitPosition(amount): the transactions each test runs, in the client's shape. */
function approveAndSplit(conditionId: Hex, allowance: bigint, amount: bigint) {
  return [
    {
      to: chain.contracts.collateral,
      value: '0',
      data: encodeFunctionData({
        abi: erc20,
        functionName: 'approve',
        args: [chain.contracts.conditionalTokens, allowance],
      }),
    },
    {
      to: chain.contracts.conditionalTokens,
      value: '0',
      data: encodeFunctionData({
        abi: ctf,
        functionName: 'splitPosition',
        args: [chain.contracts.collateral, zeroHash, conditionId, [1n, 2n], amount],
      }),
    },
  ];
}

async function submitRaw(body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const text = JSON.stringify(body);
  const headers = await new BuilderConfig({ localBuilderCreds: sim.relayerAuth }).generateBuilderHeaders(
    'POST',
    '/submit',
    text,
  );
  assert.ok(headers);
  const res = await fetch(`${sim.urls.relayer}/submit`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const flip = (sig: string) =>
  `${sig.slice(0, 100)}${(Number.parseInt(sig[100] as string, 16) ^ 1).toString(16)}${sig.slice(101)}`;

describe('official relayer client ↔ simulated relayer: Safe and proxy wallets on the sandbox chain', () => {
  test('SAFE-CREATE puts a Safe owned by the signer at the address the client derives', async () => {
    const { client, address } = relayClient(`0x${'cd'.repeat(31)}02`, RelayerTxType.SAFE);
    const derived = deriveSafe(address, SAFE_FACTORY).toLowerCase();
    assert.equal(
      (await client.getRelayPayload(address, TransactionType.SAFE)).address.toLowerCase(),
      derived,
    );
    assert.equal(await client.getDeployed(derived), false);
    const mined = await (await client.deploy()).wait();
    assert.equal(mined?.state, 'STATE_CONFIRMED');
    assert.equal(mined?.proxyAddress.toLowerCase(), derived);
    assert.equal(await client.getDeployed(derived), true);
    const owners = await rpc<Hex>('eth_call', [
      { to: derived, data: encodeFunctionData({ abi: safeAbi, functionName: 'getOwners' }) },
      'latest',
    ]);
    assert.ok(owners.toLowerCase().endsWith(address.slice(2).toLowerCase()), 'getOwners() is [signer]');
    // The real Gnosis Safe v1.3.0 behind a GnosisSafeProxy: VERSION() through the proxy, masterCopy() from the proxy.
    const version = await rpc<Hex>('eth_call', [
      { to: derived, data: encodeFunctionData({ abi: safeAbi, functionName: 'VERSION' }) },
      'latest',
    ]);
    assert.equal(decodeFunctionResult({ abi: safeAbi, functionName: 'VERSION', data: version }), '1.3.0');
    const singleton = await rpc<Hex>('eth_call', [
      { to: derived, data: encodeFunctionData({ abi: safeAbi, functionName: 'masterCopy' }) },
      'latest',
    ]);
    assert.equal(BigInt(singleton), BigInt('0xd9Db270c1B5E3Bd161E8c8503c55cEABeE709552'));
    // A second creation is refused by the relayer (the client itself refuses first).
    await assert.rejects(client.deploy());
  });

  test('execute() through a Safe: approve + split as one MultiSend, one call alone; the Safe nonce advances', async () => {
    const account = await sim.createAccount({ kind: 'legacy', collateral: '10000000', approved: false });
    const safe = account.wallets.safe as string;
    const { client, address } = relayClient(account.credentials.private_key, RelayerTxType.SAFE);
    assert.equal(deriveSafe(address, SAFE_FACTORY).toLowerCase(), safe);
    const { condition_id, position_ids } = await newCondition();
    assert.equal((await client.getNonce(address, TransactionType.SAFE)).nonce, '0');
    const batch = await (await client.execute(approveAndSplit(condition_id, 5_000_000n, 2_000_000n))).wait();
    assert.equal(batch?.state, 'STATE_CONFIRMED');
    assert.equal(await collateralOf(safe), 8_000_000n);
    assert.equal(await allowanceOf(safe), 3_000_000n);
    assert.equal(await positionOf(safe, position_ids[0]), 2_000_000n);
    assert.equal(await positionOf(safe, position_ids[1]), 2_000_000n);
    assert.equal((await client.getNonce(address, TransactionType.SAFE)).nonce, '1');
    const single = await (await client.execute(approveAndSplit(condition_id, 7n, 0n).slice(0, 1))).wait();
    assert.equal(single?.state, 'STATE_CONFIRMED');
    assert.equal(await allowanceOf(safe), 7n);
    assert.equal((await client.getNonce(address, TransactionType.SAFE)).nonce, '2');
  });

  test('Safe: a reverting call fails the whole transaction; a bad signature, a changed call, another owner, a replay are refused; nothing moves', async () => {
    const account = await sim.createAccount({ kind: 'legacy', collateral: '10000000', approved: false });
    const other = await sim.createAccount({ kind: 'legacy', collateral: '0', approved: false });
    const safe = account.wallets.safe as string;
    const { client, address } = relayClient(account.credentials.private_key, RelayerTxType.SAFE);
    const { condition_id } = await newCondition();
    const failed = await client.execute(approveAndSplit(condition_id, 50_000_000n, 20_000_000n));
    assert.equal(await failed.wait(), undefined, 'STATE_FAILED');
    assert.equal(await allowanceOf(safe), 0n, 'the approval was undone with the split');
    assert.equal((await client.getNonce(address, TransactionType.SAFE)).nonce, '0', 'nonce unspent');

    const txs = approveAndSplit(condition_id, 5_000_000n, 1_000_000n).map((t) => ({
      ...t,
      operation: OperationType.Call,
    }));
    const config = { SafeFactory: SAFE_FACTORY, SafeMultisend: MULTISEND };
    const args = { from: address, nonce: '0', chainId: 137, transactions: txs };
    const request = await buildSafeTransactionRequest(client.signer as never, args, config);
    assert.equal(request.to.toLowerCase(), MULTISEND.toLowerCase());
    assert.equal((await submitRaw({ ...request, signature: flip(request.signature) })).status, 400);
    const changed = { ...request, data: `${request.data.slice(0, -2)}ff` };
    assert.equal((await submitRaw(changed)).status, 400);
    // The other account's owner signs a transaction for this Safe: the relayer refuses it, and so would the Safe.
    const { client: otherClient } = relayClient(other.credentials.private_key, RelayerTxType.SAFE);
    const foreign = await buildSafeTransactionRequest(
      otherClient.signer as never,
      { ...args, from: other.address },
      config,
    );
    assert.equal((await submitRaw({ ...foreign, proxyWallet: safe })).status, 400);
    assert.equal((await submitRaw({ ...foreign, from: address, proxyWallet: safe })).status, 400);
    assert.equal(await collateralOf(safe), 10_000_000n);
    assert.equal(await allowanceOf(safe), 0n);

    const ok = await submitRaw(request);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(await collateralOf(safe), 9_000_000n);
    const replay = await submitRaw(request);
    assert.equal(replay.status, 400, JSON.stringify(replay.body));
    assert.equal(await collateralOf(safe), 9_000_000n);
    assert.equal((await client.getNonce(address, TransactionType.SAFE)).nonce, '1');
  });

  test('execute() through a proxy wallet: the relayed, signed proxy(calls) approves and splits from the wallet', async () => {
    const account = await sim.createAccount({ kind: 'legacy', collateral: '10000000', approved: false });
    const wallet = account.wallets.proxy as string;
    const { client, address } = relayClient(account.credentials.private_key, RelayerTxType.PROXY);
    assert.equal(deriveProxyWallet(address, PROXY_FACTORY).toLowerCase(), wallet);
    const { condition_id, position_ids } = await newCondition();
    const before = await client.getRelayPayload(address, TransactionType.PROXY);
    assert.equal(before.nonce, '0');
    const mined = await (await client.execute(approveAndSplit(condition_id, 5_000_000n, 2_000_000n))).wait();
    assert.equal(mined?.state, 'STATE_CONFIRMED');
    assert.equal(await collateralOf(wallet), 8_000_000n);
    assert.equal(await allowanceOf(wallet), 3_000_000n);
    assert.equal(await positionOf(wallet, position_ids[0]), 2_000_000n);
    assert.equal(await collateralOf(address), 10_000_000n, "the EOA's own collateral did not move");
    assert.equal((await client.getRelayPayload(address, TransactionType.PROXY)).nonce, '1');
  });

  test('proxy: a tampered signature, a changed call, a wrong relay and a replay are refused; nothing moves', async () => {
    const account = await sim.createAccount({ kind: 'legacy', collateral: '10000000', approved: false });
    const wallet = account.wallets.proxy as string;
    const { client, address } = relayClient(account.credentials.private_key, RelayerTxType.PROXY);
    const { condition_id } = await newCondition();
    const rp = await client.getRelayPayload(address, TransactionType.PROXY);
    const calls = approveAndSplit(condition_id, 5_000_000n, 1_000_000n).map((t) => ({
      ...t,
      typeCode: CallType.Call,
    }));
    const config = { ProxyFactory: PROXY_FACTORY, RelayHub: RELAY_HUB };
    const args = {
      from: address,
      gasPrice: '0',
      data: encodeProxyTransactionData(calls),
      relay: rp.address,
      nonce: rp.nonce,
    };
    const request = await buildProxyTransactionRequest(client.signer as never, args, config);
    assert.equal((await submitRaw({ ...request, signature: flip(request.signature) })).status, 400);
    const other = encodeProxyTransactionData(
      approveAndSplit(condition_id, 5_000_000n, 4_000_000n).map((t) => ({ ...t, typeCode: CallType.Call })),
    );
    assert.equal((await submitRaw({ ...request, data: other })).status, 400);
    const elsewhere = await buildProxyTransactionRequest(
      client.signer as never,
      { ...args, relay: address },
      config,
    );
    assert.equal((await submitRaw(elsewhere)).status, 400);
    assert.equal(await collateralOf(wallet), 10_000_000n);
    assert.equal((await client.getRelayPayload(address, TransactionType.PROXY)).nonce, '0');

    assert.equal((await submitRaw(request)).status, 200);
    assert.equal(await collateralOf(wallet), 9_000_000n);
    assert.equal((await submitRaw(request)).status, 400, 'replay');
    assert.equal(await collateralOf(wallet), 9_000_000n);
  });
});
