// Opinion's order book for paper accounts: POST /order verified as the exchange would (signature by the Safe's
// owner, maker/signer/chain/exchange/quote token, nonce, expiry, price and amount precision, minimum size, balance
// and allowance), matched against the other accounts' resting orders and the house book, filled with the taker fee,
// kept as history (GET /order, GET /order/{id}), cancelled by POST /order/cancel. Amounts are BSC USDT base units
// (18 decimals) and shares likewise; prices are integers of 10^-6. Rules' sources: docs/venues/opinion.md.
import { randomBytes } from 'node:crypto';
import { ownValue } from '../shared/own-key.js';
import type { OpinionAccount, SimTrade } from './accounts.js';
import { type Book, decimal, type Level, tokenBook } from './book.js';
import { BSC_USDT, type OpinionCatalogue, type TradableMarket } from './catalogue.js';
import { orderDigest, recoverOrderSigner } from './order-signature.js';
import { renderTrade } from './portfolio.js';

export const WEI = 10n ** 18n;
const MICRO = 1_000_000n;
/** [sim] Opinion publishes no tick; books quote 0.001 steps, so orders are held to them. */
export const TICK_MICROS = 1_000n;
/** FeeManager taker fee setting: the rate is bps × p(1−p) / 10^4, 2% of notional at p = 0.5 (SDK contract_caller). */
export const TAKER_FEE_BPS = 800n;
const ZERO = '0x0000000000000000000000000000000000000000';

/** Opinion order statuses (OpenAPI OrderData.status). */
export const ORDER_STATUS = { pending: 1, finished: 2, canceled: 3, expired: 4, failed: 5 } as const;
const STATUS_NAME = ['', 'Pending', 'Finished', 'Canceled', 'Expired', 'Failed'] as const;

export interface SimOrder {
  orderId: string;
  digest: string;
  account: OpinionAccount;
  market: TradableMarket;
  outcome: 'yes' | 'no';
  tokenId: string;
  dir: 'buy' | 'sell';
  priceMicros: bigint;
  price: string;
  shares: bigint;
  filled: bigint;
  filledAmount: bigint;
  /** Quote (buy) or shares (sell) still set aside for the unfilled rest. */
  reserved: bigint;
  status: 1 | 2 | 3 | 4 | 5;
  createdAt: number;
  /** `orderExpTime` (Unix s), 0 for none. */
  expiresAt: number;
  trades: SimTrade[];
}

/** A refusal as the exchange words it: HTTP 400, errno, message. */
export class OrderRefusal extends Error {
  constructor(
    readonly errno: number,
    message: string,
  ) {
    super(message);
  }
}

/** errno values the simulator answers order refusals with ([sim]: Opinion documents none). */
export const ORDER_ERRNO = {
  invalid: 10001,
  notFound: 10002,
  signature: 10401,
  balance: 10403,
  allowance: 10404,
  duplicate: 10405,
  notTrading: 10406,
  expired: 10407,
} as const;

const micros = (price: string): bigint | null => {
  const m = /^0?\.(\d{1,6})$/.exec(price);
  return m ? BigInt((m[1] ?? '').padEnd(6, '0')) : null;
};
const quoteOf = (shares: bigint, priceMicros: bigint) => (shares * priceMicros) / MICRO;
const human = (wei: bigint) => decimal(Number(wei) / 1e18, 6);

/** The taker fee on a fill of `shares` at `priceMicros`: notional × bps × p(1−p) / 10^4, in base units. */
export function takerFee(shares: bigint, priceMicros: bigint): bigint {
  return (
    (quoteOf(shares, priceMicros) * TAKER_FEE_BPS * priceMicros * (MICRO - priceMicros)) /
    (10_000n * MICRO * MICRO)
  );
}

export class OpinionOrders {
  readonly exchangeAddress: string;
  private readonly orders = new Map<string, SimOrder>();
  private readonly digests = new Set<string>();
  /** House liquidity taken per token, price and book step: a level fills once per step. */
  private readonly taken = new Map<string, bigint>();
  private tradeCount = 0;

  constructor(
    private readonly catalogue: OpinionCatalogue,
    private readonly seed: number,
    exchangeAddress: string,
  ) {
    this.exchangeAddress = exchangeAddress;
  }

  /** The served book: the house levels less what paper orders took this step, plus paper orders resting. */
  book(market: TradableMarket, outcome: 'yes' | 'no', step: number, nowSec: number): Book {
    const house = tokenBook(this.seed, market, outcome, step);
    const tokenId = outcome === 'yes' ? market.yesTokenId : market.noTokenId;
    const merge = (levels: Level[], dir: 'buy' | 'sell'): Level[] => {
      const sizes = new Map<bigint, bigint>();
      for (const l of levels) {
        const p = micros(l.price) ?? 0n;
        const left = BigInt(Math.round(Number(l.size) * 100)) * 10n ** 16n - this.takenAt(tokenId, p, step);
        if (left > 0n) sizes.set(p, left);
      }
      for (const o of this.resting(tokenId, dir, nowSec))
        sizes.set(o.priceMicros, (sizes.get(o.priceMicros) ?? 0n) + o.shares - o.filled);
      return [...sizes.entries()]
        .sort((a, b) => (dir === 'buy' ? (a[0] > b[0] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
        .map(([p, s]) => ({ price: decimal(Number(p) / 1e6, 6), size: decimal(Number(s) / 1e18, 6) }));
    };
    return { bids: merge(house.bids, 'buy'), asks: merge(house.asks, 'sell') };
  }

  /** Verifies, matches and records one POST /order body for `account`. */
  place(account: OpinionAccount, body: Record<string, unknown>, step: number, nowSec: number): SimOrder {
    const bad = (message: string, errno: number = ORDER_ERRNO.invalid) => new OrderRefusal(errno, message);
    const str = (name: string): string => {
      const v = ownValue(body, name);
      if (typeof v !== 'string') throw bad(`invalid parameter: ${name}`);
      return v;
    };
    const int = (name: string): bigint => {
      const v = str(name);
      if (!/^\d{1,78}$/.test(v)) throw bad(`invalid parameter: ${name}`);
      return BigInt(v);
    };
    const topicId = body.topicId;
    if (typeof topicId !== 'number' || !Number.isInteger(topicId)) throw bad('invalid parameter: topicId');
    const market = this.catalogue.tradable.get(topicId);
    if (!market) throw bad('market not found', ORDER_ERRNO.notFound);
    if (market.status !== 2) throw bad('market is not open for trading', ORDER_ERRNO.notTrading);
    const tokenId = str('tokenId');
    const outcome = tokenId === market.yesTokenId ? 'yes' : tokenId === market.noTokenId ? 'no' : null;
    if (!outcome) throw bad('token not found', ORDER_ERRNO.notFound);
    if (str('currencyAddress').toLowerCase() !== BSC_USDT.toLowerCase())
      throw bad('invalid parameter: currencyAddress');
    if (body.tradingMethod !== 2) throw bad('only limit orders (tradingMethod 2) are simulated');
    const side = str('side');
    if (side !== '0' && side !== '1') throw bad('invalid parameter: side');
    const dir = side === '0' ? 'buy' : 'sell';
    if (str('signatureType') !== '2')
      throw bad('orders are signed for the Safe (signatureType 2)', ORDER_ERRNO.signature);
    if (str('maker').toLowerCase() !== account.multisig.toLowerCase())
      throw bad("maker is not this key's multi-sig wallet", ORDER_ERRNO.signature);
    if (str('signer').toLowerCase() !== account.wallet.toLowerCase())
      throw bad("signer is not this key's wallet", ORDER_ERRNO.signature);
    if (str('taker').toLowerCase() !== ZERO) throw bad('invalid parameter: taker');
    if (str('sign') !== str('signature')) throw bad('invalid parameter: sign');
    const signer = recoverOrderSigner(body, this.exchangeAddress);
    if (!signer || signer.toLowerCase() !== account.wallet.toLowerCase())
      throw bad('invalid signature', ORDER_ERRNO.signature);
    if (int('nonce') !== account.nonce) throw bad('invalid nonce', ORDER_ERRNO.signature);
    int('feeRateBps');
    const expiration = int('expiration');
    const expiresAt = Number(int('orderExpTime'));
    if ((expiration !== 0n && expiration <= BigInt(nowSec)) || (expiresAt !== 0 && expiresAt <= nowSec))
      throw bad('order expired', ORDER_ERRNO.expired);
    const priceMicros = micros(str('price'));
    if (priceMicros === null || priceMicros === 0n)
      throw bad('price must be between 0 and 1 with at most 6 decimals');
    if (priceMicros % TICK_MICROS !== 0n) throw bad('price must be a multiple of 0.001');
    const makerAmount = int('makerAmount');
    const takerAmount = int('takerAmount');
    const [shares, quote] = dir === 'buy' ? [takerAmount, makerAmount] : [makerAmount, takerAmount];
    if (shares % MICRO !== 0n || quote * MICRO !== shares * priceMicros)
      throw bad('makerAmount and takerAmount do not match the price');
    if (shares < WEI) throw bad('order size must be at least 1 share');
    const digest = orderDigest(body, this.exchangeAddress) ?? '';
    if (this.digests.has(digest)) throw bad('order already exists', ORDER_ERRNO.duplicate);
    // Funds: a buy sets aside its cost and the largest taker fee; a sell the shares it offers.
    const maxFee = takerFee(shares, priceMicros) + 1n;
    if (dir === 'buy') {
      if (account.allowance < quote + maxFee) throw bad('allowance not enough', ORDER_ERRNO.allowance);
      if (account.balance - account.frozen < quote + maxFee)
        throw bad('balance not enough', ORDER_ERRNO.balance);
    } else if (this.freeShares(account, market, outcome) < shares) {
      throw bad('position not enough', ORDER_ERRNO.balance);
    }
    this.digests.add(digest);
    const order: SimOrder = {
      orderId: uuid(),
      digest,
      account,
      market,
      outcome,
      tokenId,
      dir,
      priceMicros,
      price: str('price'),
      shares,
      filled: 0n,
      filledAmount: 0n,
      reserved: dir === 'buy' ? quote + maxFee : shares,
      status: ORDER_STATUS.pending,
      createdAt: nowSec,
      expiresAt,
      trades: [],
    };
    this.reserve(order, order.reserved);
    this.orders.set(order.orderId, order);
    this.match(order, step, nowSec);
    return order;
  }

  get(account: OpinionAccount, orderId: string, nowSec: number): SimOrder | undefined {
    const order = this.orders.get(orderId);
    if (!order || order.account !== account) return undefined;
    this.expire(order, nowSec);
    return order;
  }

  list(account: OpinionAccount, nowSec: number): SimOrder[] {
    const mine = [...this.orders.values()].filter((o) => o.account === account);
    for (const o of mine) this.expire(o, nowSec);
    // Newest first; of two in one second, the later placed first.
    return mine.reverse().sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Cancels an open order; false when it is not open (the API's `result: false`). */
  cancel(order: SimOrder, nowSec: number): boolean {
    this.expire(order, nowSec);
    if (order.status !== ORDER_STATUS.pending) return false;
    this.close(order, ORDER_STATUS.canceled);
    return true;
  }

  render(order: SimOrder, detail: boolean): Record<string, unknown> {
    const outcomeName = order.outcome === 'yes' ? 'Yes' : 'No';
    return {
      createdAt: order.createdAt,
      expiresAt: order.expiresAt,
      filledAmount: human(order.filledAmount),
      filledShares: human(order.filled),
      marketId: order.market.marketId,
      marketTitle: order.market.title,
      orderAmount: human(quoteOf(order.shares, order.priceMicros)),
      orderId: order.orderId,
      orderShares: human(order.shares),
      outcome: outcomeName,
      outcomeSide: order.outcome === 'yes' ? 1 : 2,
      outcomeSideEnum: outcomeName,
      price: order.price,
      profit: '0',
      quoteToken: BSC_USDT,
      rootMarketId: order.market.parent?.marketId ?? 0,
      rootMarketTitle: order.market.parent?.title ?? '',
      side: order.dir === 'buy' ? 1 : 2,
      sideEnum: order.dir === 'buy' ? 'Buy' : 'Sell',
      status: order.status,
      statusEnum: STATUS_NAME[order.status],
      tradingMethod: 2,
      tradingMethodEnum: 'Limit',
      ...(detail ? { trades: order.trades.map(renderTrade) } : {}),
    };
  }

  private freeShares(account: OpinionAccount, market: TradableMarket, outcome: 'yes' | 'no'): bigint {
    const held = account.positions.find((p) => p.market === market && p.side === outcome);
    const owned = held ? BigInt(Math.round(held.shares * 1e6)) * 10n ** 12n : 0n;
    const offered = [...this.orders.values()]
      .filter(
        (o) => o.account === account && o.market === market && o.outcome === outcome && o.dir === 'sell',
      )
      .reduce((sum, o) => sum + o.reserved, 0n);
    return owned - offered;
  }

  private reserve(order: SimOrder, amount: bigint): void {
    if (order.dir === 'buy') order.account.frozen += amount;
  }

  private resting(tokenId: string, dir: 'buy' | 'sell', nowSec: number): SimOrder[] {
    const out: SimOrder[] = [];
    for (const o of this.orders.values()) {
      if (o.tokenId !== tokenId || o.dir !== dir) continue;
      this.expire(o, nowSec);
      if (o.status === ORDER_STATUS.pending) out.push(o);
    }
    return out;
  }

  private takenAt(tokenId: string, priceMicros: bigint, step: number): bigint {
    return this.taken.get(`${tokenId}:${priceMicros}:${step}`) ?? 0n;
  }

  /** Crosses `order` with resting paper orders and the house book, best price first (paper first at a tie). */
  private match(order: SimOrder, step: number, nowSec: number): void {
    const against = order.dir === 'buy' ? 'sell' : 'buy';
    const house = tokenBook(this.seed, order.market, order.outcome, step);
    const levels = (against === 'sell' ? house.asks : house.bids).map((l) => ({
      priceMicros: micros(l.price) ?? 0n,
      size: BigInt(Math.round(Number(l.size) * 100)) * 10n ** 16n,
    }));
    const crosses = (p: bigint) => (order.dir === 'buy' ? p <= order.priceMicros : p >= order.priceMicros);
    const better = (a: bigint, b: bigint) => (order.dir === 'buy' ? a < b : a > b);
    const makers = this.resting(order.tokenId, against, nowSec)
      .filter((o) => o.account !== order.account && crosses(o.priceMicros))
      .sort((a, b) => (a.priceMicros === b.priceMicros ? 0 : better(a.priceMicros, b.priceMicros) ? -1 : 1));
    const levelLeft = (i: number): bigint => {
      const level = levels[i];
      return level ? level.size - this.takenAt(order.tokenId, level.priceMicros, step) : 0n;
    };
    let mi = 0;
    let hi = 0;
    while (order.filled < order.shares) {
      while (hi < levels.length && levelLeft(hi) <= 0n) hi++;
      while (mi < makers.length && makers[mi]?.status !== ORDER_STATUS.pending) mi++;
      const level = levels[hi];
      const maker = makers[mi];
      const houseOk = level !== undefined && crosses(level.priceMicros);
      if (!maker && !houseOk) break;
      const want = order.shares - order.filled;
      if (maker && (!houseOk || !better(level.priceMicros, maker.priceMicros))) {
        this.fill(order, maker.priceMicros, min(want, maker.shares - maker.filled), nowSec, maker);
      } else if (level) {
        const size = min(want, levelLeft(hi));
        const key = `${order.tokenId}:${level.priceMicros}:${step}`;
        this.taken.set(key, (this.taken.get(key) ?? 0n) + size);
        this.fill(order, level.priceMicros, size, nowSec, null);
      }
    }
  }

  /** One fill of the taker `order` at the maker's price; the maker is a paper order or the house (null). */
  private fill(
    order: SimOrder,
    priceMicros: bigint,
    shares: bigint,
    nowSec: number,
    maker: SimOrder | null,
  ): void {
    const fee = takerFee(shares, priceMicros);
    this.settle(order, priceMicros, shares, fee, nowSec);
    if (maker) this.settle(maker, priceMicros, shares, 0n, nowSec);
  }

  private settle(order: SimOrder, priceMicros: bigint, shares: bigint, fee: bigint, nowSec: number): void {
    const quote = quoteOf(shares, priceMicros);
    const account = order.account;
    order.filled += shares;
    order.filledAmount += quote;
    const n = this.tradeCount++;
    const trade: SimTrade = {
      tradeNo: `8${String(n).padStart(9, '0')}${order.market.marketId}`,
      orderNo: order.orderId,
      txHash: `0x${randomBytes(32).toString('hex')}`,
      market: order.market,
      side: order.outcome,
      dir: order.dir,
      price: Number(priceMicros) / 1e6,
      shares: Number(shares) / 1e18,
      fee: Number(fee) / 1e18,
      feeWei: fee,
      createdAt: nowSec,
    };
    order.trades.push(trade);
    account.trades.push(trade);
    const sharesN = Number(shares) / 1e18;
    const priceN = Number(priceMicros) / 1e6;
    const held = account.positions.find((p) => p.market === order.market && p.side === order.outcome);
    if (order.dir === 'buy') {
      // The set-aside cost at the limit price is released; the fill's own cost and fee are paid.
      const release =
        quoteOf(shares, order.priceMicros) + (order.reserved > 0n ? takerFee(shares, order.priceMicros) : 0n);
      const freed = min(release, order.reserved);
      order.reserved -= freed;
      account.frozen -= freed;
      account.balance -= quote + fee;
      if (held) {
        held.avgPrice = (held.avgPrice * held.shares + priceN * sharesN) / (held.shares + sharesN);
        held.shares += sharesN;
      } else
        account.positions.push({
          market: order.market,
          side: order.outcome,
          shares: sharesN,
          avgPrice: priceN,
        });
    } else {
      order.reserved -= shares;
      account.balance += quote - fee;
      if (held) held.shares = Math.max(0, Math.round((held.shares - sharesN) * 1e6) / 1e6);
    }
    if (order.filled === order.shares) this.close(order, ORDER_STATUS.finished);
  }

  private expire(order: SimOrder, nowSec: number): void {
    if (order.status === ORDER_STATUS.pending && order.expiresAt !== 0 && nowSec >= order.expiresAt)
      this.close(order, ORDER_STATUS.expired);
  }

  /** Ends an order: what it still set aside goes back. */
  private close(order: SimOrder, status: SimOrder['status']): void {
    if (order.dir === 'buy') order.account.frozen -= order.reserved;
    order.reserved = 0n;
    order.status = status;
  }
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** Opinion order ids are UUIDs. */
function uuid(): string {
  return randomBytes(16)
    .toString('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
}
