// Paper wallets of the Predict.fun simulator: USDT balances in wei (what BNB Chain's balanceOf answers), Predict
// smart accounts (Kernel) with their owner EOA, the exchange's nonce and USDT allowance of each maker, and the
// positions seeded at account creation or settled by the simulator's matches.
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

export interface SeededPosition {
  marketId: number;
  indexSet: 1 | 2;
  /** Shares in wei (1e18). */
  amountWei: bigint;
  /** Average buy price in USD per share, e.g. "0.57". */
  averageBuyPriceUsd: string;
}

export interface PfWallet {
  address: string;
  balanceWei: bigint;
  /** USDT the exchange may spend (ERC-20 allowance); paper accounts are opened with approvals set. */
  allowanceWei: bigint;
  /** The CTF exchange's nonce of this maker: orders signed with another one are invalid (on-chain cancel). */
  nonce: bigint;
  positions: SeededPosition[];
}

const MAX_UINT256 = (1n << 256n) - 1n;

export interface NewAccountOptions {
  /** Trade through a Predict smart account (the deposit address) owned by a fresh EOA. */
  predictAccount?: boolean;
  /** Opening USDT balance in wei; 1,000 USDT by default. */
  balanceWei?: bigint;
  /** USDT allowance granted to the exchange; unlimited by default (the SDK's setApprovals). */
  allowanceWei?: bigint;
  positions?: SeededPosition[];
}

export interface NewAccount {
  privateKey: `0x${string}`;
  /** The EOA that signs. */
  signer: string;
  /** The Predict account, when one was asked for. */
  predictAccount?: string;
  /** Where funds and positions live: the Predict account, else the EOA. */
  address: string;
}

export const DEFAULT_BALANCE_WEI = 1_000n * 10n ** 18n;

export class PfAccounts {
  private readonly wallets = new Map<string, PfWallet>();
  /** Predict account (lower-case) → owner EOA (checksummed), as the ECDSA validator stores it. */
  private readonly owners = new Map<string, string>();

  create(options: NewAccountOptions = {}): NewAccount {
    const privateKey = generatePrivateKey();
    const signer = privateKeyToAccount(privateKey).address;
    let address: string = signer;
    let predictAccount: string | undefined;
    if (options.predictAccount) {
      predictAccount = getAddress(`0x${randomBytes(20).toString('hex')}`);
      this.owners.set(predictAccount.toLowerCase(), signer);
      address = predictAccount;
    }
    const wallet = this.wallet(address);
    wallet.balanceWei += options.balanceWei ?? DEFAULT_BALANCE_WEI;
    if (options.allowanceWei !== undefined) wallet.allowanceWei = options.allowanceWei;
    wallet.positions.push(...(options.positions ?? []));
    return { privateKey, signer, address, ...(predictAccount ? { predictAccount } : {}) };
  }

  /** The wallet at an address, created empty on first use (any address may sign in or hold USDT). */
  wallet(address: string): PfWallet {
    const key = address.toLowerCase();
    let wallet = this.wallets.get(key);
    if (!wallet) {
      wallet = {
        address: getAddress(address),
        balanceWei: 0n,
        allowanceWei: MAX_UINT256,
        nonce: 0n,
        positions: [],
      };
      this.wallets.set(key, wallet);
    }
    return wallet;
  }

  find(address: string): PfWallet | undefined {
    return this.wallets.get(address.toLowerCase());
  }

  balanceOf(address: string): bigint {
    return this.find(address)?.balanceWei ?? 0n;
  }

  ownerOf(predictAccount: string): string | undefined {
    return this.owners.get(predictAccount.toLowerCase());
  }

  /** Shares (wei) the wallet holds of one outcome. */
  shares(address: string, marketId: number, indexSet: 1 | 2): bigint {
    const held = this.find(address)?.positions ?? [];
    return held
      .filter((p) => p.marketId === marketId && p.indexSet === indexSet)
      .reduce((s, p) => s + p.amountWei, 0n);
  }

  /**
   * Settles shares into (or, negative, out of) a wallet's holding of one outcome, merged into one position; a buy
   * moves its average price (price in wei per share). An emptied holding is dropped.
   */
  addShares(address: string, marketId: number, indexSet: 1 | 2, deltaWei: bigint, priceWei: bigint): void {
    const wallet = this.wallet(address);
    const same = wallet.positions.filter((p) => p.marketId === marketId && p.indexSet === indexSet);
    const held = same.reduce((s, p) => s + p.amountWei, 0n);
    const cost = same.reduce((s, p) => s + Number(p.amountWei) * Number(p.averageBuyPriceUsd), 0);
    const amountWei = held + deltaWei;
    wallet.positions = wallet.positions.filter((p) => !(p.marketId === marketId && p.indexSet === indexSet));
    if (amountWei <= 0n) return;
    const average =
      deltaWei > 0n
        ? (cost + Number(deltaWei) * (Number(priceWei) / 1e18)) / Number(amountWei)
        : cost / Number(held);
    wallet.positions.push({
      marketId,
      indexSet,
      amountWei,
      averageBuyPriceUsd: String(Number(average.toFixed(6))),
    });
  }

  fund(address: string, amountWei: bigint): void {
    this.wallet(address).balanceWei += amountWei;
  }
}
