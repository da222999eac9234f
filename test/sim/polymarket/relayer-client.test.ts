// Polymarket's official relayer client (@polymarket/builder-relayer-client 0.0.10) against the simulated relayer and
// the sandbox chain. Our adapter and the simulator both follow the client's source with viem; here the client itself
// signs — with ethers v5 through its own EthersSigner, and its own builder-signing-sdk HMAC — so a misreading shared by
// adapter and simulator cannot cancel out. Every effect is read back from the chain; every refusal is shown to move
// nothing (chain balances and the relayer nonce).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import {
  buildDepositWalletBatchRequest,
  RelayClient,
  TransactionType,
} from '@polymarket/builder-relayer-client';
import { type Address, encodeFunctionData, type Hex, parseAbi, zeroHash } from 'viem';
import { polygon } from 'viem/chains';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { type SandboxChain, startSandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
import { ctf, erc20, newSimCondition, sandboxChainReads } from '../../support/sandbox-chain-reads.js';

// The client's own dependencies, at the versions it resolves: ethers 5 (its EthersSigner accepts only an ethers 5
// Wallet) and the builder HMAC signer.
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

const walletAbi = parseAbi(['function nonce() view returns (uint256)']);

let chain: SandboxChain;
const { ethCall, collateralOf, allowanceOf, positionOf } = sandboxChainReads(() => chain);
const newCondition = () => newSimCondition(sim.control);
let sim: PolymarketSim;

before(async () => {
  chain = await startSandboxChain();
  sim = await startPolymarketSim({
    seed: 11,
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

/** The official client for this key, pointed at the simulated relayer and (for its on-chain look-ups) the sandbox. */
function relayClient(privateKey: string, creds = sim.relayerAuth): { client: RelayClient; address: string } {
  const provider = new ethers5.providers.StaticJsonRpcProvider(chain.rpcUrl, { chainId: 137, name: 'matic' });
  const wallet = new ethers5.Wallet(privateKey, provider);
  const client = new RelayClient(
    sim.urls.relayer,
    137,
    wallet as unknown as ClientSigner,
    new BuilderConfig({ localBuilderCreds: creds }),
    undefined,
    { chain: { ...polygon, rpcUrls: { default: { http: [chain.rpcUrl] } } } },
  );
  return { client, address: wallet.address };
}

async function balanceOf(address: Address): Promise<bigint> {
  const res = await fetch(chain.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [address, 'latest'] }),
  });
  return BigInt(((await res.json()) as { result: Hex }).result);
}

/** approve(CTF, allowance) then splitPosition(amount) on a fresh condition: the batch the test runs. */
function approveAndSplit(conditionId: Hex, allowance: bigint, amount: bigint) {
  return [
    {
      target: chain.contracts.collateral,
      value: '0',
      data: encodeFunctionData({
        abi: erc20,
        functionName: 'approve',
        args: [chain.contracts.conditionalTokens, allowance],
      }),
    },
    {
      target: chain.contracts.conditionalTokens,
      value: '0',
      data: encodeFunctionData({
        abi: ctf,
        functionName: 'splitPosition',
        args: [chain.contracts.collateral, zeroHash, conditionId, [1n, 2n], amount],
      }),
    },
  ];
}

const deadline = () => String(Math.floor(Date.now() / 1000) + 600);

describe('official relayer client ↔ simulated relayer on the sandbox chain', () => {
  test('the client derives the deposit wallet the relayer reports and deploys, and deploys it gaslessly', async () => {
    const key = `0x${'ab'.repeat(31)}01`;
    const { client, address } = relayClient(key);
    const derived = (await client.deriveDepositWalletAddress()).toLowerCase();
    const payload = await client.getRelayPayload(address, TransactionType.WALLET);
    assert.equal(
      payload.address.toLowerCase(),
      derived,
      'the relayer predicts the address the client derives',
    );
    assert.equal(await client.getDeployed(derived, TransactionType.WALLET), false);
    const created = await client.deployDepositWallet();
    const mined = await created.wait();
    assert.equal(mined?.state, 'STATE_CONFIRMED');
    assert.equal(mined?.proxyAddress.toLowerCase(), derived);
    assert.equal(await client.getDeployed(derived, TransactionType.WALLET), true);
    // A contract now lives at the derived address, and its nonce() (the client's depositWalletV1Abi) reads 0.
    assert.equal(
      await ethCall(derived as Address, encodeFunctionData({ abi: walletAbi, functionName: 'nonce' })),
      0n,
    );
  });

  test('executeDepositWalletBatch approves and splits from the deposit wallet on chain', async () => {
    const account = await sim.createAccount({ kind: 'deposit', collateral: '10000000' });
    const wallet = account.wallets.deposit as string;
    const { client, address } = relayClient(account.credentials.private_key);
    assert.equal(address.toLowerCase(), account.address.toLowerCase());
    assert.equal((await client.deriveDepositWalletAddress()).toLowerCase(), wallet);
    const { condition_id, position_ids } = await newCondition();
    assert.equal(await collateralOf(wallet), 10_000_000n);
    assert.equal((await client.getNonce(address, TransactionType.WALLET)).nonce, '0');

    const sent = await client.executeDepositWalletBatch(
      approveAndSplit(condition_id, 5_000_000n, 2_000_000n),
      wallet,
      deadline(),
    );
    const mined = await sent.wait();
    assert.equal(mined?.state, 'STATE_CONFIRMED');
    assert.equal(mined?.proxyAddress.toLowerCase(), wallet);
    assert.equal(await collateralOf(wallet), 8_000_000n);
    assert.equal(await allowanceOf(wallet), 3_000_000n, 'approved 5, the split spent 2');
    assert.equal(await positionOf(wallet, position_ids[0]), 2_000_000n);
    assert.equal(await positionOf(wallet, position_ids[1]), 2_000_000n);
    assert.equal(await collateralOf(address), 0n, 'the EOA paid nothing and holds nothing');
    assert.equal((await client.getNonce(address, TransactionType.WALLET)).nonce, '1');
  });

  test('a batch is all or nothing: a reverting later call fails it, the earlier approval is undone, the nonce unspent', async () => {
    const account = await sim.createAccount({ kind: 'deposit', collateral: '10000000' });
    const wallet = account.wallets.deposit as string;
    const { client, address } = relayClient(account.credentials.private_key);
    const { condition_id, position_ids } = await newCondition();
    // The approval would succeed alone; the split asks for more collateral than the wallet holds and reverts.
    const failed = await client.executeDepositWalletBatch(
      approveAndSplit(condition_id, 50_000_000n, 20_000_000n),
      wallet,
      deadline(),
    );
    assert.equal(await failed.wait(), undefined, 'the client reports the failed state');
    const [tx] = await client.getTransaction(failed.transactionID);
    assert.equal(tx?.state, 'STATE_FAILED');
    const receipt = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getTransactionReceipt',
        params: [tx?.transactionHash],
      }),
    });
    const { result } = (await receipt.json()) as { result: { status: string; to: string } };
    assert.equal(result.status, '0x0', 'one mined transaction, reverted');
    assert.equal(
      result.to.toLowerCase(),
      '0x00000000000fb5c9adea0298d729a0cb3823cc07',
      'sent to the factory',
    );
    assert.equal(await allowanceOf(wallet), 0n, 'the approval was undone with the batch');
    assert.equal(await collateralOf(wallet), 10_000_000n);
    assert.equal(await positionOf(wallet, position_ids[0]), 0n);
    assert.equal((await client.getNonce(address, TransactionType.WALLET)).nonce, '0', 'nonce unspent');

    // The same nonce then carries a batch that fits.
    const ok = await client.executeDepositWalletBatch(
      approveAndSplit(condition_id, 5_000_000n, 1_000_000n),
      wallet,
      deadline(),
    );
    assert.equal((await ok.wait())?.state, 'STATE_CONFIRMED');
    assert.equal(await allowanceOf(wallet), 4_000_000n);
    assert.equal((await client.getNonce(address, TransactionType.WALLET)).nonce, '1');
  });

  test('a tampered signature, a changed call and a replay are refused, a batch spending POL it lacks fails; nothing moves', async () => {
    const account = await sim.createAccount({ kind: 'deposit', collateral: '10000000' });
    const wallet = account.wallets.deposit as string;
    const { client, address } = relayClient(account.credentials.private_key);
    const { condition_id } = await newCondition();
    const signer = client.signer;
    const builder = client.builderConfig;
    assert.ok(signer && builder);
    const config = client.contractConfig.DepositWalletContracts;
    const args = {
      from: address,
      chainId: 137,
      walletAddress: wallet,
      nonce: '0',
      deadline: deadline(),
      calls: approveAndSplit(condition_id, 5_000_000n, 1_000_000n),
    };
    const request = await buildDepositWalletBatchRequest(signer, args, config);
    const submit = async (body: unknown) => {
      const text = JSON.stringify(body);
      const headers = await builder.generateBuilderHeaders('POST', '/submit', text);
      assert.ok(headers);
      const res = await fetch(`${sim.urls.relayer}/submit`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: text,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    // One bit of s flipped: a well-formed signature by nobody in particular.
    const sig = request.signature;
    const flipped = `${sig.slice(0, 100)}${(Number.parseInt(sig[100] as string, 16) ^ 1).toString(16)}${sig.slice(101)}`;
    const tampered = await submit({ ...request, signature: flipped });
    assert.equal(tampered.status, 400, JSON.stringify(tampered.body));
    // The owner's valid signature over one amount, sent with another.
    const changed = structuredClone(request);
    changed.depositWalletParams.calls = approveAndSplit(condition_id, 5_000_000n, 9_000_000n);
    const moved = await submit(changed);
    assert.equal(moved.status, 400, JSON.stringify(moved.body));
    // Correctly signed, but sending native value the wallet does not have: relayed, and the whole batch fails.
    const withValue = { ...args, calls: args.calls.map((c, i) => (i === 0 ? { ...c, value: '1' } : c)) };
    const valued = await submit(await buildDepositWalletBatchRequest(signer, withValue, config));
    assert.equal(valued.status, 200, JSON.stringify(valued.body));
    const [failed] = await client.getTransaction(String(valued.body.transactionID));
    assert.equal(failed?.state, 'STATE_FAILED');
    assert.equal(await collateralOf(wallet), 10_000_000n);
    assert.equal(await allowanceOf(wallet), 0n);
    assert.equal((await client.getNonce(address, TransactionType.WALLET)).nonce, '0');

    // The untouched request goes through once; the same bytes again are a replay of a spent nonce.
    const ok = await submit(request);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(await collateralOf(wallet), 9_000_000n);
    const replay = await submit(request);
    assert.equal(replay.status, 400, JSON.stringify(replay.body));
    assert.equal(await collateralOf(wallet), 9_000_000n);
    assert.equal((await client.getNonce(address, TransactionType.WALLET)).nonce, '1');
  });

  test("a call's native value is paid from the wallet's own POL", async () => {
    const account = await sim.createAccount({ kind: 'deposit', collateral: '0' });
    const wallet = account.wallets.deposit as string;
    const { client } = relayClient(account.credentials.private_key);
    const fund = await fetch(`${sim.control}/__sim/chain/fund`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: wallet, gas: '5000' }),
    });
    assert.equal(fund.status, 200);
    const recipient = `0x${'5e'.repeat(20)}` as Address;
    const sent = await client.executeDepositWalletBatch(
      [{ target: recipient, value: '1200', data: '0x' }],
      wallet,
      deadline(),
    );
    assert.equal((await sent.wait())?.state, 'STATE_CONFIRMED');
    assert.equal(await balanceOf(recipient), 1200n);
    assert.equal(await balanceOf(wallet as Address), 3800n);
  });

  test('wrong builder credentials are refused (401) and move nothing', async () => {
    const account = await sim.createAccount({ kind: 'deposit', collateral: '10000000' });
    const wallet = account.wallets.deposit as string;
    const { condition_id } = await newCondition();
    const good = sim.relayerAuth;
    const wrong = [
      { ...good, secret: Buffer.from('not the operator secret').toString('base64') },
      { ...good, key: '00000000-0000-4000-8000-000000000000' },
      { ...good, passphrase: 'not-the-passphrase' },
    ];
    for (const creds of wrong) {
      const { client, address } = relayClient(account.credentials.private_key, creds);
      await assert.rejects(
        client.executeDepositWalletBatch(approveAndSplit(condition_id, 1n, 1n), wallet, deadline()),
        (error: unknown) => {
          assert.ok(error instanceof Error);
          assert.equal((JSON.parse(error.message) as { status: number }).status, 401);
          return true;
        },
      );
      assert.equal((await client.getNonce(address, TransactionType.WALLET)).nonce, '0');
    }
    assert.equal(await collateralOf(wallet), 10_000_000n);
    assert.equal(await allowanceOf(wallet), 0n);
  });
});
