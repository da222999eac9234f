// Who may trade through which wallet. Every EOA the simulator knows has a creation date; accounts created after the
// deposit-wallet cutover trade only through their deposit wallet (signature type 3), older ("legacy") accounts may
// also sign as an EOA (0), through their Polymarket proxy (1) or their Gnosis Safe (2). Contract wallets are
// recorded with their owner, which is what an ERC-1271 check and the "signer must be the API key's address" rule
// compare against. Addresses are CREATE2 results from the real factories, so they are the real ones: a deposit wallet
// is the DepositWalletFactory's Solady ERC-1967 clone of the Polygon DepositWallet implementation (the UUPS
// layout, which `@polymarket/builder-relayer-client`'s deriveDepositWalletAddress picks when the factory reports no
// beacon — as on the sandbox chain, where our factory has no `beacon()`; deposit-wallet-chain.ts deploys them there).
import { concat, encodeAbiParameters, encodePacked, getContractAddress, type Hex, keccak256 } from 'viem';

export type ContractWalletKind = 'proxy' | 'safe' | 'deposit';

export const WALLET_FACTORIES = {
  proxy: '0xaB45c5A4B0c941a2F231C04C3f49182e1A254052',
  safe: '0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b',
  deposit: '0x00000000000Fb5C9ADea0298D729A0CB3823Cc07',
} as const;

const SAFE_INIT_CODE_HASH = '0x2bce2127ff07fb632d16c8347c4ebf501f4841168bed00d9e6ef715ddb6fcecf';
const PROXY_INIT_CODE_HASH = '0xd21df8dc65880a8606f09fe0ce3df9b8869287ab0b058be05aa9e8af6330a00b';
/** DepositWallet implementation on Polygon (`@polymarket/builder-relayer-client@0.0.10` `dist/config`). */
export const DEPOSIT_WALLET_IMPLEMENTATION = '0x58CA52ebe0DadfdF531Cde7062e76746de4Db1eB';

/**
 * Solady (v0.1.26) `LibClone.initCodeHashERC1967(implementation, args)`: the init code is
 * `61 <0x3d + len(args), 2 bytes> 3d 81 60 23 3d 39 73 <implementation> 60 09 <runtime: 64 bytes> <args>`.
 */
function erc1967CloneInitCodeHash(implementation: Hex, args: Hex): Hex {
  const argsLength = (args.length - 2) / 2;
  const prefix = `0x61${(0x3d + argsLength).toString(16).padStart(4, '0')}3d8160233d3973` as Hex;
  return keccak256(
    concat([
      prefix,
      implementation,
      '0x6009',
      '0x5155f3363d3d373d3d363d7f360894a13ba1a3210667c828492db98dca3e2076',
      '0xcc3735a920a3ca505d382bbc545af43d6000803e6038573d6000fd5b3d6000f3',
      args,
    ]),
  );
}

/** The contract wallet a factory deploys for `owner` (CREATE2, salts as the relayer clients compute them). */
export function contractWalletAddress(kind: ContractWalletKind, owner: string): string {
  const eoa = owner as Hex;
  const from = WALLET_FACTORIES[kind];
  if (kind === 'safe') {
    const salt = keccak256(encodeAbiParameters([{ type: 'address' }], [eoa]));
    return getContractAddress({
      opcode: 'CREATE2',
      from,
      salt,
      bytecodeHash: SAFE_INIT_CODE_HASH,
    }).toLowerCase();
  }
  if (kind === 'proxy') {
    const salt = keccak256(encodePacked(['address'], [eoa]));
    return getContractAddress({
      opcode: 'CREATE2',
      from,
      salt,
      bytecodeHash: PROXY_INIT_CODE_HASH,
    }).toLowerCase();
  }
  // The clone's immutable args are abi.encode(factory, walletId), walletId = bytes32(owner); the salt is their hash.
  const walletId = `0x${eoa.slice(2).toLowerCase().padStart(64, '0')}` as Hex;
  const args = encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [from, walletId]);
  return getContractAddress({
    opcode: 'CREATE2',
    from,
    salt: keccak256(args),
    bytecodeHash: erc1967CloneInitCodeHash(DEPOSIT_WALLET_IMPLEMENTATION, args),
  }).toLowerCase();
}

export interface Profile {
  eoa: string;
  createdAtMs: number;
  wallets: Map<ContractWalletKind, string>;
}

export class WalletRegistry {
  private readonly profiles = new Map<string, Profile>();
  private readonly owners = new Map<string, { owner: string; kind: ContractWalletKind }>();

  constructor(
    /** Accounts created at or after this instant must use the deposit wallet flow. */
    readonly cutoverMs: number,
    private readonly now: () => number,
  ) {}

  /** The EOA's account; first sight creates it, dated now (a new sign-up). */
  profile(eoa: string, createdAtMs?: number): Profile {
    const id = eoa.toLowerCase();
    let p = this.profiles.get(id);
    if (!p) {
      p = { eoa: id, createdAtMs: createdAtMs ?? this.now(), wallets: new Map() };
      this.profiles.set(id, p);
    }
    return p;
  }

  find(eoa: string): Profile | undefined {
    return this.profiles.get(eoa.toLowerCase());
  }

  private readonly depositOrdersRefused = new Set<string>();

  /** The CLOB refuses this EOA's deposit-wallet (type 3) orders, as upstream still does for some accounts. */
  refuseDepositOrders(eoa: string): void {
    this.depositOrdersRefused.add(eoa.toLowerCase());
  }

  depositOrdersAreRefused(eoa: string): boolean {
    return this.depositOrdersRefused.has(eoa.toLowerCase());
  }

  postCutover(eoa: string): boolean {
    return this.profile(eoa).createdAtMs >= this.cutoverMs;
  }

  /** Deploys (records) the owner's contract wallet of this kind; returns it and whether it is new. */
  deploy(eoa: string, kind: ContractWalletKind): { address: string; created: boolean } {
    const p = this.profile(eoa);
    const existing = p.wallets.get(kind);
    if (existing) return { address: existing, created: false };
    const address = contractWalletAddress(kind, p.eoa);
    p.wallets.set(kind, address);
    this.owners.set(address, { owner: p.eoa, kind });
    return { address, created: true };
  }

  /** Where the factory will deploy (or has deployed) the owner's wallet; CREATE2 addresses are known in advance. */
  predict(eoa: string, kind: ContractWalletKind): string {
    return contractWalletAddress(kind, eoa.toLowerCase());
  }

  ownerOf(wallet: string): { owner: string; kind: ContractWalletKind } | undefined {
    return this.owners.get(wallet.toLowerCase());
  }

  /** The address whose funds a signature type moves for this EOA (0 = the EOA itself); undefined if not deployed. */
  walletFor(eoa: string, signatureType: number): string | undefined {
    const p = this.profile(eoa);
    if (signatureType === 0) return p.eoa;
    const kind = KIND_BY_TYPE.get(signatureType);
    return kind ? p.wallets.get(kind) : undefined;
  }

  /** The EOA and every contract wallet it owns: what one API key may see orders and fills of. */
  controlled(eoa: string): Set<string> {
    const p = this.profile(eoa);
    return new Set([p.eoa, ...p.wallets.values()]);
  }
}

const KIND_BY_TYPE = new Map<number, ContractWalletKind>([
  [1, 'proxy'],
  [2, 'safe'],
  [3, 'deposit'],
]);
