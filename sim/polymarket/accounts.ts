// Paper wallets and CLOB API keys: collateral (pUSD base units), outcome-token positions with average entry price,
// allowances, the fills each wallet took part in, and keys created per (address, nonce) through L1 auth.
import { randomBytes, randomUUID } from 'node:crypto';
import type { PmMarket } from './catalogue.js';
import { type PmOrder, remaining } from './order.js';
import { mulPrice } from './units.js';

export interface Position {
  market: PmMarket;
  outcome: 0 | 1;
  /** Shares held, base units. */
  size: number;
  /** Collateral paid for the shares still held (average entry × size). */
  cost: number;
  /** Shares bought in total. */
  bought: number;
  /** Realized profit in collateral base units. */
  realized: number;
}

export interface Fill {
  timestampMs: number;
  tradeId: string;
  market: PmMarket;
  outcome: 0 | 1;
  side: 'BUY' | 'SELL';
  /** Shares, base units. */
  size: number;
  /** Own-token price, micro. */
  price: number;
  /** Collateral that changed hands for this fill (excluding fees). */
  usdc: number;
  txHash: string;
  taker: boolean;
  /** The trade's settlement failed on chain and was taken back out of the ledger: not a fill any more. */
  failed?: boolean;
}

export interface Wallet {
  address: string;
  collateral: number;
  approved: boolean;
  positions: Map<string, Position>;
  /** Live orders whose remainders reserve collateral or tokens. */
  open: Set<PmOrder>;
  fills: Fill[];
  /** Whether the first L1 authentication already granted the new-wallet balance. */
  onboarded: boolean;
}

export interface ApiKey {
  key: string;
  secret: string;
  passphrase: string;
  address: string;
  nonce: string;
}

export class Accounts {
  private readonly wallets = new Map<string, Wallet>();
  private readonly keys = new Map<string, ApiKey>();
  private readonly byNonce = new Map<string, ApiKey>();

  wallet(address: string): Wallet {
    const id = address.toLowerCase();
    let w = this.wallets.get(id);
    if (!w) {
      w = {
        address: id,
        collateral: 0,
        approved: true,
        positions: new Map(),
        open: new Set(),
        fills: [],
        onboarded: false,
      };
      this.wallets.set(id, w);
    }
    return w;
  }

  find(address: string): Wallet | undefined {
    return this.wallets.get(address.toLowerCase());
  }

  /** The wallet if known, else an empty one that is not registered (public lookups must not create wallets). */
  peek(address: string): Wallet {
    return (
      this.find(address) ?? {
        address: address.toLowerCase(),
        collateral: 0,
        approved: true,
        positions: new Map(),
        open: new Set(),
        fills: [],
        onboarded: false,
      }
    );
  }

  allWallets(): IterableIterator<Wallet> {
    return this.wallets.values();
  }

  /** A new key for (address, nonce); null when that nonce already has one (the API refuses a second). */
  createKey(address: string, nonce: string): ApiKey | null {
    const id = `${address.toLowerCase()}|${nonce}`;
    if (this.byNonce.has(id)) return null;
    const key: ApiKey = {
      key: randomUUID(),
      secret: randomBytes(32).toString('base64url'),
      passphrase: randomBytes(32).toString('hex'),
      address: address.toLowerCase(),
      nonce,
    };
    this.byNonce.set(id, key);
    this.keys.set(key.key, key);
    return key;
  }

  deriveKey(address: string, nonce: string): ApiKey | undefined {
    return this.byNonce.get(`${address.toLowerCase()}|${nonce}`);
  }

  key(apiKey: string): ApiKey | undefined {
    return this.keys.get(apiKey);
  }

  keysOf(address: string): ApiKey[] {
    const id = address.toLowerCase();
    return [...this.keys.values()].filter((k) => k.address === id);
  }

  deleteKey(apiKey: string): boolean {
    const k = this.keys.get(apiKey);
    if (!k) return false;
    this.keys.delete(apiKey);
    this.byNonce.delete(`${k.address}|${k.nonce}`);
    return true;
  }

  position(w: Wallet, market: PmMarket, outcome: 0 | 1, tokenId: string): Position {
    let p = w.positions.get(tokenId);
    if (!p) {
      p = { market, outcome, size: 0, cost: 0, bought: 0, realized: 0 };
      w.positions.set(tokenId, p);
    }
    return p;
  }
}

/** Collateral a live BUY still holds back: its unfilled shares at its limit price. */
export function reservedBy(o: PmOrder): number {
  return o.side === 'BUY' ? mulPrice(remaining(o), o.price) : 0;
}

export function reservedCollateral(w: Wallet): number {
  let sum = 0;
  for (const o of w.open) sum += reservedBy(o);
  return sum;
}

export function reservedTokens(w: Wallet, market: PmMarket, outcome: 0 | 1): number {
  let sum = 0;
  for (const o of w.open) {
    if (o.side === 'SELL' && o.market === market && o.outcome === outcome) sum += remaining(o);
  }
  return sum;
}

/** Moves a position for a fill and keeps the average entry price (cost basis) and realized PnL. */
export function applyFill(p: Position, side: 'BUY' | 'SELL', shares: number, usdc: number): void {
  if (side === 'BUY') {
    p.size += shares;
    p.cost += usdc;
    p.bought += shares;
    return;
  }
  const basis = p.size > 0 ? Math.round((p.cost * Math.min(shares, p.size)) / p.size) : 0;
  p.realized += usdc - basis;
  p.cost -= basis;
  p.size -= shares;
  if (p.size <= 0) p.cost = 0;
}
