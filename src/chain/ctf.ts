// Split, merge and redeem of a binary market's outcome tokens, as the V2 SDK routes them (`@polymarket/client`
// src/actions/positions.ts): the CTF five-argument forms (parent collection 0, partition / index sets [1, 2],
// collateral pUSD) on the CollateralAdapter for a standard market and on the NegRiskCollateralAdapter for a
// neg-risk one; neg-risk redemption by [yes, no] amounts is the NegRiskAdapter's own
// `redeemPositions(conditionId, amounts)` (the service spec's neg-risk redeem). Neg-risk positions are
// collateralised by the NegRiskAdapter's WrappedCollateral, so their ERC-1155 ids are the CTF position ids on that
// token, and their balances are read through the adapter's ERC-1155 proxy, as the SDK reads them. Also the reads
// that let a caller be refused before anything is submitted. Sources: docs/venues/polymarket.md ("On chain").
import { type Address, encodeFunctionData, type Hex, zeroHash } from 'viem';
import { collateralAdapterAbi, conditionalTokensAbi, erc20Abi, negRiskAdapterAbi } from './abis.js';
import type { OnChain } from './chain.js';

const BINARY = [1n, 2n] as const;

/** Where a market's split / merge go: the V2 SDK's adapter for its kind. */
function adapterFor(chain: OnChain, negRisk: boolean): Address {
  return negRisk ? chain.contracts.negRiskCollateralAdapter : chain.contracts.collateralAdapter;
}

export function splitCall(
  chain: OnChain,
  conditionId: Hex,
  amount: bigint,
  negRisk: boolean,
): { to: Hex; data: Hex } {
  return {
    to: adapterFor(chain, negRisk),
    data: encodeFunctionData({
      abi: collateralAdapterAbi,
      functionName: 'splitPosition',
      args: [chain.contracts.collateral, zeroHash, conditionId, [...BINARY], amount],
    }),
  };
}

export function mergeCall(
  chain: OnChain,
  conditionId: Hex,
  amount: bigint,
  negRisk: boolean,
): { to: Hex; data: Hex } {
  return {
    to: adapterFor(chain, negRisk),
    data: encodeFunctionData({
      abi: collateralAdapterAbi,
      functionName: 'mergePositions',
      args: [chain.contracts.collateral, zeroHash, conditionId, [...BINARY], amount],
    }),
  };
}

export function redeemCall(
  chain: OnChain,
  conditionId: Hex,
  negRiskAmounts: readonly [bigint, bigint] | null,
) {
  const { contracts } = chain;
  if (negRiskAmounts) {
    return {
      to: contracts.negRiskAdapter,
      data: encodeFunctionData({
        abi: negRiskAdapterAbi,
        functionName: 'redeemPositions',
        args: [conditionId, [...negRiskAmounts]],
      }),
    };
  }
  return {
    to: contracts.collateralAdapter,
    data: encodeFunctionData({
      abi: collateralAdapterAbi,
      functionName: 'redeemPositions',
      args: [contracts.collateral, zeroHash, conditionId, [...BINARY]],
    }),
  };
}

export interface ConditionState {
  /** Outcome slots the CTF knows for it; 0 = never prepared. */
  outcomes: number;
  resolved: boolean;
  /** ERC-1155 position ids of YES (index set 1) and NO (index set 2): on pUSD, or on the wrapped collateral. */
  positionIds: readonly [bigint, bigint];
}

/** The token neg-risk positions are collateralised by, as the NegRiskAdapter names it. */
function wrappedCollateral(chain: OnChain): Promise<Address> {
  return chain.client.readContract({
    address: chain.contracts.negRiskAdapter,
    abi: negRiskAdapterAbi,
    functionName: 'wcol',
  });
}

export async function readCondition(
  chain: OnChain,
  conditionId: Hex,
  negRisk: boolean,
): Promise<ConditionState> {
  const { client, contracts } = chain;
  const ctf = { address: contracts.conditionalTokens, abi: conditionalTokensAbi } as const;
  const [outcomes, denominator, collateralToken] = await Promise.all([
    client.readContract({ ...ctf, functionName: 'getOutcomeSlotCount', args: [conditionId] }),
    client.readContract({ ...ctf, functionName: 'payoutDenominator', args: [conditionId] }),
    negRisk ? wrappedCollateral(chain) : contracts.collateral,
  ]);
  const positionIds = await Promise.all(
    BINARY.map(async (indexSet) => {
      const collection = await client.readContract({
        ...ctf,
        functionName: 'getCollectionId',
        args: [zeroHash, conditionId, indexSet],
      });
      return client.readContract({
        ...ctf,
        functionName: 'getPositionId',
        args: [collateralToken, collection],
      });
    }),
  );
  return {
    outcomes: Number(outcomes),
    resolved: denominator > 0n,
    positionIds: [positionIds[0] as bigint, positionIds[1] as bigint],
  };
}

/** YES and NO held: on the CTF, or for a neg-risk market through the NegRiskAdapter's proxy (the SDK's read). */
export async function positionBalances(
  chain: OnChain,
  owner: Address,
  positionIds: readonly [bigint, bigint],
  negRisk: boolean,
): Promise<[bigint, bigint]> {
  const balances = await chain.client.readContract({
    address: negRisk ? chain.contracts.negRiskAdapter : chain.contracts.conditionalTokens,
    abi: negRisk ? negRiskAdapterAbi : conditionalTokensAbi,
    functionName: 'balanceOfBatch',
    args: [[owner, owner], [...positionIds]],
  });
  return [balances[0] ?? 0n, balances[1] ?? 0n];
}

export function collateralBalance(chain: OnChain, owner: Address): Promise<bigint> {
  return chain.client.readContract({
    address: chain.contracts.collateral,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });
}
