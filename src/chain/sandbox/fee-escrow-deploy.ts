// Deploys our FeeEscrow (src/chain/fee-escrow/FeeEscrow.sol, the checked-in solc output beside it) to the sandbox
// chain, on the sandbox collateral, with a fresh funded operator key (the service's account, the only one that may
// pull and settle). Kept apart from sandbox-chain.ts: the escrow is ours, not one of Polymarket's contracts, and
// lives at the address its deployment gives it. Loaded only by `omnibook sandbox` and tests.
import { readFileSync } from 'node:fs';
import type { Abi, Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { fundedDeployer } from './funded-deployer.js';
import type { SandboxChain } from './sandbox-chain.js';

export interface FeeEscrowDeployment {
  address: Hex;
  chainId: number;
  /** The operator's key: the service's account that pulls and settles fees (and pays their gas). */
  operatorKey: Hex;
  treasury: Hex;
}

interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

function feeEscrowArtifact(): Artifact {
  const url = new URL('../fee-escrow/fee-escrow-contract.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { contracts: { FeeEscrow: Artifact } }).contracts
    .FeeEscrow;
}

/** `treasury` defaults to a fresh address nobody holds the key of (the sandbox's fees stay visible there). */
export async function deployFeeEscrow(
  chain: SandboxChain,
  options: { treasury?: Hex } = {},
): Promise<FeeEscrowDeployment> {
  const { key: operatorKey, account: operator, client } = await fundedDeployer(chain.rpcUrl, chain.chainId);
  const treasury = options.treasury ?? privateKeyToAccount(generatePrivateKey()).address;
  const artifact = feeEscrowArtifact();
  const hash = await client.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: [chain.contracts.collateral, operator.address, treasury as Address],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error('sandbox chain: the FeeEscrow deployment made no contract');
  return { address: receipt.contractAddress, chainId: chain.chainId, operatorKey, treasury };
}
