// Paper wallets of the Predict.fun simulator: USDT balances in wei (what BNB Chain's balanceOf answers), Predict
// smart accounts (Kernel) with their owner EOA, and positions seeded at account creation (the simulator does not
// match orders, so holdings come only from there).
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
  positions: SeededPosition[];
}

export interface NewAccountOptions {
  /** Trade through a Predict smart account (the deposit address) owned by a fresh EOA. */
  predictAccount?: boolean;
  /** Opening USDT balance in wei; 1,000 USDT by default. */
  balanceWei?: bigint;
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
    wallet.positions.push(...(options.positions ?? []));
    return { privateKey, signer, address, ...(predictAccount ? { predictAccount } : {}) };
  }

  /** The wallet at an address, created empty on first use (any address may sign in or hold USDT). */
  wallet(address: string): PfWallet {
    const key = address.toLowerCase();
    let wallet = this.wallets.get(key);
    if (!wallet) {
      wallet = { address: getAddress(address), balanceWei: 0n, positions: [] };
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

  fund(address: string, amountWei: bigint): void {
    this.wallet(address).balanceWei += amountWei;
  }
}
