// The FeeEscrow contract on the sandbox chain, signed by ethers (independent of the viem code the API uses): a
// valid PullFee moves the fee into escrow and settles pro rata (affiliate bps of the filled share, treasury the rest,
// the payer the unfilled share); every bad authorization reverts with nothing moved; only the operator pulls and
// settles; an order id escrows once; the payer reclaims an unsettled fee after the delay. Balances are read on chain.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Wallet } from 'ethers';
import { type Address, erc20Abi, type Hex, parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { OnChain } from '../../../src/chain/chain.js';
import {
  EscrowCallError,
  FEE_ESCROW_DOMAIN_NAME,
  FeeEscrowContract,
  feeEscrowAbi,
  pullFeeSigner,
} from '../../../src/chain/fee-escrow/fee-escrow-contract.js';
import { deployFeeEscrow, type FeeEscrowDeployment } from '../../../src/chain/sandbox/fee-escrow-deploy.js';
import { type SandboxChain, startSandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
import { connectSandboxChain } from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import { PULL_FEE_TYPES } from '../../support/pull-fee.js';

let chain: SandboxChain;
let onChain: OnChain;
let deployment: FeeEscrowDeployment;
let escrow: FeeEscrowContract;
const affiliate = privateKeyToAccount(generatePrivateKey()).address;

before(async () => {
  chain = await startSandboxChain();
  onChain = connectSandboxChain(chain, loadConfig({ env: {}, overrides: { mode: 'sandbox' } }));
  deployment = await deployFeeEscrow(chain);
  escrow = new FeeEscrowContract(onChain, deployment.address, deployment.operatorKey, 30_000);
});
after(async () => {
  await chain?.close();
});

const mintAbi = parseAbi(['function mint(address to, uint256 amount)']);

async function send(key: Hex, to: Hex, abi: typeof mintAbi | typeof erc20Abi, fn: string, args: unknown[]) {
  const wallet = onChain.wallet(key);
  const hash = await wallet.writeContract({ address: to, abi, functionName: fn, args } as never);
  const receipt = await onChain.client.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, 'success');
}

/** A payer holding `funds` of collateral, with gas, that approved the escrow for `allowance`. */
async function payer(funds: bigint, allowance = funds): Promise<Wallet> {
  const key = generatePrivateKey();
  const wallet = new Wallet(key);
  await onChain.client.request({
    method: 'anvil_setBalance' as never,
    params: [wallet.address, '0xde0b6b3a7640000'] as never,
  });
  await send(chain.minterKey, chain.contracts.collateral, mintAbi, 'mint', [wallet.address, funds]);
  await send(key, chain.contracts.collateral, erc20Abi, 'approve', [deployment.address, allowance]);
  return wallet;
}

const balance = (owner: string) =>
  onChain.client.readContract({
    address: chain.contracts.collateral,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner as Address],
  });

let seq = 0;
const orderId = () => `0x${(++seq).toString(16).padStart(8, '0')}${'ab'.repeat(28)}` as Hex;

async function sign(
  signer: Wallet,
  message: { orderId: Hex; payer: string; feeAmount: bigint; deadline: bigint },
  domain: Record<string, unknown> = {},
): Promise<Hex> {
  return (await signer.signTypedData(
    {
      name: FEE_ESCROW_DOMAIN_NAME,
      version: '1',
      chainId: chain.chainId,
      verifyingContract: deployment.address,
      ...domain,
    },
    PULL_FEE_TYPES,
    message,
  )) as Hex;
}

async function now(): Promise<bigint> {
  return (await onChain.client.getBlock()).timestamp;
}

test('an ethers signature is recovered alike by viem and by the contract, and escrows the fee; settling splits the filled share', async () => {
  const alice = await payer(5_000_000n);
  const id = orderId();
  const message = {
    orderId: id,
    payer: alice.address,
    feeAmount: 1_000_000n,
    deadline: (await now()) + 600n,
  };
  const signature = await sign(alice, message);
  const auth = { ...message, payer: alice.address as Hex, signature };
  assert.equal(await pullFeeSigner(chain.chainId, deployment.address, auth), alice.address);
  const onChainSigner = await onChain.client.readContract({
    address: deployment.address,
    abi: feeEscrowAbi,
    functionName: 'pullFeeSigner',
    args: [id, auth.payer, auth.feeAmount, auth.deadline, signature],
  });
  assert.equal(onChainSigner, alice.address);

  await escrow.pull(auth, affiliate, 2_000);
  assert.equal(await balance(alice.address), 4_000_000n);
  assert.equal(await balance(deployment.address), 1_000_000n);
  assert.deepEqual(await escrow.record(id), { state: 'held', payer: alice.address, amount: 1_000_000n });

  // 3 of 4 filled: 750_000 distributed (20% to the affiliate), 250_000 back to the payer.
  await escrow.settle(id, 3n, 4n);
  assert.equal(await balance(affiliate), 150_000n);
  assert.equal(await balance(deployment.treasury), 600_000n);
  assert.equal(await balance(alice.address), 4_250_000n);
  assert.equal(await balance(deployment.address), 0n);
  assert.equal((await escrow.record(id)).state, 'settled');
  await assert.rejects(escrow.settle(id, 0n, 1n), /no fee held/);
});

test('a cancel refunds everything; the order id cannot escrow again', async () => {
  const bob = await payer(2_000_000n);
  const id = orderId();
  const message = { orderId: id, payer: bob.address, feeAmount: 500_000n, deadline: (await now()) + 600n };
  const auth = { ...message, payer: bob.address as Hex, signature: await sign(bob, message) };
  await escrow.pull(auth, affiliate, 2_000);
  assert.equal(await balance(bob.address), 1_500_000n);
  await escrow.settle(id, 0n, 10n);
  assert.equal(await balance(bob.address), 2_000_000n);
  await assert.rejects(escrow.pull(auth, affiliate, 2_000), /order id already used/);
  assert.equal(await balance(bob.address), 2_000_000n);
});

test('bad authorizations revert and move nothing', async () => {
  const carol = await payer(2_000_000n);
  const mallory = new Wallet(generatePrivateKey());
  const t = await now();
  const base = { payer: carol.address, feeAmount: 400_000n, deadline: t + 600n };
  const cases: Array<[string, () => Promise<{ auth: Parameters<FeeEscrowContract['pull']>[0] }>, RegExp]> = [
    [
      'signed by someone else',
      async () => {
        const m = { ...base, orderId: orderId() };
        return { auth: { ...m, payer: carol.address as Hex, signature: await sign(mallory, m) } };
      },
      /not signed by the payer/,
    ],
    [
      'another amount than signed',
      async () => {
        const m = { ...base, orderId: orderId() };
        return {
          auth: { ...m, feeAmount: 1n, payer: carol.address as Hex, signature: await sign(carol, m) },
        };
      },
      /not signed by the payer/,
    ],
    [
      'another escrow (domain)',
      async () => {
        const m = { ...base, orderId: orderId() };
        const signature = await sign(carol, m, { verifyingContract: chain.contracts.collateral });
        return { auth: { ...m, payer: carol.address as Hex, signature } };
      },
      /not signed by the payer/,
    ],
    [
      'another chain (domain)',
      async () => {
        const m = { ...base, orderId: orderId() };
        const signature = await sign(carol, m, { chainId: 1 });
        return { auth: { ...m, payer: carol.address as Hex, signature } };
      },
      /not signed by the payer/,
    ],
    [
      'expired',
      async () => {
        const m = { ...base, deadline: t - 1n, orderId: orderId() };
        return { auth: { ...m, payer: carol.address as Hex, signature: await sign(carol, m) } };
      },
      /authorization expired/,
    ],
    [
      'truncated signature',
      async () => {
        const m = { ...base, orderId: orderId() };
        const signature = (await sign(carol, m)).slice(0, 130) as Hex;
        return { auth: { ...m, payer: carol.address as Hex, signature } };
      },
      /not signed by the payer/,
    ],
  ];
  for (const [name, make, reason] of cases) {
    const { auth } = await make();
    await assert.rejects(
      escrow.pull(auth, affiliate, 2_000),
      (e: unknown) => e instanceof EscrowCallError && e.kind === 'reverted' && reason.test(e.message),
      name,
    );
    assert.equal((await escrow.record(auth.orderId)).state, 'none', name);
  }
  assert.equal(await balance(carol.address), 2_000_000n);
  assert.equal(await balance(deployment.address), 0n);
});

test('a payer without allowance or funds is refused with nothing held', async () => {
  const dave = await payer(100n, 0n);
  const m = { orderId: orderId(), payer: dave.address, feeAmount: 100n, deadline: (await now()) + 600n };
  const auth = { ...m, payer: dave.address as Hex, signature: await sign(dave, m) };
  await assert.rejects(escrow.pull(auth, affiliate, 0), /insufficient allowance/);
  assert.equal((await escrow.record(m.orderId)).state, 'none');
  assert.equal(await balance(dave.address), 100n);
});

test('only the operator pulls and settles; the payer reclaims an unsettled fee after 30 days, not before', async () => {
  const erin = await payer(1_000_000n);
  const m = { orderId: orderId(), payer: erin.address, feeAmount: 300_000n, deadline: (await now()) + 600n };
  const auth = { ...m, payer: erin.address as Hex, signature: await sign(erin, m) };
  const stranger = new FeeEscrowContract(onChain, deployment.address, erin.privateKey as Hex, 30_000);
  await assert.rejects(stranger.pull(auth, erin.address as Hex, 10_000), /only the operator/);
  await escrow.pull(auth, affiliate, 2_000);
  await assert.rejects(stranger.settle(m.orderId, 1n, 1n), /only the operator/);

  const reclaim = () =>
    send(erin.privateKey as Hex, deployment.address, feeEscrowAbi as never, 'reclaim', [m.orderId]);
  await assert.rejects(reclaim(), /too early to reclaim/);
  await onChain.client.request({ method: 'evm_increaseTime' as never, params: [30 * 86_400] as never });
  await onChain.client.request({ method: 'evm_mine' as never, params: [] as never });
  await reclaim();
  assert.equal(await balance(erin.address), 1_000_000n);
  assert.equal((await escrow.record(m.orderId)).state, 'settled');
});
