// One EVM chain Omnibook reads and writes: a viem public client on the configured JSON-RPC endpoint (Polygon, or
// the sandbox's local anvil, which also answers as chain 137) and the Polymarket contracts on it.
import {
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import type { PolymarketContracts } from './polymarket-contracts.js';

export interface ChainOptions {
  rpcUrl: string;
  chainId: number;
  contracts: PolymarketContracts;
  /** Deadline of one RPC request. */
  timeoutMs?: number;
}

export interface OnChain {
  readonly chain: Chain;
  readonly contracts: PolymarketContracts;
  readonly client: PublicClient;
  /** A wallet client that signs locally with this key and sends through the same endpoint. */
  wallet(privateKey: Hex): ReturnType<typeof walletFor>;
}

function walletFor(chain: Chain, rpcUrl: string, timeoutMs: number, privateKey: Hex) {
  return createWalletClient({
    account: privateKeyToAccount(privateKey),
    chain,
    transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }),
  });
}

export function connectChain(options: ChainOptions): OnChain {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const chain: Chain =
    options.chainId === polygon.id
      ? { ...polygon, rpcUrls: { default: { http: [options.rpcUrl] } } }
      : defineChain({
          id: options.chainId,
          name: `chain ${options.chainId}`,
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: { default: { http: [options.rpcUrl] } },
        });
  const client = createPublicClient({
    chain,
    // Receipts are awaited by polling; a local chain mines at once, so poll often.
    pollingInterval: 250,
    transport: http(options.rpcUrl, { timeout: timeoutMs, retryCount: 1 }),
  }) as PublicClient;
  return {
    chain,
    contracts: options.contracts,
    client,
    wallet: (privateKey) => walletFor(chain, options.rpcUrl, timeoutMs, privateKey),
  };
}
