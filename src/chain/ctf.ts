// Split, merge and redeem of a binary market's outcome tokens, as the V2 SDK routes them: standard markets through
// the CollateralAdapter with the CTF's five-argument forms (parent collection 0, partition / index sets [1, 2]),
// neg-risk redemption through the NegRiskAdapter's `redeemPositions(conditionId, [yes, no])`. Also the reads
// that let a caller be refused before anything is submitted. Sources: docs/venues/polymarket.md ("On chain").
import { type Address, encodeFunctionData, type Hex, zeroHash } from 'viem';
import { collateralAdapterAbi, conditionalTokensAbi, erc20Abi } from './abis.js';
import type { OnChain } from './chain.js';

const BINARY = [1n, 2n] as const;

export function splitCall(chain: OnChain, conditionId: Hex, amount: bigint): { to: Hex; data: Hex } {
  const { contracts } = chain;
  return {
    to: contracts.collateralAdapter,
    data: encodeFunctionData({
      abi: collateralAdapterAbi,
      functionName: 'splitPosition',
      args: [contracts.collateral, zeroHash, conditionId, [...BINARY], amount],
    }),
  };
}

export function mergeCall(chain: OnChain, conditionId: Hex, amount: bigint): { to: Hex; data: Hex } {
  const { contracts } = chain;
  return {
    to: contracts.collateralAdapter,
    data: encodeFunctionData({
      abi: collateralAdapterAbi,
      functionName: 'mergePositions',
      args: [contracts.collateral, zeroHash, conditionId, [...BINARY], amount],
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
        abi: collateralAdapterAbi,
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
  /** ERC-1155 position ids of YES (index set 1) and NO (index set 2) on the collateral. */
  positionIds: readonly [bigint, bigint];
}

export async function readCondition(chain: OnChain, conditionId: Hex): Promise<ConditionState> {
  const { client, contracts } = chain;
  const ctf = { address: contracts.conditionalTokens, abi: conditionalTokensAbi } as const;
  const [outcomes, denominator] = await Promise.all([
    client.readContract({ ...ctf, functionName: 'getOutcomeSlotCount', args: [conditionId] }),
    client.readContract({ ...ctf, functionName: 'payoutDenominator', args: [conditionId] }),
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
        args: [contracts.collateral, collection],
      });
    }),
  );
  return {
    outcomes: Number(outcomes),
    resolved: denominator > 0n,
    positionIds: [positionIds[0] as bigint, positionIds[1] as bigint],
  };
}

export async function positionBalances(
  chain: OnChain,
  owner: Address,
  positionIds: readonly [bigint, bigint],
): Promise<[bigint, bigint]> {
  const balances = await chain.client.readContract({
    address: chain.contracts.conditionalTokens,
    abi: conditionalTokensAbi,
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
