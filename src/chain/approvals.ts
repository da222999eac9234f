// What "approved for trading" means on Polymarket V2 and how it is read and set. The spec's approval model names
// tokens `usdc` (the collateral, pUSD since V2) and `ctf` (the ERC-1155 outcome tokens) and targets
// `ctf_exchange`, `neg_risk_ctf_exchange`, `neg_risk_adapter`; V2's SDK (getRequiredTradingApprovals) adds the
// collateral adapters, which we name `collateral_adapter` and `neg_risk_collateral_adapter`. Collateral is an
// ERC-20 `approve(target, 2^256-1)`, read back with `allowance`; outcome tokens are `setApprovalForAll(target,
// true)`, read back with `isApprovedForAll`. Sources: docs/venues/polymarket.md ("On chain").
import { type Address, encodeFunctionData, type Hex, maxUint256 } from 'viem';
import { conditionalTokensAbi, erc20Abi } from './abis.js';
import type { OnChain } from './chain.js';
import type { PolymarketContracts } from './polymarket-contracts.js';

export const APPROVAL_TOKENS = ['usdc', 'ctf'] as const;
export type ApprovalToken = (typeof APPROVAL_TOKENS)[number];

export const APPROVAL_TARGETS = [
  'ctf_exchange',
  'neg_risk_ctf_exchange',
  'neg_risk_adapter',
  'collateral_adapter',
  'neg_risk_collateral_adapter',
] as const;
export type ApprovalTarget = (typeof APPROVAL_TARGETS)[number];

/** The POST /approvals body's switches and the approvals each one asks for. */
export const APPROVAL_GROUPS = ['usdc', 'ctf', 'usdc_neg_risk', 'ctf_neg_risk'] as const;
export type ApprovalGroup = (typeof APPROVAL_GROUPS)[number];

const STANDARD: readonly ApprovalTarget[] = ['ctf_exchange', 'collateral_adapter'];
const NEG_RISK: readonly ApprovalTarget[] = [
  'neg_risk_ctf_exchange',
  'neg_risk_adapter',
  'neg_risk_collateral_adapter',
];

export interface ApprovalItem {
  token: ApprovalToken;
  target: ApprovalTarget;
}

export function approvalsOf(group: ApprovalGroup): ApprovalItem[] {
  const token: ApprovalToken = group.startsWith('usdc') ? 'usdc' : 'ctf';
  return (group.endsWith('neg_risk') ? NEG_RISK : STANDARD).map((target) => ({ token, target }));
}

/** Every approval trading needs, in the order GET /approvals lists them. */
export const ALL_APPROVALS: readonly ApprovalItem[] = APPROVAL_GROUPS.flatMap(approvalsOf);

export function targetAddress(contracts: PolymarketContracts, target: ApprovalTarget): Address {
  switch (target) {
    case 'ctf_exchange':
      return contracts.exchange;
    case 'neg_risk_ctf_exchange':
      return contracts.negRiskExchange;
    case 'neg_risk_adapter':
      return contracts.negRiskAdapter;
    case 'collateral_adapter':
      return contracts.collateralAdapter;
    case 'neg_risk_collateral_adapter':
      return contracts.negRiskCollateralAdapter;
  }
}

export interface AllowanceStatus extends ApprovalItem {
  approved: boolean;
  details: string;
}

/**
 * Reads each approval for `owner`. Collateral counts as approved at an allowance of at least half of 2^256 (a
 * max approval spent down by trading stays far above it; a finite allowance is reported with its amount).
 */
export async function readApprovals(chain: OnChain, owner: Address): Promise<AllowanceStatus[]> {
  const { contracts, client } = chain;
  // One read per approval, in parallel: the multicall contract is not on every chain (the sandbox has none).
  return Promise.all(
    ALL_APPROVALS.map(async (item): Promise<AllowanceStatus> => {
      const target = targetAddress(contracts, item.target);
      if (item.token === 'usdc') {
        const allowance = await client.readContract({
          address: contracts.collateral,
          abi: erc20Abi,
          functionName: 'allowance',
          args: [owner, target],
        });
        const amount = allowance === maxUint256 ? 'unlimited' : allowance.toString();
        return {
          ...item,
          approved: allowance >= maxUint256 / 2n,
          details: `collateral ${contracts.collateral} allowance for ${target}: ${amount}`,
        };
      }
      const approved = await client.readContract({
        address: contracts.conditionalTokens,
        abi: conditionalTokensAbi,
        functionName: 'isApprovedForAll',
        args: [owner, target],
      });
      return {
        ...item,
        approved,
        details: `outcome tokens ${contracts.conditionalTokens} operator ${target}: ${approved ? 'approved' : 'not approved'}`,
      };
    }),
  );
}

/** The contract call that grants one approval (encoded by viem). */
export function approvalCall(contracts: PolymarketContracts, item: ApprovalItem): { to: Hex; data: Hex } {
  const target = targetAddress(contracts, item.target);
  if (item.token === 'usdc') {
    return {
      to: contracts.collateral,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [target, maxUint256] }),
    };
  }
  return {
    to: contracts.conditionalTokens,
    data: encodeFunctionData({
      abi: conditionalTokensAbi,
      functionName: 'setApprovalForAll',
      args: [target, true],
    }),
  };
}
