// Reads of the sandbox chain for the simulator's relayer tests, with raw JSON-RPC (no viem client, which the code
// under test uses): collateral balance and allowance to the CTF, ERC-1155 positions, and a fresh condition from the
// simulator. `chainOf` is read at call time, since a test file starts its chain in `before`.
import assert from 'node:assert/strict';
import { type Address, encodeFunctionData, type Hex, parseAbi } from 'viem';
import type { SandboxChain } from '../../src/chain/sandbox/sandbox-chain.js';

export const erc20 = parseAbi([
  'function approve(address spender, uint256 amount) returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
]);
export const ctf = parseAbi([
  'function splitPosition(address collateralToken, bytes32 parentCollectionId, bytes32 conditionId, uint256[] partition, uint256 amount)',
  'function balanceOf(address owner, uint256 id) view returns (uint256)',
]);

export function sandboxChainReads(chainOf: () => SandboxChain) {
  async function rpc<T>(method: string, params: unknown[]): Promise<T> {
    const res = await fetch(chainOf().rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: T }).result;
  }
  const ethCall = async (to: Address, data: Hex) =>
    BigInt(await rpc<Hex>('eth_call', [{ to, data }, 'latest']));
  return {
    rpc,
    ethCall,
    collateralOf: (owner: string) =>
      ethCall(
        chainOf().contracts.collateral,
        encodeFunctionData({ abi: erc20, functionName: 'balanceOf', args: [owner as Address] }),
      ),
    allowanceOf: (owner: string) =>
      ethCall(
        chainOf().contracts.collateral,
        encodeFunctionData({
          abi: erc20,
          functionName: 'allowance',
          args: [owner as Address, chainOf().contracts.conditionalTokens],
        }),
      ),
    positionOf: (owner: string, id: string) =>
      ethCall(
        chainOf().contracts.conditionalTokens,
        encodeFunctionData({ abi: ctf, functionName: 'balanceOf', args: [owner as Address, BigInt(id)] }),
      ),
  };
}

/** A fresh binary condition with the simulator as its oracle (`POST /__sim/chain/conditions`). */
export async function newSimCondition(
  control: string,
): Promise<{ condition_id: Hex; position_ids: [string, string] }> {
  const res = await fetch(`${control}/__sim/chain/conditions`, { method: 'POST', body: '{}' });
  assert.equal(res.status, 201);
  return (await res.json()) as { condition_id: Hex; position_ids: [string, string] };
}
