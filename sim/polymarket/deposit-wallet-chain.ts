// Deposit wallets as contracts on the sandbox chain: our DepositWallet implementation is placed at the Polygon
// implementation address and our DepositWalletFactory at the Polygon factory address (deployed normally, runtime
// code then copied with anvil_setCode; the factory's only immutable is the implementation address), so the factory's
// CREATE2 clones land exactly where the official relayer client derives them. The relayer's key sends the factory's
// `deploy(owner)` for WALLET-CREATE and `execute(wallet, batch, signature)` for WALLET batches — one transaction,
// all calls or none. The CLOB's type-3 order check is an eth_call of the wallet's `isValidSignature`.
// Sources: contracts/DepositWallet.sol. Imports nothing from src/.
import { readFileSync } from 'node:fs';
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  type Hex,
  http,
  parseEther,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { SimChainClient } from './chain.js';
import { DEPOSIT_WALLET_IMPLEMENTATION, WALLET_FACTORIES } from './wallet-registry.js';

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

const artifacts = (
  JSON.parse(readFileSync(new URL('./contracts/deposit-wallet.json', import.meta.url), 'utf8')) as {
    contracts: { DepositWallet: Artifact; DepositWalletFactory: Artifact };
  }
).contracts;

export const depositWalletAbi = artifacts.DepositWallet.abi;
export const depositWalletFactoryAbi = artifacts.DepositWalletFactory.abi;

const ERC1271_MAGIC = '0x1626ba7e';

export interface WalletBatch {
  wallet: Hex;
  nonce: bigint;
  deadline: bigint;
  calls: readonly { target: Hex; value: bigint; data: Hex }[];
}

/** Places the implementation and the factory at their Polygon addresses; `relayerKey` pays for the deployments. */
export async function installDepositWalletContracts(
  client: SimChainClient,
  rpcUrl: string,
  relayerKey: Hex,
): Promise<void> {
  const account = privateKeyToAccount(relayerKey);
  await client.setBalance({ address: account.address, value: parseEther('1000000') });
  const wallet = createWalletClient({ account, chain: client.chain, transport: http(rpcUrl) });
  const place = async (artifact: Artifact, at: Address, args: readonly unknown[]) => {
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (!receipt.contractAddress)
      throw new Error('sandbox chain: deposit wallet deployment made no contract');
    const code = await client.getCode({ address: receipt.contractAddress });
    if (!code) throw new Error('sandbox chain: deployed deposit wallet contract has no code');
    await client.setCode({ address: at, bytecode: code });
  };
  await place(artifacts.DepositWallet, DEPOSIT_WALLET_IMPLEMENTATION, []);
  await place(artifacts.DepositWalletFactory, WALLET_FACTORIES.deposit, [DEPOSIT_WALLET_IMPLEMENTATION]);
}

/** The relayer's own signing client: it pays the gas of every deployment and batch it sends. */
function relayerWallet(client: SimChainClient, rpcUrl: string, relayerKey: Hex) {
  return createWalletClient({
    account: privateKeyToAccount(relayerKey),
    chain: client.chain,
    transport: http(rpcUrl),
  });
}

/** Deploys `owner`'s wallet through the factory; returns the transaction and the wallet the factory reported. */
export async function deployDepositWallet(
  client: SimChainClient,
  rpcUrl: string,
  relayerKey: Hex,
  owner: string,
): Promise<{ hash: Hex; wallet: string }> {
  const wallet = relayerWallet(client, rpcUrl, relayerKey);
  const { result, request } = await client.simulateContract({
    account: wallet.account,
    address: WALLET_FACTORIES.deposit,
    abi: depositWalletFactoryAbi,
    functionName: 'deploy',
    args: [owner as Address],
  });
  const hash = await wallet.writeContract(request);
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error('sandbox chain: deposit wallet deployment reverted');
  return { hash, wallet: (result as string).toLowerCase() };
}

/**
 * Sends the factory's `execute` for a signed batch. A batch whose calls revert is still mined (a fixed gas limit,
 * no estimate that would refuse it first) and comes back `success: false` with its hash, as a relayer reports a
 * failed transaction; nothing of it took effect.
 */
export async function executeWalletBatch(
  client: SimChainClient,
  rpcUrl: string,
  relayerKey: Hex,
  batch: WalletBatch,
  signature: Hex,
): Promise<{ hash: Hex; success: boolean }> {
  const wallet = relayerWallet(client, rpcUrl, relayerKey);
  const hash = await wallet.writeContract({
    address: WALLET_FACTORIES.deposit,
    abi: depositWalletFactoryAbi,
    functionName: 'execute',
    args: [batch.wallet, { ...batch, calls: [...batch.calls] }, signature],
    gas: 8_000_000n,
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  return { hash, success: receipt.status === 'success' };
}

/** The wallet's next batch nonce as the contract holds it; 0 before it is deployed. */
export async function walletNonce(client: SimChainClient, wallet: string): Promise<bigint> {
  const code = await client.getCode({ address: wallet as Address });
  if (!code) return 0n;
  return (await client.readContract({
    address: wallet as Address,
    abi: depositWalletAbi,
    functionName: 'nonce',
  })) as bigint;
}

/** ERC-1271 on chain: whether the wallet answers the magic value for this digest and signature. */
export async function walletAcceptsSignature(
  client: SimChainClient,
  wallet: string,
  digest: Hex,
  signature: Hex,
): Promise<boolean> {
  try {
    const answer = await client.readContract({
      address: wallet as Address,
      abi: depositWalletAbi,
      functionName: 'isValidSignature',
      args: [digest, signature],
    });
    return answer === ERC1271_MAGIC;
  } catch (error) {
    // No code there, or the wallet refused to decode: not a valid signature. A dead chain is not a refusal.
    if (error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionRevertedError))
      return false;
    if (error instanceof BaseError && /returned no data|reverted/i.test(error.shortMessage)) return false;
    throw error;
  }
}
