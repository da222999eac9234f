// Paper accounts: an Opinion OpenAPI key belongs to one login wallet (EOA) whose funds sit in its Safe, and
// the key alone identifies the user on /positions, /trade, /user/balance and /user/auth. The operator key the
// sandbox gives our service has no wallet. Balances are kept in USDT base units (18 decimals).
import { randomBytes } from 'node:crypto';
import { getAddress, keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { tokenBook } from './book.js';
import type { OpinionCatalogue, TradableMarket } from './catalogue.js';
import { walletHex } from './phrasing.js';

export const USDT_DECIMALS = 18;
const INITIAL_BALANCE = 10_000n * 10n ** 18n;

export interface SimPosition {
  market: TradableMarket;
  side: 'yes' | 'no';
  shares: number;
  avgPrice: number;
}

export interface SimTrade {
  tradeNo: string;
  orderNo: string;
  txHash: string;
  market: TradableMarket;
  side: 'yes' | 'no';
  /** Buy or sell of the outcome token (a paper trade of POST /__sim/trade, or a seeded one, is a buy). */
  dir: 'buy' | 'sell';
  price: number;
  shares: number;
  fee: number;
  /** The fee in base units, exact (orders); seeded trades derive it from `fee`. */
  feeWei?: bigint;
  createdAt: number;
}

export interface OpinionAccount {
  apiKey: string;
  /** The login wallet's private key (it signs orders for the Safe). */
  privateKey: `0x${string}`;
  /** The login wallet (EOA) the key belongs to; the "wallet address" of by-address endpoints. */
  wallet: string;
  /** The Safe holding the funds. */
  multisig: string;
  balance: bigint;
  /** Set aside by resting buys (their cost and largest fee): `frozenBalance`. */
  frozen: bigint;
  /** What the Safe has approved the exchange to spend (enableTrading); unlimited unless created otherwise. */
  allowance: bigint;
  /** The exchange's order nonce for this maker: orders carry it; 0 until an on-chain cancel-all raises it. */
  nonce: bigint;
  positions: SimPosition[];
  trades: SimTrade[];
}

export interface CreateAccountOptions {
  /** Seed this many open positions (and the buys that opened them) on activated markets. */
  positions?: number;
  /** The Safe's allowance to the exchange in base units (default unlimited). */
  allowance?: bigint;
  nowMs: number;
}

export class OpinionAccounts {
  readonly operatorKey = `sim-operator-${randomBytes(16).toString('hex')}`;
  private readonly byKey = new Map<string, OpinionAccount>();
  private readonly byWallet = new Map<string, OpinionAccount>();
  private count = 0;
  /** Trades made after account creation (POST /__sim/trade), numbered on from the seeded ones' space. */
  private tradeCount = 0;

  constructor(
    private readonly catalogue: OpinionCatalogue,
    private readonly seed: number,
  ) {}

  /** Every key the OpenAPI accepts: the operator's and each account's. */
  knows(key: string): boolean {
    return key === this.operatorKey || this.byKey.has(key);
  }

  account(key: string): OpinionAccount | undefined {
    return this.byKey.get(key);
  }

  byAddress(address: string): OpinionAccount | undefined {
    return this.byWallet.get(address.toLowerCase());
  }

  create(options: CreateAccountOptions): OpinionAccount {
    const n = this.count++;
    // A login wallet per account, its key derived from the seed so a world is the same on every run.
    const privateKey = keccak256(toHex(`opinion-paper-key:${this.seed}:${n}`));
    const account: OpinionAccount = {
      apiKey: randomBytes(16).toString('hex'),
      privateKey,
      wallet: privateKeyToAccount(privateKey).address,
      multisig: getAddress(walletHex('safe', this.seed, n)),
      balance: INITIAL_BALANCE,
      frozen: 0n,
      allowance: options.allowance ?? (1n << 256n) - 1n,
      nonce: 0n,
      positions: [],
      trades: [],
    };
    this.seedPositions(account, n, Math.max(0, Math.min(50, options.positions ?? 0)), options.nowMs);
    this.byKey.set(account.apiKey, account);
    this.byWallet.set(account.wallet.toLowerCase(), account);
    this.byWallet.set(account.multisig.toLowerCase(), account);
    return account;
  }

  /** Adds base units to the account owning the wallet or Safe; false when no account does. */
  fund(address: string, amount: bigint): boolean {
    const account = this.byAddress(address);
    if (!account) return false;
    account.balance += amount;
    return true;
  }

  /**
   * The account holding `address` buys 5 YES shares at the best ask of an activated market (its fills happen on
   * the exchange, not through us): the trade is listed by /trade and /trade/user, the position grows, the balance
   * pays for it. Returns undefined when no account holds the address or nothing is for sale.
   */
  trade(address: string, nowMs: number, step: number): SimTrade | undefined {
    const account = this.byAddress(address);
    if (!account) return undefined;
    const n = this.tradeCount++;
    const active = [...this.catalogue.tradable.values()].filter((m) => m.status === 2);
    for (let k = 0; k < active.length; k++) {
      const market = active[(n + k) % active.length] as TradableMarket;
      const ask = tokenBook(this.seed, market, 'yes', step).asks[0];
      if (!ask) continue;
      const price = Number(ask.price);
      const shares = 5;
      const fee = Math.round(shares * price * 0.02 * 1e6) / 1e6;
      const trade: SimTrade = {
        // Opinion's trade numbers are digit strings; a 9 prefix keeps these apart from the seeded ones.
        tradeNo: `9${String(n).padStart(8, '0')}${market.marketId}`,
        orderNo: randomBytes(16)
          .toString('hex')
          .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-'),
        txHash: `0x${randomBytes(32).toString('hex')}`,
        market,
        side: 'yes',
        dir: 'buy',
        price,
        shares,
        fee,
        createdAt: Math.floor(nowMs / 1000),
      };
      account.trades.push(trade);
      const held = account.positions.find((p) => p.market === market && p.side === 'yes');
      if (held) {
        held.avgPrice = (held.avgPrice * held.shares + price * shares) / (held.shares + shares);
        held.shares += shares;
      } else {
        account.positions.push({ market, side: 'yes', shares, avgPrice: price });
      }
      account.balance -= BigInt(Math.round((shares * price + fee) * 1e6)) * 10n ** 12n;
      return trade;
    }
    return undefined;
  }

  private seedPositions(account: OpinionAccount, n: number, count: number, nowMs: number): void {
    const active = [...this.catalogue.tradable.values()].filter((m) => m.status === 2);
    for (let k = 0; k < count && active.length > 0; k++) {
      const market = active[(n * 7 + k * 3) % active.length] as TradableMarket;
      if (account.positions.some((p) => p.market === market)) continue;
      const side = k % 2 === 0 ? 'yes' : 'no';
      const fair = side === 'yes' ? market.fairYes : 1 - market.fairYes;
      const avgPrice = Math.round(Math.min(0.98, Math.max(0.02, fair - 0.02)) * 1000) / 1000;
      const shares = 10 + k * 5;
      account.positions.push({ market, side, shares, avgPrice });
      account.trades.push({
        tradeNo: `${n}${String(k).padStart(4, '0')}${market.marketId}`,
        orderNo: randomBytes(16)
          .toString('hex')
          .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-'),
        txHash: `0x${randomBytes(32).toString('hex')}`,
        market,
        side,
        dir: 'buy',
        price: avgPrice,
        shares,
        fee: Math.round(shares * avgPrice * 0.02 * 1e6) / 1e6,
        createdAt: Math.floor(nowMs / 1000) - (k + 1) * 3_600,
      });
    }
  }
}
