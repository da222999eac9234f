// The simulator's settlement exchange on the sandbox chain (contracts/SettlementExchange.sol): installed at the V2
// exchange's and the neg-risk exchange's Polygon addresses (deployed normally, runtime code — with its immutables
// operator, collateral and ConditionalTokens — copied there with anvil_setCode), called only by the simulator's
// operator key. Also the house market maker's account on chain: the house is the simulator's own paper market
// maker, so its address is driven through anvil's impersonation, approves both exchanges once, and is topped up
// (collateral minted, a YES+NO set split) right before a trade that needs it to deliver. Imports nothing from src/.
import { readFileSync } from 'node:fs';
import {
  type Abi,
  type Address,
  createWalletClient,
  type Hex,
  http,
  maxUint256,
  parseAbi,
  parseEther,
  zeroHash,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { SimChainClient } from './chain.js';
import { CONTRACTS } from './contracts.js';

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

const artifact = (
  JSON.parse(readFileSync(new URL('./contracts/settlement-exchange.json', import.meta.url), 'utf8')) as {
    contracts: { SettlementExchange: Artifact };
  }
).contracts.SettlementExchange;

export const settlementExchangeAbi = artifact.abi;

/** The exchanges a trader approves and the settlement contract answers at: the order's domain picks one. */
export const EXCHANGES = [CONTRACTS.exchangeV2, CONTRACTS.negRiskExchangeV2] as const;

export const exchangeFor = (negRisk: boolean): Address =>
  negRisk ? CONTRACTS.negRiskExchangeV2 : CONTRACTS.exchangeV2;

const erc20 = parseAbi([
  'function approve(address spender, uint256 amount) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
]);
const erc1155 = parseAbi([
  'function setApprovalForAll(address operator, bool approved)',
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'function balanceOf(address owner, uint256 id) view returns (uint256)',
  'function splitPosition(address collateralToken, bytes32 parentCollectionId, bytes32 conditionId, uint256[] partition, uint256 amount)',
]);

export interface ChainContracts {
  collateral: Address;
  conditionalTokens: Address;
}

/** Places the settlement exchange, operated by `operatorKey`, at both exchange addresses. */
export async function installSettlementExchange(
  client: SimChainClient,
  rpcUrl: string,
  operatorKey: Hex,
  contracts: ChainContracts,
): Promise<void> {
  const account = privateKeyToAccount(operatorKey);
  await client.setBalance({ address: account.address, value: parseEther('1000000') });
  const wallet = createWalletClient({ account, chain: client.chain, transport: http(rpcUrl) });
  const hash = await wallet.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: [account.address, contracts.collateral, contracts.conditionalTokens],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress)
    throw new Error('sandbox chain: settlement exchange deployment made no contract');
  const code = await client.getCode({ address: receipt.contractAddress });
  if (!code) throw new Error('sandbox chain: deployed settlement exchange has no code');
  for (const at of EXCHANGES) await client.setCode({ address: at, bytecode: code });
}

/**
 * Sends one transaction from an address the simulator does not hold a key for (the house, or a paper account's
 * contract wallet it sets up as already approved), through anvil's impersonation. Gas is lent for the duration:
 * the address's native balance is what it was afterwards.
 */
async function asImpersonated(
  client: SimChainClient,
  rpcUrl: string,
  from: Address,
  calls: ReadonlyArray<{ address: Address; abi: Abi; functionName: string; args: readonly unknown[] }>,
): Promise<void> {
  const balance = await client.getBalance({ address: from });
  await client.impersonateAccount({ address: from });
  await client.setBalance({ address: from, value: balance + parseEther('10') });
  try {
    const wallet = createWalletClient({ account: from, chain: client.chain, transport: http(rpcUrl) });
    // Sent one after another (the node numbers them in order), then awaited together: the calls do not depend on
    // each other's effects, and a receipt poll per call was most of a sandbox start-up on a busy machine.
    const hashes: Hex[] = [];
    // biome-ignore lint/suspicious/noExplicitAny: one sender for calls of several ABIs
    for (const call of calls) hashes.push(await wallet.writeContract(call as any));
    const receipts = await Promise.all(hashes.map((hash) => client.waitForTransactionReceipt({ hash })));
    receipts.forEach((receipt, i) => {
      if (receipt.status !== 'success') throw new Error(`sandbox chain: ${calls[i]?.functionName} reverted`);
    });
  } finally {
    await client.stopImpersonatingAccount({ address: from });
    await client.setBalance({ address: from, value: balance });
  }
}

/**
 * Every approval trading needs, for `owner`: collateral and outcome tokens to both exchanges; with `splits`, the
 * collateral to the ConditionalTokens contract as well (the house splits sets itself).
 */
export function approveExchanges(
  client: SimChainClient,
  rpcUrl: string,
  contracts: ChainContracts,
  owner: Address,
  splits: boolean,
): Promise<void> {
  return asImpersonated(client, rpcUrl, owner, [
    ...EXCHANGES.map((spender) => ({
      address: contracts.collateral,
      abi: erc20,
      functionName: 'approve',
      args: [spender, maxUint256],
    })),
    ...EXCHANGES.map((operator) => ({
      address: contracts.conditionalTokens,
      abi: erc1155,
      functionName: 'setApprovalForAll',
      args: [operator, true],
    })),
    ...(splits
      ? [
          {
            address: contracts.collateral,
            abi: erc20,
            functionName: 'approve',
            args: [contracts.conditionalTokens, maxUint256],
          },
        ]
      : []),
  ]);
}

/** The house splits `amount` of its collateral into YES+NO of `conditionId` (it was minted the collateral first). */
export function houseSplit(
  client: SimChainClient,
  rpcUrl: string,
  contracts: ChainContracts,
  house: Address,
  conditionId: Hex,
  amount: bigint,
): Promise<void> {
  return asImpersonated(client, rpcUrl, house, [
    {
      address: contracts.conditionalTokens,
      abi: erc1155,
      functionName: 'splitPosition',
      args: [contracts.collateral, zeroHash, conditionId, [1n, 2n], amount],
    },
  ]);
}

/** What an owner can trade with on chain, as the real CLOB reads it: balance and how much the exchange may move. */
export async function tradingFunds(
  client: SimChainClient,
  contracts: ChainContracts,
  owner: Address,
  exchange: Address,
  tokenId: bigint | null,
): Promise<{ balance: bigint; allowance: bigint }> {
  if (tokenId === null) {
    const [balance, allowance] = await Promise.all([
      client.readContract({
        address: contracts.collateral,
        abi: erc20,
        functionName: 'balanceOf',
        args: [owner],
      }),
      client.readContract({
        address: contracts.collateral,
        abi: erc20,
        functionName: 'allowance',
        args: [owner, exchange],
      }),
    ]);
    return { balance, allowance };
  }
  const [balance, approved] = await Promise.all([
    client.readContract({
      address: contracts.conditionalTokens,
      abi: erc1155,
      functionName: 'balanceOf',
      args: [owner, tokenId],
    }),
    client.readContract({
      address: contracts.conditionalTokens,
      abi: erc1155,
      functionName: 'isApprovedForAll',
      args: [owner, exchange],
    }),
  ]);
  // An operator approval covers every amount.
  return { balance, allowance: approved ? maxUint256 : 0n };
}

/**
 * `/balance-allowance` as the real CLOB answers it on chain: the owner's collateral (tokenId null) or ERC-1155
 * balance, and per spender its ERC-20 allowance, or for outcome tokens max uint256 when it is an approved operator.
 */
export async function balanceAllowances(
  client: SimChainClient,
  contracts: ChainContracts,
  owner: Address,
  spenders: readonly Address[],
  tokenId: bigint | null,
): Promise<{ balance: bigint; allowances: bigint[] }> {
  if (tokenId === null) {
    const [balance, ...allowances] = await Promise.all([
      client.readContract({
        address: contracts.collateral,
        abi: erc20,
        functionName: 'balanceOf',
        args: [owner],
      }),
      ...spenders.map((spender) =>
        client.readContract({
          address: contracts.collateral,
          abi: erc20,
          functionName: 'allowance',
          args: [owner, spender],
        }),
      ),
    ]);
    return { balance, allowances };
  }
  const [balance, ...approved] = await Promise.all([
    client.readContract({
      address: contracts.conditionalTokens,
      abi: erc1155,
      functionName: 'balanceOf',
      args: [owner, tokenId],
    }),
    ...spenders.map((operator) =>
      client.readContract({
        address: contracts.conditionalTokens,
        abi: erc1155,
        functionName: 'isApprovedForAll',
        args: [owner, operator],
      }),
    ),
  ]);
  return { balance: balance as bigint, allowances: approved.map((a) => (a ? maxUint256 : 0n)) };
}

export enum FillKind {
  Transfer = 0,
  Mint = 1,
  Merge = 2,
}

/** One fill as the contract takes it (see SettlementExchange.Fill). */
export interface ChainFill {
  kind: FillKind;
  first: Address;
  second: Address;
  tokenId: bigint;
  shares: bigint;
  firstAmount: bigint;
  secondAmount: bigint;
}

export interface ChainSettlement {
  tradeId: Hex;
  exchange: Address;
  market: { conditionId: Hex; yesId: bigint; noId: bigint };
  fills: ChainFill[];
  feePayer: Address;
  feeCollector: Address;
  fee: bigint;
}

/**
 * The operator's `settle` call. A settlement that reverts is still mined (a fixed gas limit, no estimate that
 * would refuse it first) and comes back `success: false` with its hash, as a failed match is reported.
 */
export async function sendSettlement(
  client: SimChainClient,
  rpcUrl: string,
  operatorKey: Hex,
  s: ChainSettlement,
): Promise<{ hash: Hex; success: boolean }> {
  const wallet = createWalletClient({
    account: privateKeyToAccount(operatorKey),
    chain: client.chain,
    transport: http(rpcUrl),
  });
  const hash = await wallet.writeContract({
    address: s.exchange,
    abi: settlementExchangeAbi,
    functionName: 'settle',
    args: [s.tradeId, s.market, s.fills, s.feePayer, s.feeCollector, s.fee],
    gas: 8_000_000n,
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  return { hash, success: receipt.status === 'success' };
}
