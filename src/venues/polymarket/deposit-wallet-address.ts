// Where the DepositWalletFactory puts an owner's deposit wallet, computed locally as the official clients do
// (CREATE2 from the factory; no relayer look-up): @polymarket/builder-relayer-client 0.0.10
// `RelayClient.deriveDepositWalletAddress` (dist/client.js 244-260) and `@polymarket/client` (Polymarket/ts-sdk).
// The factory deploys Solady (LibClone v0.1.26) ERC-1967 clones whose immutable args are abi.encode(factory,
// bytes32(owner)) and whose salt is keccak256 of those args: older wallets are UUPS clones of the implementation,
// newer ones beacon clones of the factory's beacon. Written here against the clone layout, independently of the
// relayer client (a dev dependency, used as the reference in test/unit/venues/polymarket/deposit-wallet-address).
import { concat, encodeAbiParameters, getContractAddress, type Hex, keccak256, pad, toHex } from 'viem';

export const DEPOSIT_WALLET_FACTORY: Hex = '0x00000000000Fb5C9ADea0298D729A0CB3823Cc07';

interface DepositWalletContracts {
  /** The UUPS implementation older clones point at (builder-relayer-client dist/config). */
  implementation: Hex;
  /**
   * The factory's beacon, which newer clones point at; null where the factory has none. The relayer client reads it
   * from the factory (`beacon()`); `@polymarket/client` names Polygon's in its production environment
   * (Polymarket/ts-sdk packages/client/src/environments.ts `walletDerivation.depositWalletBeacon`).
   */
  beacon: Hex | null;
}

const CONTRACTS: Record<number, DepositWalletContracts> = {
  137: {
    implementation: '0x58CA52ebe0DadfdF531Cde7062e76746de4Db1eB',
    beacon: '0x7A18EDfe055488A3128f01F563e5B479D92ffc3a',
  },
  80002: { implementation: '0x50a88fE9a441cB4c9c2aD6A2207CE2795C7D7Fbd', beacon: null },
};

/** The ERC-1967 runtime the UUPS clone's creation code returns (Solady LibClone, after the implementation). */
const UUPS_RUNTIME: Hex =
  '0x60095155f3363d3d373d3d363d7f360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc545af43d6000803e6038573d6000fd5b3d6000f3';
/** The ERC-1967 beacon-proxy runtime the beacon clone's creation code returns (after the beacon). */
const BEACON_RUNTIME: Hex =
  '0x60195155f3363d3d373d3d363d602036600436635c60da1b60e01b36527fa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50545afa5036515af43d6000803e604d573d6000fd5b3d6000f3';

/** `PUSH2 <runtime + args length>` followed by the copy-and-return preamble and `PUSH20`. */
function creationPrefix(runtimeBytes: number, argsBytes: number): Hex {
  return concat(['0x61', toHex(runtimeBytes + argsBytes, { size: 2 }), '0x3d8160233d3973']);
}

const bytes = (hex: Hex): number => (hex.length - 2) / 2;

function cloneAddress(target: Hex, runtime: Hex, runtimeLength: number, args: Hex): Hex {
  const initCode = concat([creationPrefix(runtimeLength, bytes(args)), target, runtime, args]);
  return getContractAddress({
    opcode: 'CREATE2',
    from: DEPOSIT_WALLET_FACTORY,
    salt: keccak256(args),
    bytecodeHash: keccak256(initCode),
  });
}

/**
 * The owner's two possible deposit wallet addresses: the UUPS clone, and the beacon clone where the factory has a
 * beacon. The relayer client picks the UUPS one when it is deployed or there is no beacon, else the beacon one.
 */
export function depositWalletCandidates(owner: Hex, chainId: number): { uups: Hex; beacon: Hex | null } {
  const contracts = CONTRACTS[chainId] ?? CONTRACTS[137];
  if (!contracts) throw new Error('no deposit wallet contracts');
  const args = encodeAbiParameters(
    [{ type: 'address' }, { type: 'bytes32' }],
    [DEPOSIT_WALLET_FACTORY, pad(owner, { dir: 'left', size: 32 })],
  );
  // The PUSH2 in the creation code carries a constant of the clone kind (0x3d UUPS, 0x52 beacon) plus the args length.
  return {
    uups: cloneAddress(contracts.implementation, UUPS_RUNTIME, 0x3d, args),
    beacon: contracts.beacon ? cloneAddress(contracts.beacon, BEACON_RUNTIME, 0x52, args) : null,
  };
}
