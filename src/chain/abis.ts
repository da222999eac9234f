// The contract functions Omnibook calls, as human-readable ABI fragments parsed by viem (viem encodes and decodes
// every call; nothing here is hand-encoded). Signatures follow docs/venues/polymarket.md ("On chain").
import { erc20Abi, parseAbi } from 'viem';

export { erc20Abi };

/** Gnosis ConditionalTokens (ERC-1155): approvals, balances, and the oracle's condition life cycle. */
export const conditionalTokensAbi = parseAbi([
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'function setApprovalForAll(address operator, bool approved)',
  'function balanceOf(address owner, uint256 id) view returns (uint256)',
  'function balanceOfBatch(address[] owners, uint256[] ids) view returns (uint256[])',
  'function prepareCondition(address oracle, bytes32 questionId, uint256 outcomeSlotCount)',
  'function reportPayouts(bytes32 questionId, uint256[] payouts)',
  'function getConditionId(address oracle, bytes32 questionId, uint256 outcomeSlotCount) pure returns (bytes32)',
  'function getOutcomeSlotCount(bytes32 conditionId) view returns (uint256)',
  'function payoutDenominator(bytes32 conditionId) view returns (uint256)',
  'function getCollectionId(bytes32 parentCollectionId, bytes32 conditionId, uint256 indexSet) view returns (bytes32)',
  'function getPositionId(address collateralToken, bytes32 collectionId) pure returns (uint256)',
]);

/**
 * What the V2 SDK calls on the CollateralAdapter and the NegRiskCollateralAdapter: the CTF-compatible forms
 * (`@polymarket/client` src/abis.ts, "works with both the standard and neg-risk collateral adapters").
 */
export const collateralAdapterAbi = parseAbi([
  'function splitPosition(address collateralToken, bytes32 parentCollectionId, bytes32 conditionId, uint256[] partition, uint256 amount)',
  'function mergePositions(address collateralToken, bytes32 parentCollectionId, bytes32 conditionId, uint256[] partition, uint256 amount)',
  'function redeemPositions(address collateralToken, bytes32 parentCollectionId, bytes32 conditionId, uint256[] indexSets)',
]);

/**
 * Polymarket's NegRiskAdapter (Polymarket/neg-risk-ctf-adapter `src/NegRiskAdapter.sol`): redemption by [yes, no]
 * amounts, the WrappedCollateral that collateralises its positions, and its ERC-1155 balance proxy (where the V2
 * SDK reads neg-risk balances).
 */
export const negRiskAdapterAbi = parseAbi([
  'function redeemPositions(bytes32 conditionId, uint256[] amounts)',
  'function wcol() view returns (address)',
  'function balanceOfBatch(address[] owners, uint256[] ids) view returns (uint256[])',
]);
