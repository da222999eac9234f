// Gnosis Safes (signature type 2) and Polymarket proxy wallets (type 1) on the sandbox chain. The official relayer
// client derives both by CREATE2 from Polymarket's own factories (SafeProxyFactory 0xaacF…541b, ProxyWalletFactory
// 0xaB45…4052) with init-code hashes whose bytecode is not published in any package, so no contract we can deploy
// puts a wallet there. The simulator, which controls its anvil, *places* each wallet at the derived address instead
// (anvil_setCode / anvil_setStorageAt), the way the sandbox already copies contract code to Polygon addresses:
// - Safe: the real Gnosis Safe v1.3.0 bytecode (`@gnosis.pm/safe-contracts@1.3.0` build artifacts, extracted by
//   scripts/extract-gnosis-safe.mjs): the singleton, the CompatibilityFallbackHandler and MultiSend at their canonical
//   v1.3.0 addresses (MultiSend 0xA238…7761 is the relayer client's `SafeMultisend`); a Safe is a GnosisSafeProxy
//   runtime whose slot 0 names the singleton, then `setup([owner], 1, …, fallbackHandler, …)` as Polymarket's
//   factory's `createProxy` calls it (Polymarket/proxy-factories `SafeProxyFactory.sol`). A SAFE transaction is the
//   Safe's own `execTransaction`, which checks the owner's signature and nonce on chain.
// - Proxy wallet: our ProxyWallet stand-in (contracts/ProxyWallet.sol), owned by the relayer's account, which plays
//   the GSN RelayHub and the factory after checking the user's relay signature; it is sent the client's
//   `proxy(calls)` data unchanged.
// Imports nothing from src/.
import { readFileSync } from 'node:fs';
import {
  type Abi,
  type Address,
  createWalletClient,
  type Hex,
  http,
  pad,
  parseAbi,
  parseEther,
  zeroAddress,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { SimChainClient } from './chain.js';

interface SafeArtifacts {
  contracts: Record<
    'GnosisSafe' | 'GnosisSafeProxy' | 'CompatibilityFallbackHandler' | 'MultiSend',
    { bytecode: Hex; deployedBytecode: Hex }
  >;
}

const safeArtifacts = (
  JSON.parse(
    readFileSync(new URL('./contracts/gnosis-safe-1.3.0.json', import.meta.url), 'utf8'),
  ) as SafeArtifacts
).contracts;
const proxyWalletArtifact = (
  JSON.parse(readFileSync(new URL('./contracts/proxy-wallet.json', import.meta.url), 'utf8')) as {
    contracts: { ProxyWallet: { abi: Abi; bytecode: Hex } };
  }
).contracts.ProxyWallet;

/** Gnosis Safe v1.3.0 canonical deployments (safe-global/safe-deployments v1.3.0 `gnosis_safe`, `multi_send`, …). */
export const SAFE_SINGLETON: Address = '0xd9Db270c1B5E3Bd161E8c8503c55cEABeE709552';
export const SAFE_FALLBACK_HANDLER: Address = '0xf48f2B2d2a534e402487b3ee7C18c33Aec0Fe5e4';
export const SAFE_MULTISEND: Address = '0xA238CBeb142c10Ef7Ad8442C6D1f9E89e07e7761';

export const safeAbi = parseAbi([
  'function setup(address[] _owners, uint256 _threshold, address to, bytes data, address fallbackHandler, address paymentToken, uint256 payment, address paymentReceiver)',
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns (bool)',
  'function nonce() view returns (uint256)',
  'function getOwners() view returns (address[])',
]);

/** A batch a relayer sends: one transaction, all or nothing; reverts are mined and reported, never thrown. */
const BATCH_GAS = 8_000_000n;

function relayerWallet(client: SimChainClient, rpcUrl: string, relayerKey: Hex) {
  return createWalletClient({
    account: privateKeyToAccount(relayerKey),
    chain: client.chain,
    transport: http(rpcUrl),
  });
}

/**
 * Places the Safe singleton, fallback handler and MultiSend at their addresses (deployed normally, runtime code then
 * copied: MultiSend's one immutable is its own deployment address, used only to refuse a direct call) and returns the
 * proxy wallet stand-in's runtime code for later placements.
 */
export async function installSafeProxyContracts(
  client: SimChainClient,
  rpcUrl: string,
  relayerKey: Hex,
): Promise<{ proxyWalletCode: Hex }> {
  const wallet = relayerWallet(client, rpcUrl, relayerKey);
  await client.setBalance({ address: wallet.account.address, value: parseEther('1000000') });
  const runtime = async (bytecode: Hex, abi: Abi = []): Promise<Hex> => {
    const hash = await wallet.deployContract({ abi, bytecode });
    const receipt = await client.waitForTransactionReceipt({ hash });
    const code = receipt.contractAddress
      ? await client.getCode({ address: receipt.contractAddress })
      : undefined;
    if (!code) throw new Error('sandbox chain: a Safe / proxy wallet contract deployment made no code');
    return code;
  };
  const placed: [Address, Hex][] = [
    [SAFE_SINGLETON, safeArtifacts.GnosisSafe.bytecode],
    [SAFE_FALLBACK_HANDLER, safeArtifacts.CompatibilityFallbackHandler.bytecode],
    [SAFE_MULTISEND, safeArtifacts.MultiSend.bytecode],
  ];
  for (const [at, bytecode] of placed)
    await client.setCode({ address: at, bytecode: await runtime(bytecode) });
  return { proxyWalletCode: await runtime(proxyWalletArtifact.bytecode, proxyWalletArtifact.abi) };
}

async function hasCode(client: SimChainClient, at: Address): Promise<boolean> {
  const code = await client.getCode({ address: at });
  return code !== undefined && code !== '0x';
}

/** Puts `owner`'s Safe at `at`: a GnosisSafeProxy on the v1.3.0 singleton, set up with one owner and threshold 1. */
export async function placeSafe(
  client: SimChainClient,
  rpcUrl: string,
  relayerKey: Hex,
  owner: Address,
  at: Address,
): Promise<Hex | null> {
  if (await hasCode(client, at)) return null;
  await client.setCode({ address: at, bytecode: safeArtifacts.GnosisSafeProxy.deployedBytecode });
  await client.setStorageAt({ address: at, index: 0, value: pad(SAFE_SINGLETON) });
  const wallet = relayerWallet(client, rpcUrl, relayerKey);
  const hash = await wallet.writeContract({
    address: at,
    abi: safeAbi,
    functionName: 'setup',
    args: [[owner], 1n, zeroAddress, '0x', SAFE_FALLBACK_HANDLER, zeroAddress, 0n, zeroAddress],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error('sandbox chain: Safe setup reverted');
  return hash;
}

/** Puts a proxy wallet at `at`, driven only by the relayer's account (slot 0 = owner). */
export async function placeProxyWallet(
  client: SimChainClient,
  code: Hex,
  relayer: Address,
  at: Address,
): Promise<void> {
  if (await hasCode(client, at)) return;
  await client.setCode({ address: at, bytecode: code });
  await client.setStorageAt({ address: at, index: 0, value: pad(relayer) });
}

export interface SafeTx {
  to: Address;
  data: Hex;
  operation: 0 | 1;
}

/** The Safe's `execTransaction` with no gas refund; the Safe checks the signature and nonce itself. */
export async function execSafeTransaction(
  client: SimChainClient,
  rpcUrl: string,
  relayerKey: Hex,
  safe: Address,
  tx: SafeTx,
  signatures: Hex,
): Promise<{ hash: Hex; success: boolean }> {
  const wallet = relayerWallet(client, rpcUrl, relayerKey);
  const hash = await wallet.writeContract({
    address: safe,
    abi: safeAbi,
    functionName: 'execTransaction',
    args: [tx.to, 0n, tx.data, tx.operation, 0n, 0n, 0n, zeroAddress, zeroAddress, signatures],
    gas: BATCH_GAS,
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  return { hash, success: receipt.status === 'success' };
}

/** Sends the client's `proxy(calls)` calldata to the wallet from the relayer's account (its owner). */
export async function execProxyCalls(
  client: SimChainClient,
  rpcUrl: string,
  relayerKey: Hex,
  wallet: Address,
  data: Hex,
): Promise<{ hash: Hex; success: boolean }> {
  const relayer = relayerWallet(client, rpcUrl, relayerKey);
  const hash = await relayer.sendTransaction({ to: wallet, data, gas: BATCH_GAS });
  const receipt = await client.waitForTransactionReceipt({ hash });
  return { hash, success: receipt.status === 'success' };
}

/** The Safe's next nonce as it holds it; 0 before it exists. */
export async function safeNonce(client: SimChainClient, safe: Address): Promise<bigint> {
  if (!(await hasCode(client, safe))) return 0n;
  return client.readContract({ address: safe, abi: safeAbi, functionName: 'nonce' });
}
