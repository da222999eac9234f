// The simulated Limitless CLOB: verifies signed orders (EIP-712 under the market's exchange contract, checked
// with ethers so the adapter's viem signer is held to an independent implementation), matches them price-time
// against the resting orders of the paper accounts and the house book of the current tape step (execution at the
// resting price), settles fills into the accounts' USDC and outcome tokens, charges the taker its fee and keeps
// every order and match for the status and user-order reads. One book per market, quoted in YES: a NO order is
// the YES order at 1 − p on the other side (docs "Complementary token prices"). Rules and sources:
// docs/venues/limitless.md "Trading (simulator)". Knows nothing of HTTP.
import { randomUUID } from 'node:crypto';
import { verifyTypedData } from 'ethers';
import type { LimitlessAccount } from './auth.js';
import { buildBook, type LimitlessLevel, type SimBook, tick } from './book.js';
import { hashHex, type SimMarket, tokenIdOf } from './catalog.js';
import { exchangeOf } from './payloads.js';
import { marketState } from './tape.js';

export const CHAIN_ID = 8453;
const SCALE = 1_000_000;
/** The fee rate every simulated account's rank carries (Bronze, the SDK's default when a profile has none). */
export const ACCOUNT_FEE_RATE_BPS = 300;

const ORDER_TYPES = {
  Order: [
    { name: 'salt', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'taker', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
    { name: 'expiration', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'feeRateBps', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'signatureType', type: 'uint8' },
  ],
};

export class ExchangeError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface SignedOrderBody {
  salt: number | string;
  maker: string;
  signer: string;
  taker: string;
  tokenId: string;
  makerAmount: number | string;
  takerAmount: number | string;
  expiration: string;
  nonce: number;
  feeRateBps: number;
  side: number;
  signatureType: number;
  price?: number;
  signature: string;
}

export interface NewOrderRequest {
  order: SignedOrderBody;
  orderType: 'GTC' | 'FAK' | 'FOK';
  marketSlug: string;
  ownerId: number;
  postOnly?: boolean;
  clientOrderId?: string;
}

export interface SimMatch {
  id: string;
  createdMs: number;
  /** Shares × 1e6. */
  size: number;
  /** The traded token's price for this order. */
  price: number;
  /** The other side's order id (`house` for the house book). */
  counterOrderId: string;
  isTaker: boolean;
  /** USDC × 1e6 (a SELL's fee) and shares × 1e6 (a BUY's fee, taken in shares). */
  usdFee: number;
  contractsFee: number;
  txHash: string;
}

export interface SimOrder {
  id: string;
  account: LimitlessAccount;
  market: SimMarket;
  outcome: 'yes' | 'no';
  side: 0 | 1;
  /** Limit price of the token (null for a FOK market order). */
  price: number | null;
  /** Shares × 1e6 of a limit order (a FOK names USDC or shares in makerAmount instead). */
  size: number;
  filled: number;
  orderType: 'GTC' | 'FAK' | 'FOK';
  status: 'LIVE' | 'MATCHED' | 'CANCELLED' | 'KILLED' | 'EXPIRED';
  createdMs: number;
  updatedMs: number;
  clientOrderId: string | null;
  expirationS: number;
  signed: SignedOrderBody;
  matches: SimMatch[];
  /** USDC × 1e6 set aside for a resting BUY. */
  lockedUsdc: number;
}

/** YES-view price of an order: the book is quoted for YES. */
const yesPriceOf = (o: { outcome: 'yes' | 'no'; price: number }) =>
  o.outcome === 'yes' ? o.price : tick(1 - o.price);
/** Does it bid for YES (a YES buy or a NO sell)? */
const bidsYes = (o: { outcome: 'yes' | 'no'; side: 0 | 1 }) => (o.outcome === 'yes') === (o.side === 0);

export class LimitlessExchange {
  private readonly orders = new Map<string, SimOrder>();
  private readonly byClientId = new Map<string, SimOrder>();
  private readonly signatures = new Set<string>();
  /** Resting orders per market slug, in arrival order. */
  private readonly resting = new Map<string, SimOrder[]>();
  /** House liquidity taken at a step: `${slug}|${step}|${bid|ask}|${price}` → shares × 1e6. */
  private readonly houseTaken = new Map<string, number>();
  /** The tape step each market's resting orders were last held against the house book. */
  private readonly syncedStep = new Map<string, number>();

  constructor(
    private readonly step: () => number,
    private readonly worldNowMs: () => number,
    private readonly nowMs: () => number,
  ) {}

  /** The book as published: the house book of this step less what was taken, plus the resting orders. */
  book(m: SimMarket): SimBook {
    this.sync(m);
    const step = this.step();
    const open = marketState(m, this.worldNowMs()) === 'active';
    const house = buildBook(m.seed, m.fairYes, step, open);
    const bids = new Map<number, number>();
    const asks = new Map<number, number>();
    for (const [side, levels, into] of [
      ['bid', house.bids, bids],
      ['ask', house.asks, asks],
    ] as const) {
      for (const l of levels) {
        const left = l.size - (this.houseTaken.get(`${m.slug}|${step}|${side}|${l.price}`) ?? 0);
        if (left > 0) into.set(l.price, (into.get(l.price) ?? 0) + left);
      }
    }
    for (const o of this.resting.get(m.slug) ?? []) {
      const into = bidsYes(o) ? bids : asks;
      const p = yesPriceOf(o as { outcome: 'yes' | 'no'; price: number });
      into.set(p, (into.get(p) ?? 0) + o.size - o.filled);
    }
    const level =
      (side: 'BUY' | 'SELL') =>
      ([price, size]: [number, number]): LimitlessLevel => ({
        price,
        size,
        side,
      });
    const b = [...bids].sort((x, y) => y[0] - x[0]).map(level('BUY'));
    const a = [...asks].sort((x, y) => x[0] - y[0]).map(level('SELL'));
    const mid =
      b.length && a.length ? Math.round(((b[0]?.price ?? 0) + (a[0]?.price ?? 0)) * 500) / 1000 : null;
    return { bids: b, asks: a, mid };
  }

  /** The account's resting orders per market slug. */
  liveOf(account: LimitlessAccount): Map<string, SimOrder[]> {
    const out = new Map<string, SimOrder[]>();
    for (const [slug, list] of this.resting) {
      const mine = list.filter((o) => o.account === account);
      if (mine.length > 0) out.set(slug, mine);
    }
    return out;
  }

  find(id: string): SimOrder | undefined {
    return this.orders.get(id);
  }

  findByClientId(account: LimitlessAccount, clientOrderId: string): SimOrder | undefined {
    return this.byClientId.get(`${account.profileId}|${clientOrderId}`);
  }

  ordersOf(account: LimitlessAccount, slug: string): SimOrder[] {
    const m = [...this.orders.values()].find((o) => o.market.slug === slug);
    if (m) this.sync(m.market);
    return [...this.orders.values()].filter((o) => o.account === account && o.market.slug === slug);
  }

  /** POST /orders: verified, then matched; the answer's matches and totals are the taker's. */
  async place(account: LimitlessAccount, m: SimMarket, req: NewOrderRequest): Promise<SimOrder> {
    this.sync(m);
    const o = req.order;
    if (req.ownerId !== account.profileId)
      throw new ExchangeError(403, 'ownerId does not match the API token');
    if (marketState(m, this.worldNowMs()) !== 'active') throw new ExchangeError(400, 'Market is not active');
    const outcome =
      o.tokenId === tokenIdOf(m, 'yes') ? 'yes' : o.tokenId === tokenIdOf(m, 'no') ? 'no' : null;
    if (outcome === null) throw new ExchangeError(400, 'tokenId does not belong to this market');
    if (o.signatureType !== 0) throw new ExchangeError(400, 'Only EOA (signatureType 0) orders are accepted');
    if (
      o.maker.toLowerCase() !== account.address.toLowerCase() ||
      o.signer.toLowerCase() !== o.maker.toLowerCase()
    ) {
      throw new ExchangeError(400, 'maker and signer must be the account wallet');
    }
    if (o.side !== 0 && o.side !== 1) throw new ExchangeError(400, 'side must be 0 (BUY) or 1 (SELL)');
    const makerAmount = Number(o.makerAmount);
    const takerAmount = Number(o.takerAmount);
    if (
      !Number.isSafeInteger(makerAmount) ||
      !Number.isSafeInteger(takerAmount) ||
      makerAmount <= 0 ||
      takerAmount <= 0
    ) {
      throw new ExchangeError(400, 'makerAmount and takerAmount must be positive integers');
    }
    if (!this.validSignature(m, o)) throw new ExchangeError(400, 'Invalid order signature');
    if (this.signatures.has(o.signature.toLowerCase())) throw new ExchangeError(409, 'Order already exists');
    if (req.clientOrderId !== undefined && this.findByClientId(account, req.clientOrderId)) {
      throw new ExchangeError(409, 'clientOrderId already used');
    }
    const expirationS = /^\d+$/.test(o.expiration) ? Number(o.expiration) : Number.NaN;
    if (!Number.isFinite(expirationS)) throw new ExchangeError(400, 'expiration must be an integer string');
    if (expirationS !== 0 && expirationS * 1000 <= this.nowMs())
      throw new ExchangeError(400, 'Order expired');
    if (o.nonce !== account.nonce) throw new ExchangeError(400, 'Invalid nonce');
    if (o.feeRateBps !== ACCOUNT_FEE_RATE_BPS) {
      throw new ExchangeError(400, `feeRateBps must be the account rank's ${ACCOUNT_FEE_RATE_BPS}`);
    }
    if (o.taker !== '0x0000000000000000000000000000000000000000') {
      throw new ExchangeError(400, 'Private orders (taker set) are not accepted');
    }
    const side = o.side as 0 | 1;
    let price: number | null = null;
    let size: number;
    if (req.orderType === 'FOK') {
      if (takerAmount !== 1) throw new ExchangeError(400, 'A FOK order carries takerAmount 1');
      size = makerAmount;
    } else if (req.orderType === 'GTC' || req.orderType === 'FAK') {
      if (typeof o.price !== 'number' || !Number.isFinite(o.price))
        throw new ExchangeError(400, 'price is required');
      const units = Math.round(o.price * SCALE);
      if (Math.abs(units / SCALE - o.price) > 1e-9 || units % 1000 !== 0 || units <= 0 || units >= SCALE) {
        throw new ExchangeError(400, 'price must be on the 0.001 tick, inside (0, 1)');
      }
      price = units / SCALE;
      const shares = side === 0 ? takerAmount : makerAmount;
      if (shares % 1000 !== 0) throw new ExchangeError(400, 'size must be a multiple of 0.001 share');
      const collateral =
        side === 0 ? Math.ceil((shares * units) / SCALE) : Math.floor((shares * units) / SCALE);
      if ((side === 0 ? makerAmount : takerAmount) !== collateral) {
        throw new ExchangeError(400, 'makerAmount and takerAmount do not match price × size');
      }
      size = shares;
    } else {
      throw new ExchangeError(400, 'orderType must be one of GTC, FAK, FOK');
    }
    if (req.postOnly && req.orderType !== 'GTC')
      throw new ExchangeError(400, 'postOnly is only supported for GTC');
    // Balance and allowance: a BUY spends USDC (its makerAmount), a SELL delivers outcome tokens.
    if (side === 0) {
      if (!account.usdcApproved) throw new ExchangeError(400, 'Insufficient USDC allowance for the exchange');
      if (this.freeUsdc(account) < makerAmount) throw new ExchangeError(400, 'Insufficient USDC balance');
    } else {
      if (!account.ctfApproved)
        throw new ExchangeError(400, 'Conditional tokens not approved for the exchange');
      if (this.freeTokens(account, m, outcome) < makerAmount)
        throw new ExchangeError(400, 'Insufficient token balance');
    }
    const now = this.nowMs();
    const order: SimOrder = {
      id: randomUUID(),
      account,
      market: m,
      outcome,
      side,
      price,
      size,
      filled: 0,
      orderType: req.orderType,
      status: 'LIVE',
      createdMs: now,
      updatedMs: now,
      clientOrderId: req.clientOrderId ?? null,
      expirationS,
      signed: o,
      matches: [],
      lockedUsdc: 0,
    };
    if (price !== null && req.postOnly && this.crossing(order).length > 0) {
      throw new ExchangeError(400, 'Post-only order would match immediately');
    }
    if (req.orderType === 'FOK' && !this.fokFillable(order)) {
      throw new ExchangeError(400, 'FOK order could not be fully filled');
    }
    this.orders.set(order.id, order);
    this.signatures.add(o.signature.toLowerCase());
    if (order.clientOrderId !== null)
      this.byClientId.set(`${account.profileId}|${order.clientOrderId}`, order);
    this.take(order);
    if (order.filled >= order.size || (order.orderType === 'FOK' && order.filled > 0))
      order.status = 'MATCHED';
    else if (order.orderType !== 'GTC') order.status = order.filled > 0 ? 'MATCHED' : 'KILLED';
    else {
      order.lockedUsdc = side === 0 ? Math.ceil((order.size - order.filled) * (price ?? 0)) : 0;
      this.restingOf(m).push(order);
    }
    return order;
  }

  cancel(account: LimitlessAccount, id: string): SimOrder {
    const order = this.orders.get(id);
    if (!order || order.account !== account) throw new ExchangeError(404, 'Order not found');
    this.sync(order.market);
    if (order.status !== 'LIVE') throw new ExchangeError(400, `Order is ${order.status}, not LIVE`);
    this.unrest(order, 'CANCELLED');
    return order;
  }

  cancelAll(account: LimitlessAccount, slug: string): number {
    const mine = (this.resting.get(slug) ?? []).filter((o) => o.account === account);
    for (const o of mine) this.unrest(o, 'CANCELLED');
    return mine.length;
  }

  /** USDC not set aside for resting BUYs. */
  freeUsdc(account: LimitlessAccount): number {
    let locked = 0;
    for (const list of this.resting.values())
      for (const o of list) if (o.account === account) locked += o.lockedUsdc;
    return Number(account.usdc) - locked;
  }

  private freeTokens(account: LimitlessAccount, m: SimMarket, outcome: 'yes' | 'no'): number {
    const h = account.holdings.get(m.slug);
    const held = h ? h[outcome] : 0;
    let offered = 0;
    for (const o of this.resting.get(m.slug) ?? []) {
      if (o.account === account && o.side === 1 && o.outcome === outcome) offered += o.size - o.filled;
    }
    return held - offered;
  }

  private validSignature(m: SimMarket, o: SignedOrderBody): boolean {
    if (!/^0x[0-9a-fA-F]{130}$/.test(o.signature)) return false;
    try {
      const recovered = verifyTypedData(
        { name: 'Limitless CTF Exchange', version: '1', chainId: CHAIN_ID, verifyingContract: exchangeOf(m) },
        ORDER_TYPES,
        {
          salt: BigInt(o.salt),
          maker: o.maker,
          signer: o.signer,
          taker: o.taker,
          tokenId: BigInt(o.tokenId),
          makerAmount: BigInt(o.makerAmount),
          takerAmount: BigInt(o.takerAmount),
          expiration: BigInt(o.expiration),
          nonce: BigInt(o.nonce),
          feeRateBps: BigInt(o.feeRateBps),
          side: o.side,
          signatureType: o.signatureType,
        },
        o.signature,
      );
      return recovered.toLowerCase() === o.signer.toLowerCase();
    } catch {
      return false;
    }
  }

  private restingOf(m: SimMarket): SimOrder[] {
    let list = this.resting.get(m.slug);
    if (!list) {
      list = [];
      this.resting.set(m.slug, list);
    }
    return list;
  }

  private unrest(order: SimOrder, status: SimOrder['status']): void {
    const list = this.resting.get(order.market.slug) ?? [];
    const i = list.indexOf(order);
    if (i >= 0) list.splice(i, 1);
    order.status = status;
    order.lockedUsdc = 0;
    order.updatedMs = this.nowMs();
  }

  /**
   * What an order can take, best first: resting orders of other accounts and the house book's levels on the other
   * side at or better than its limit (a FOK has none), in YES-view prices; resting orders first at one price.
   */
  private crossing(
    order: SimOrder,
  ): Array<{ yesPrice: number; maker: SimOrder | null; size: number; key?: string }> {
    const m = order.market;
    const step = this.step();
    const bid = bidsYes(order);
    const limit = order.price === null ? null : yesPriceOf(order as { outcome: 'yes' | 'no'; price: number });
    const ok = (p: number) => limit === null || (bid ? p <= limit + 1e-9 : p >= limit - 1e-9);
    const out: Array<{ yesPrice: number; maker: SimOrder | null; size: number; key?: string }> = [];
    for (const r of this.resting.get(m.slug) ?? []) {
      if (r.account === order.account || bidsYes(r) === bid) continue;
      const p = yesPriceOf(r as { outcome: 'yes' | 'no'; price: number });
      if (ok(p)) out.push({ yesPrice: p, maker: r, size: r.size - r.filled });
    }
    const house = buildBook(m.seed, m.fairYes, step, true);
    const side = bid ? 'ask' : 'bid';
    for (const l of bid ? house.asks : house.bids) {
      const key = `${m.slug}|${step}|${side}|${l.price}`;
      const left = l.size - (this.houseTaken.get(key) ?? 0);
      if (left > 0 && ok(l.price)) out.push({ yesPrice: l.price, maker: null, size: left, key });
    }
    // Stable sort: resting orders (pushed first, in arrival order) keep priority over the house at one price.
    return out.sort((a, b) => (bid ? a.yesPrice - b.yesPrice : b.yesPrice - a.yesPrice));
  }

  /** Shares a taker order still wants at a YES-view price (a FOK names USDC to spend or shares to sell). */
  private wanted(order: SimOrder, tokenPrice: number): number {
    if (order.orderType !== 'FOK') return order.size - order.filled;
    if (order.side === 1) return order.size - order.filled;
    const spent = order.matches.reduce((s, x) => s + Math.ceil(x.size * x.price), 0);
    return Math.floor((order.size - spent) / tokenPrice / 1000) * 1000;
  }

  private fokFillable(order: SimOrder): boolean {
    let need = order.size;
    for (const c of this.crossing(order)) {
      const tokenPrice = order.outcome === 'yes' ? c.yesPrice : tick(1 - c.yesPrice);
      const cost = order.side === 0 ? c.size * tokenPrice : c.size;
      need -= Math.min(need, cost);
      if (need <= 0) return true;
    }
    return false;
  }

  private take(order: SimOrder): void {
    for (const c of this.crossing(order)) {
      const tokenPrice = order.outcome === 'yes' ? c.yesPrice : tick(1 - c.yesPrice);
      const size = Math.min(c.size, this.wanted(order, tokenPrice));
      if (size <= 0) break;
      this.settle(order, c.maker, size, c.yesPrice, true);
      if (c.maker === null && c.key) this.houseTaken.set(c.key, (this.houseTaken.get(c.key) ?? 0) + size);
    }
  }

  /**
   * One match of `size` shares at the maker's YES-view price: each account's side is settled on its own token at its
   * own price (so a YES buy against a NO buy mints a pair, a YES sell against a NO sell merges one). Only the taker
   * pays a fee (docs fees page: "CLOB markets charge takers only").
   */
  private settle(
    taker: SimOrder,
    maker: SimOrder | null,
    size: number,
    yesPrice: number,
    takerIsOrder: boolean,
  ): void {
    const now = this.nowMs();
    const id = randomUUID();
    const txHash = `0x${hashHex(`limitless:match:${id}`)}`;
    const fill = (o: SimOrder, isTaker: boolean, counter: string) => {
      const price = o.outcome === 'yes' ? yesPrice : tick(1 - yesPrice);
      const fee = isTaker ? feeOf(o.signed.feeRateBps, price, size, o.side) : { usdFee: 0, contractsFee: 0 };
      applyFill(o, price, size, fee);
      o.filled += size;
      o.updatedMs = now;
      o.matches.push({ id, createdMs: now, size, price, counterOrderId: counter, isTaker, ...fee, txHash });
    };
    fill(taker, takerIsOrder, maker?.id ?? 'house');
    if (maker) {
      fill(maker, false, taker.id);
      maker.lockedUsdc = maker.side === 0 ? Math.ceil((maker.size - maker.filled) * (maker.price ?? 0)) : 0;
      if (maker.filled >= maker.size) this.unrest(maker, 'MATCHED');
    }
  }

  /**
   * After the tape moves, the house book of the new step may cross resting orders: they fill against it as makers
   * (no fee), and an order whose signed expiration passed leaves the book (the exchange contract refuses to match
   * an expired order).
   */
  private sync(m: SimMarket): void {
    const step = this.step();
    const list = this.resting.get(m.slug);
    if (!list || list.length === 0) {
      this.syncedStep.set(m.slug, step);
      return;
    }
    const nowS = this.nowMs() / 1000;
    for (const o of [...list]) {
      if (o.expirationS !== 0 && o.expirationS <= nowS) this.unrest(o, 'EXPIRED');
    }
    if (this.syncedStep.get(m.slug) === step) return;
    this.syncedStep.set(m.slug, step);
    if (marketState(m, this.worldNowMs()) !== 'active') return;
    const house = buildBook(m.seed, m.fairYes, step, true);
    for (const o of [...(this.resting.get(m.slug) ?? [])]) {
      const bid = bidsYes(o);
      const limit = yesPriceOf(o as { outcome: 'yes' | 'no'; price: number });
      for (const l of bid ? house.asks : house.bids) {
        if (o.status !== 'LIVE') break;
        if (bid ? l.price > limit + 1e-9 : l.price < limit - 1e-9) break;
        const key = `${m.slug}|${step}|${bid ? 'ask' : 'bid'}|${l.price}`;
        const left = l.size - (this.houseTaken.get(key) ?? 0);
        const size = Math.min(left, o.size - o.filled);
        if (size <= 0) continue;
        // The resting order is the maker and trades at its own limit price.
        this.settle(o, null, size, limit, false);
        this.houseTaken.set(key, (this.houseTaken.get(key) ?? 0) + size);
        o.lockedUsdc = o.side === 0 ? Math.ceil((o.size - o.filled) * (o.price ?? 0)) : 0;
        if (o.filled >= o.size) this.unrest(o, 'MATCHED');
      }
    }
  }
}

/**
 * The taker fee of the CTF Exchange contract the Limitless exchange is built on (its Order struct and fee field
 * are the same): feeRate × min(p, 1 − p) × shares, taken in shares on a BUY (÷ p) and in USDC on a SELL.
 */
export function feeOf(
  feeRateBps: number,
  price: number,
  size: number,
  side: 0 | 1,
): { usdFee: number; contractsFee: number } {
  const base = (feeRateBps / 10_000) * Math.min(price, 1 - price) * size;
  return side === 0
    ? { usdFee: 0, contractsFee: Math.floor(base / price) }
    : { usdFee: Math.floor(base), contractsFee: 0 };
}

/** Moves USDC and tokens for one fill of one order (× 1e6 units), the fee taken from what the order receives. */
function applyFill(
  o: SimOrder,
  price: number,
  size: number,
  fee: { usdFee: number; contractsFee: number },
): void {
  const a = o.account;
  let h = a.holdings.get(o.market.slug);
  if (!h) {
    h = { yes: 0, no: 0, costYes: 0, costNo: 0 };
    a.holdings.set(o.market.slug, h);
  }
  const costKey = o.outcome === 'yes' ? 'costYes' : 'costNo';
  if (o.side === 0) {
    const usdc = Math.ceil(size * price);
    a.usdc -= BigInt(usdc);
    h[o.outcome] += size - fee.contractsFee;
    h[costKey] += usdc;
  } else {
    const usdc = Math.floor(size * price);
    const held = h[o.outcome];
    const basis = held > 0 ? Math.round((h[costKey] * size) / held) : 0;
    h[o.outcome] -= size;
    h[costKey] = Math.max(0, h[costKey] - basis);
    a.usdc += BigInt(usdc - fee.usdFee);
    a.realisedUsd += (usdc - fee.usdFee - basis) / SCALE;
  }
  a.tradedUsd += (size * price) / SCALE;
  if (h.yes === 0 && h.no === 0) a.holdings.delete(o.market.slug);
}
