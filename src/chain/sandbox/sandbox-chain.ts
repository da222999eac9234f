// The sandbox chain: a local anvil answering as Polygon (137) with Polymarket's contracts at their Polygon
// addresses — the real Gnosis ConditionalTokens bytecode (npm `@gnosis.pm/conditional-tokens-contracts`), our
// 6-decimal collateral standing in for pUSD, our CollateralAdapter stand-in at the CollateralAdapter address, our
// NegRiskAdapter equivalent (with its WrappedCollateral at Polygon's neg-risk WrappedCollateral address) at the
// NegRiskAdapter address and our NegRiskCollateralAdapter stand-in, which forwards to it. The exchanges are
// approval targets here; the Polymarket simulator places its own settlement exchange at their addresses (it is the one that matches).
// Each contract is deployed normally and its runtime code then copied to the Polygon address (anvil_setCode), so
// every address Omnibook uses live is the one it uses here. Loaded only by `omnibook sandbox` and tests.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Abi, Address, Hex } from 'viem';
import { POLYGON_CHAIN_ID, POLYGON_V2_CONTRACTS, type PolymarketContracts } from '../polymarket-contracts.js';
import { startAnvil } from './anvil.js';
import { fundedDeployer } from './funded-deployer.js';

export interface SandboxChain {
  rpcUrl: string;
  chainId: number;
  contracts: PolymarketContracts;
  /** The key that deployed the collateral and alone may mint it (the simulator's paper-money faucet). */
  minterKey: Hex;
  close(): Promise<void>;
}

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

type OwnContract =
  | 'Collateral'
  | 'CollateralAdapter'
  | 'WrappedCollateral'
  | 'NegRiskAdapter'
  | 'NegRiskCollateralAdapter';

function ownContracts(): Record<OwnContract, Artifact> {
  const url = new URL('./sandbox-contracts.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { contracts: Record<OwnContract, Artifact> }).contracts;
}

/**
 * Where the NegRiskAdapter's WrappedCollateral and fee vault sit on Polygon (Polymarket/neg-risk-ctf-adapter
 * addresses.json, chain 137). Not addresses Omnibook calls, so not in PolymarketContracts.
 */
export const NEG_RISK_WRAPPED_COLLATERAL: Address = '0x3A3BD7bb9528E159577F7C2e685CC81A765002E2';
export const NEG_RISK_VAULT: Address = '0x7f67327E88c258932D7d8f72950bE0d46975E11D';

function conditionalTokensArtifact(): Artifact {
  const require = createRequire(import.meta.url);
  const json =
    require('@gnosis.pm/conditional-tokens-contracts/build/contracts/ConditionalTokens.json') as Artifact;
  return { abi: json.abi, bytecode: json.bytecode };
}

export async function startSandboxChain(): Promise<SandboxChain> {
  const anvil = await startAnvil({ chainId: POLYGON_CHAIN_ID });
  try {
    const { key: minterKey, client } = await fundedDeployer(anvil.rpcUrl, POLYGON_CHAIN_ID);
    const contracts = POLYGON_V2_CONTRACTS;
    const own = ownContracts();
    const place = async (artifact: Artifact, at: Address, args: readonly unknown[] = []) => {
      const hash = await client.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
      const receipt = await client.waitForTransactionReceipt({ hash });
      if (!receipt.contractAddress) throw new Error('sandbox chain: deployment made no contract');
      const code = await client.getCode({ address: receipt.contractAddress });
      if (!code) throw new Error('sandbox chain: deployed contract has no code');
      await client.setCode({ address: at, bytecode: code });
    };
    await place(conditionalTokensArtifact(), contracts.conditionalTokens);
    await place(own.Collateral, contracts.collateral);
    await place(own.CollateralAdapter, contracts.collateralAdapter, [
      contracts.conditionalTokens,
      contracts.collateral,
    ]);
    // Immutables travel with the code, so each names the others by their Polygon addresses.
    await place(own.WrappedCollateral, NEG_RISK_WRAPPED_COLLATERAL, [
      contracts.negRiskAdapter,
      contracts.collateral,
      6,
    ]);
    await place(own.NegRiskAdapter, contracts.negRiskAdapter, [
      contracts.conditionalTokens,
      contracts.collateral,
      NEG_RISK_WRAPPED_COLLATERAL,
      NEG_RISK_VAULT,
    ]);
    await place(own.NegRiskCollateralAdapter, contracts.negRiskCollateralAdapter, [
      contracts.conditionalTokens,
      contracts.negRiskAdapter,
      contracts.collateral,
    ]);
    return { rpcUrl: anvil.rpcUrl, chainId: POLYGON_CHAIN_ID, contracts, minterKey, close: anvil.close };
  } catch (error) {
    await anvil.close();
    throw error;
  }
}
