// Order entry of the Predict.fun simulator: POST /v1/orders takes a signed order, verifies it as the venue does
// (the EIP-712 hash and signature, checked with the official SDK's OrderBuilder and ethers — never with the
// adapter's viem code — the nonce, expiry, fee rate, price range and grid, the SDK's precision rules, the minimum
// order value, balance and allowance), then matches it against the house book of the current step and the other
// paper orders resting in the same market, settling each match at once into the paper wallets with the market's
// taker fee. Resting orders, their history and removal (POST /v1/orders/remove-by-hash) live here too.
import { AddressesByChainId, ChainId, OrderBuilder } from '@predictdotfun/sdk';
import { getBytes, recoverAddress, verifyMessage } from 'ethers';
import { getAddress, isAddress } from 'viem';
import type { SimClock } from '../shared/control.js';
import { ownValue } from '../shared/own-key.js';
import type { PfAccounts, PfWallet } from './accounts.js';
import { ECDSA_VALIDATOR, kernelWrappedHash } from './auth.js';
import type { YesBook } from './book.js';
import { hex32, marketTokens, type PfMarketRef } from './catalog.js';
import { MARKET_FEE_RATE_BPS, type Match, type MatchLeg, type PfState, takerFee, uuid } from './state.js';

const WEI = 10n ** 18n;
/** "order must have a value of at least 0.9 USD" (recorded create_order_min_order_value_not_met). */
const MIN_ORDER_VALUE_WEI = 9n * 10n ** 17n;
const MIN_QUANTITY_WEI = 10n ** 16n;
const MAX_UINT256 = (1n << 256n) - 1n;

export type PfOrderStatus = 'OPEN' | 'FILLED' | 'CANCELLED' | 'EXPIRED';

/** The signed order as POST /v1/orders carries it. */
export interface SignedOrderJson {
  salt: string;
  maker: string;
  signer: string;
  taker: string;
  tokenId: string;
  makerAmount: string;
  takerAmount: string;
  expiration: string | number;
  nonce: string;
  feeRateBps: string;
  side: 0 | 1;
  signatureType: 0 | 1 | 2;
  hash: string;
  signature: string;
}

export interface SimOrder {
  id: string;
  seq: number;
  hash: string;
  order: SignedOrderJson;
  ref: PfMarketRef;
  indexSet: 1 | 2;
  side: 'BUY' | 'SELL';
  strategy: 'LIMIT' | 'MARKET';
  priceWei: bigint;
  amountWei: bigint;
  filledWei: bigint;
  status: PfOrderStatus;
  owner: string;
  expiration: number;
}

/** A refusal in the venue's error envelope: HTTP status, `error` slug and message. */
export class OrderRefusal extends Error {
  constructor(
    readonly status: number,
    readonly slug: string,
    message: string,
  ) {
    super(message);
  }
}

const refuse = (slug: string, message: string, status = 400): never => {
  throw new OrderRefusal(status, slug, message);
};

/** One level a taker can trade against: the house's liquidity at a YES price, or a resting paper order. */
interface Counter {
  yesPriceWei: bigint;
  availableWei: bigint;
  paper: SimOrder | null;
  houseKey: string | null;
}

export class PfOrders {
  private readonly byHash = new Map<string, SimOrder>();
  /** The same orders by owner and by market (oldest first), so a submit never scans every order. */
  private readonly byOwner = new Map<string, SimOrder[]>();
  private readonly byMarket = new Map<number, SimOrder[]>();
  private readonly tokens = new Map<string, { ref: PfMarketRef; indexSet: 1 | 2 }>();
  private tokensBuilt = false;
  /** House liquidity taken at a step: `${marketId}:${step}:${bid|ask}:${yesPriceWei}` → wei of shares. */
  private readonly houseTaken = new Map<string, bigint>();
  private seq = 0;
  private readonly sdk: OrderBuilder;

  constructor(
    private readonly state: PfState,
    private readonly accounts: PfAccounts,
    private readonly clock: SimClock,
    private readonly chainId: number,
  ) {
    this.sdk = OrderBuilder.make(chainId === 97 ? ChainId.BnbTestnet : ChainId.BnbMainnet, undefined, {
      addresses: AddressesByChainId[chainId === 97 ? ChainId.BnbTestnet : ChainId.BnbMainnet],
    });
  }

  private token(tokenId: string): { ref: PfMarketRef; indexSet: 1 | 2 } | undefined {
    if (!this.tokensBuilt) {
      for (const category of this.state.catalog.categories) {
        for (const ref of this.state.catalog.marketsOf(category)) {
          const t = marketTokens(this.state.world, ref.id);
          this.tokens.set(t.yes, { ref, indexSet: 1 });
          this.tokens.set(t.no, { ref, indexSet: 2 });
        }
      }
      this.tokensBuilt = true;
    }
    return this.tokens.get(tokenId);
  }

  get(hash: string): SimOrder | undefined {
    const order = this.byHash.get(hash.toLowerCase());
    if (order) this.expire(order);
    return order;
  }

  /** The wallet's orders, newest first, expired ones marked. */
  list(owner: string): SimOrder[] {
    const mine = this.byOwner.get(owner.toLowerCase()) ?? [];
    for (const o of mine) this.expire(o);
    return [...mine].reverse();
  }

  /** The market's orders still resting, oldest first. */
  private resting(marketId: number): SimOrder[] {
    return (this.byMarket.get(marketId) ?? []).filter((o) => {
      this.expire(o);
      return o.status === 'OPEN';
    });
  }

  private expire(order: SimOrder): void {
    if (order.status === 'OPEN' && order.expiration * 1000 <= this.clock.now()) order.status = 'EXPIRED';
  }

  /** POST /v1/orders for the wallet the JWT names. */
  submit(caller: string, body: unknown): { code: 'OK'; orderHash: string; orderId: string } {
    const data = ((body ?? {}) as { data?: unknown }).data as Record<string, unknown> | undefined;
    if (!data || typeof data !== 'object') refuse('bad_request', 'data is required');
    const d = data as Record<string, unknown>;
    const order = this.readOrder(d.order);
    const strategy = d.strategy;
    if (strategy !== 'LIMIT' && strategy !== 'MARKET')
      refuse('bad_request', 'strategy must be LIMIT or MARKET');
    const priceRaw = d.pricePerShare;
    if (typeof priceRaw !== 'string' || !/^\d{1,30}$/.test(priceRaw)) {
      refuse('bad_request', 'pricePerShare must be a wei integer string');
    }
    const fillOrKill = d.isFillOrKill === true;
    const priceWei = BigInt(priceRaw as string);
    const found = this.token(order.tokenId);
    if (!found) return refuse('not_found', 'Market not found', 404);
    const { ref, indexSet } = found;
    if (!this.state.trading(ref))
      refuse('create_order_market_not_trading', 'Market is not currently trading');

    // The hash is the SDK's EIP-712 hash of the order on the exchange the market settles on.
    const typed = this.sdk.buildTypedData(
      {
        salt: order.salt,
        maker: order.maker,
        signer: order.signer,
        taker: order.taker,
        tokenId: order.tokenId,
        makerAmount: order.makerAmount,
        takerAmount: order.takerAmount,
        expiration: String(order.expiration),
        nonce: order.nonce,
        feeRateBps: order.feeRateBps,
        side: order.side,
        signatureType: order.signatureType,
      },
      { isNegRisk: ref.category.negRisk, isYieldBearing: ref.category.yieldBearing },
    );
    const hash = this.sdk.buildTypedDataHash(typed).toLowerCase();
    if (hash !== order.hash.toLowerCase()) {
      refuse('create_order_hash_mismatch', 'Order hash does not match the order');
    }
    if (this.byHash.has(hash)) refuse('create_order_duplicate', 'Order already exists');
    if (getAddress(order.maker) !== getAddress(order.signer)) {
      refuse('bad_request', 'maker and signer must be the same address');
    }
    if (getAddress(order.signer) !== getAddress(caller)) {
      refuse('unauthorized', 'The order signer does not belong to this wallet', 401);
    }
    if (!this.signatureValid(getAddress(order.signer), hash, order.signature)) {
      refuse('create_order_invalid_signature', 'Invalid order signature');
    }
    const wallet = this.accounts.wallet(order.maker);
    if (BigInt(order.nonce) !== wallet.nonce) refuse('create_order_invalid_nonce', 'Invalid order nonce');
    const expiration = Number(order.expiration);
    if (!Number.isSafeInteger(expiration) || expiration * 1000 <= this.clock.now()) {
      refuse('create_order_expired', 'Order expiration must be in the future');
    }
    if (BigInt(order.feeRateBps) < MARKET_FEE_RATE_BPS) {
      refuse('create_order_invalid_fee_rate', `feeRateBps must be at least ${MARKET_FEE_RATE_BPS}`);
    }
    if (order.taker.toLowerCase() !== '0x0000000000000000000000000000000000000000') {
      refuse('bad_request', 'Only public orders (taker 0x0) are accepted');
    }

    // Price and amounts: 0 < price < 1 on the market's grid, the SDK's significant digits, legs that agree.
    if (!(priceWei > 0n && priceWei < WEI)) {
      refuse('create_order_price_out_of_range', 'price per share must be between 0 and 1');
    }
    const grid = 10n ** BigInt(18 - ref.category.decimalPrecision);
    if (priceWei % grid !== 0n) {
      refuse(
        'create_order_invalid_price',
        `price per share must have at most ${ref.category.decimalPrecision} decimals`,
      );
    }
    const side = order.side === 0 ? 'BUY' : 'SELL';
    const maker = BigInt(order.makerAmount);
    const taker = BigInt(order.takerAmount);
    const quantity = side === 'BUY' ? taker : maker;
    const collateral = side === 'BUY' ? maker : taker;
    if (quantity < MIN_QUANTITY_WEI || significant(quantity) > 5 || significant(priceWei) > 3) {
      refuse(
        'create_order_invalid_amount',
        'quantity must be at least 0.01 with at most 5 significant digits',
      );
    }
    if (collateral !== (priceWei * quantity) / WEI) {
      refuse('create_order_invalid_amount', 'maker and taker amounts do not match the price per share');
    }
    if (collateral < MIN_ORDER_VALUE_WEI) {
      refuse('create_order_min_order_value_not_met', 'order must have a value of at least 0.9 USD');
    }

    // Funds: USDT (balance and allowance) for a bid, shares for an ask, less what open orders already hold.
    if (side === 'BUY') {
      const reserved = this.reservedCollateral(wallet.address);
      if (wallet.allowanceWei < reserved + collateral) {
        refuse(
          'create_order_insufficient_collateral_allowance',
          'Insufficient collateral: USDT allowance is less than the total bid amount.',
        );
      }
      if (wallet.balanceWei < reserved + collateral) {
        refuse(
          'create_order_insufficient_collateral',
          'Insufficient collateral: USDT balance is less than the total bid amount.',
        );
      }
    } else {
      const held = this.accounts.shares(wallet.address, ref.id, indexSet);
      if (held < this.reservedShares(wallet.address, ref.id, indexSet) + quantity) {
        refuse(
          'create_order_insufficient_shares',
          'Insufficient shares: balance is less than the total ask amount.',
        );
      }
    }

    const sim: SimOrder = {
      id: String(400_000_000 + this.seq),
      seq: this.seq++,
      hash,
      order: { ...order, hash, expiration },
      ref,
      indexSet,
      side,
      strategy: strategy as 'LIMIT' | 'MARKET',
      priceWei,
      amountWei: quantity,
      filledWei: 0n,
      status: 'OPEN',
      owner: wallet.address.toLowerCase(),
      expiration,
    };
    if (fillOrKill && this.fillable(sim) < quantity) {
      refuse('create_order_fill_or_kill_not_filled', 'Fill-or-kill order could not be filled in full');
    }
    this.byHash.set(hash, sim);
    push(this.byOwner, sim.owner, sim);
    push(this.byMarket, ref.id, sim);
    this.match(sim);
    // A market order takes what the book has at its price and never rests.
    if (sim.status === 'OPEN' && sim.strategy === 'MARKET') sim.status = 'CANCELLED';
    return { code: 'OK', orderHash: hash, orderId: sim.id };
  }

  /** POST /v1/orders/remove-by-hash: pulls the caller's open orders off the book (off-chain removal). */
  remove(caller: string, hashes: string[]): { removed: string[]; rejected: string[]; noop: string[] } {
    const out = { removed: [] as string[], rejected: [] as string[], noop: [] as string[] };
    for (const raw of hashes) {
      const order = this.get(raw);
      if (!order || order.owner !== caller.toLowerCase()) out.rejected.push(raw);
      else if (order.status !== 'OPEN') out.noop.push(raw);
      else {
        order.status = 'CANCELLED';
        out.removed.push(raw);
      }
    }
    return out;
  }

  /** The YES book the venue shows: the house's levels less what paper orders took this step, plus paper orders. */
  liveBook(ref: PfMarketRef, house: YesBook): YesBook {
    const step = this.state.step;
    const level = (side: 'bid' | 'ask', [price, size]: [number, number]): [number, number] => {
      const taken = this.houseTaken.get(`${ref.id}:${step}:${side}:${toWei(price)}`) ?? 0n;
      return [
        price,
        Number(((BigInt(Math.round(size * 10_000)) * 10n ** 14n - taken) * 10_000n) / WEI) / 10_000,
      ];
    };
    const bids = new Map<number, number>();
    const asks = new Map<number, number>();
    for (const l of house.bids) add(bids, ...level('bid', l));
    for (const l of house.asks) add(asks, ...level('ask', l));
    for (const o of this.resting(ref.id)) {
      const { side, yesPriceWei } = yesTerms(o);
      const size = Number(((o.amountWei - o.filledWei) * 10_000n) / WEI) / 10_000;
      add(side === 'bid' ? bids : asks, Number(yesPriceWei) / 1e18, size);
    }
    const sorted = (m: Map<number, number>, desc: boolean): Array<[number, number]> =>
      [...m.entries()].filter(([, s]) => s > 0).sort((a, b) => (desc ? b[0] - a[0] : a[0] - b[0]));
    return { bids: sorted(bids, true), asks: sorted(asks, false) };
  }

  private readOrder(raw: unknown): SignedOrderJson {
    const o = (raw ?? {}) as Record<string, unknown>;
    const uint = (k: string) => {
      const v = ownValue(o, k);
      if (typeof v !== 'string' || !/^\d{1,78}$/.test(v) || BigInt(v) > MAX_UINT256) {
        refuse('bad_request', `order.${k} must be a uint256 decimal string`);
      }
    };
    for (const k of ['salt', 'tokenId', 'makerAmount', 'takerAmount', 'nonce', 'feeRateBps']) uint(k);
    const exp = o.expiration;
    if (!(typeof exp === 'number' || (typeof exp === 'string' && /^\d{1,20}$/.test(exp)))) {
      refuse('bad_request', 'order.expiration must be Unix seconds');
    }
    for (const k of ['maker', 'signer', 'taker']) {
      const v = ownValue(o, k);
      if (typeof v !== 'string' || !isAddress(v, { strict: false })) {
        refuse('bad_request', `order.${k} must be an address`);
      }
    }
    if (o.side !== 0 && o.side !== 1) refuse('bad_request', 'order.side must be 0 (BUY) or 1 (SELL)');
    if (o.signatureType !== 0)
      refuse('bad_request', 'order.signatureType must be 0 (EOA; EIP-1271 for accounts)');
    for (const k of ['hash', 'signature']) {
      const v = ownValue(o, k);
      if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) {
        refuse('bad_request', `order.${k} must be hex`);
      }
    }
    return o as unknown as SignedOrderJson;
  }

  /** EOA: an ECDSA signature of the EIP-712 hash. Predict account: 0x01 ‖ validator ‖ owner's Kernel-wrapped one. */
  private signatureValid(signer: string, hash: string, signature: string): boolean {
    try {
      if (signature.length === 132) return recoverAddress(hash, signature) === signer;
      if (signature.length === 2 + 2 * 86 && signature.slice(2, 4) === '01') {
        const owner = this.accounts.ownerOf(signer);
        if (getAddress(`0x${signature.slice(4, 44)}`) !== ECDSA_VALIDATOR || !owner) return false;
        const digest = kernelWrappedHash(hash, signer, this.chainId);
        return verifyMessage(getBytes(digest), `0x${signature.slice(44)}`) === owner;
      }
    } catch {
      // unreadable signature bytes
    }
    return false;
  }

  private reservedCollateral(address: string): bigint {
    let sum = 0n;
    for (const o of this.byOwner.get(address.toLowerCase()) ?? []) {
      this.expire(o);
      if (o.status === 'OPEN' && o.side === 'BUY') sum += ((o.amountWei - o.filledWei) * o.priceWei) / WEI;
    }
    return sum;
  }

  private reservedShares(address: string, marketId: number, indexSet: 1 | 2): bigint {
    let sum = 0n;
    for (const o of this.byOwner.get(address.toLowerCase()) ?? []) {
      this.expire(o);
      if (o.status === 'OPEN' && o.side === 'SELL' && o.ref.id === marketId && o.indexSet === indexSet) {
        sum += o.amountWei - o.filledWei;
      }
    }
    return sum;
  }

  /** What the order could take right now at its price (fill-or-kill asks before matching). */
  private fillable(order: SimOrder): bigint {
    return this.counters(order).reduce((s, c) => s + c.availableWei, 0n);
  }

  /** The levels an order crosses, best first: house liquidity before paper orders at one price (time priority). */
  private counters(order: SimOrder): Counter[] {
    const { side, yesPriceWei } = yesTerms(order);
    const step = this.state.step;
    const house = this.state.book(order.ref);
    const opposite = side === 'bid' ? 'ask' : 'bid';
    const crosses = (p: bigint) => (side === 'bid' ? p <= yesPriceWei : p >= yesPriceWei);
    const out: Counter[] = [];
    for (const [price, size] of side === 'bid' ? house.asks : house.bids) {
      const p = toWei(price);
      if (!crosses(p)) continue;
      const key = `${order.ref.id}:${step}:${opposite}:${p}`;
      const available = BigInt(Math.round(size * 10_000)) * 10n ** 14n - (this.houseTaken.get(key) ?? 0n);
      if (available > 0n) out.push({ yesPriceWei: p, availableWei: available, paper: null, houseKey: key });
    }
    for (const o of this.resting(order.ref.id)) {
      if (o === order) continue;
      const t = yesTerms(o);
      if (t.side !== opposite || !crosses(t.yesPriceWei)) continue;
      out.push({
        yesPriceWei: t.yesPriceWei,
        availableWei: o.amountWei - o.filledWei,
        paper: o,
        houseKey: null,
      });
    }
    return out.sort((a, b) => {
      if (a.yesPriceWei !== b.yesPriceWei) {
        const better = side === 'bid' ? a.yesPriceWei < b.yesPriceWei : a.yesPriceWei > b.yesPriceWei;
        return better ? -1 : 1;
      }
      if (a.paper === null) return -1;
      if (b.paper === null) return 1;
      return a.paper.seq - b.paper.seq;
    });
  }

  /** Crosses the order with the book; each level it takes is one settled match, at the maker's price. */
  private match(order: SimOrder): void {
    for (const counter of this.counters(order)) {
      const remaining = order.amountWei - order.filledWei;
      if (remaining <= 0n) break;
      const qty = remaining < counter.availableWei ? remaining : counter.availableWei;
      const takerPrice = ownPrice(order.indexSet, counter.yesPriceWei);
      const fee = takerFee(qty, takerPrice, order.side === 'BUY');
      this.settle(this.accounts.wallet(order.owner), order, qty, takerPrice, fee);
      order.filledWei += qty;
      let makerLeg: MatchLeg;
      if (counter.paper) {
        const m = counter.paper;
        const makerPrice = ownPrice(m.indexSet, counter.yesPriceWei);
        this.settle(this.accounts.wallet(m.owner), m, qty, makerPrice, null);
        m.filledWei += qty;
        if (m.filledWei >= m.amountWei) m.status = 'FILLED';
        makerLeg = this.leg(m, qty, makerPrice, { amount: '0', type: 'SHARES' }, m.order.maker);
      } else {
        this.houseTaken.set(
          counter.houseKey as string,
          (this.houseTaken.get(counter.houseKey as string) ?? 0n) + qty,
        );
        const house =
          this.state.traders[(order.seq + this.state.paperMatches.length) % this.state.traders.length];
        const makerSide = order.side === 'BUY' ? 'SELL' : 'BUY';
        const makerPrice = takerPrice;
        makerLeg = {
          amount: qty.toString(),
          fee: { amount: '0', type: 'SHARES' },
          hash: hex32('pf-house-order', this.state.world.seed, order.hash, this.state.paperMatches.length),
          outcome: outcomeOf(order.ref, order.indexSet, this.state),
          price: makerPrice.toString(),
          quoteType: makerSide === 'BUY' ? 'Bid' : 'Ask',
          signer: house as string,
        };
      }
      const n = this.state.paperMatches.length;
      const id = (label: string) => hex32(label, this.state.world.seed, 'order', order.hash, n);
      const match: Match = {
        amountFilled: qty.toString(),
        executedAt: new Date(this.clock.now()).toISOString(),
        priceExecuted: takerPrice.toString(),
        settlementId: uuid(id('pf-settlement')),
        transactionHash: id('pf-tx'),
        taker: this.leg(order, qty, takerPrice, fee, order.order.maker),
        makers: [makerLeg],
        market: { id: order.ref.id },
      };
      this.state.paperMatches.push({ step: this.state.step, match });
    }
    if (order.filledWei >= order.amountWei) order.status = 'FILLED';
  }

  private leg(o: SimOrder, qty: bigint, price: bigint, fee: MatchLeg['fee'], signer: string): MatchLeg {
    return {
      amount: qty.toString(),
      fee,
      hash: o.hash,
      outcome: outcomeOf(o.ref, o.indexSet, this.state),
      price: price.toString(),
      quoteType: o.side === 'BUY' ? 'Bid' : 'Ask',
      signer: getAddress(signer),
    };
  }

  /** Settles one side of a match at once: a buyer pays and receives shares (less a fee in shares), a seller the reverse. */
  private settle(
    wallet: PfWallet,
    o: SimOrder,
    qty: bigint,
    price: bigint,
    fee: MatchLeg['fee'] | null,
  ): void {
    const cost = (qty * price) / WEI;
    const feeWei = fee ? BigInt(fee.amount) : 0n;
    if (o.side === 'BUY') {
      wallet.balanceWei -= cost;
      this.accounts.addShares(wallet.address, o.ref.id, o.indexSet, qty - feeWei, price);
    } else {
      wallet.balanceWei += cost - feeWei;
      this.accounts.addShares(wallet.address, o.ref.id, o.indexSet, -qty, price);
    }
  }
}

/** Where an order sits in the YES-quoted book: a NO bid at q is a YES ask at 1 − q, a NO ask a YES bid. */
function yesTerms(o: SimOrder): { side: 'bid' | 'ask'; yesPriceWei: bigint } {
  const buy = o.side === 'BUY';
  if (o.indexSet === 1) return { side: buy ? 'bid' : 'ask', yesPriceWei: o.priceWei };
  return { side: buy ? 'ask' : 'bid', yesPriceWei: WEI - o.priceWei };
}

const ownPrice = (indexSet: 1 | 2, yesPriceWei: bigint): bigint =>
  indexSet === 1 ? yesPriceWei : WEI - yesPriceWei;

const toWei = (price: number): bigint => BigInt(Math.round(price * 1_000_000)) * 10n ** 12n;

function push<K>(index: Map<K, SimOrder[]>, key: K, order: SimOrder): void {
  const list = index.get(key);
  if (list) list.push(order);
  else index.set(key, [order]);
}

function significant(value: bigint): number {
  return value.toString().replace(/0+$/, '').length;
}

function add(levels: Map<number, number>, price: number, size: number): void {
  levels.set(price, Math.round(((levels.get(price) ?? 0) + size) * 10_000) / 10_000);
}

function outcomeOf(ref: PfMarketRef, indexSet: 1 | 2, state: PfState): MatchLeg['outcome'] {
  const tokens = marketTokens(state.world, ref.id);
  return indexSet === 1
    ? { indexSet: 1, name: 'Yes', onChainId: tokens.yes }
    : { indexSet: 2, name: 'No', onChainId: tokens.no };
}

/** An order as GET /v1/orders and /v1/orders/{hash} show it (ccxt's recorded documents). */
export function orderJson(o: SimOrder): Record<string, unknown> {
  return {
    amount: o.amountWei.toString(),
    amountFilled: o.filledWei.toString(),
    currency: 'USDT',
    id: o.id,
    isNegRisk: o.ref.category.negRisk,
    isYieldBearing: o.ref.category.yieldBearing,
    marketId: o.ref.id,
    order: { ...o.order, expiration: o.expiration },
    rewardEarningRate: 0,
    status: o.status,
    strategy: o.strategy,
  };
}
