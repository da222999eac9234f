// The moving parts of the Predict.fun simulator: the step counter that POST /__sim/advance moves (books and the
// trade tape follow it deterministically), when each step happened, and the books and matches derived from it.
import { getAddress } from 'viem';
import type { SimClock } from '../shared/control.js';
import type { World } from '../shared/world.js';
import { buildYesBook, type YesBook } from './book.js';
import { hex32, marketTokens, type PfCatalog, type PfMarketRef, traderPool } from './catalog.js';

export interface MatchLeg {
  amount: string;
  fee: { amount: string; type: 'COLLATERAL' | 'SHARES' };
  hash: string;
  outcome: { indexSet: 1 | 2; name: string; onChainId: string };
  price: string;
  quoteType: 'Bid' | 'Ask';
  signer: string;
}

export interface Match {
  amountFilled: string;
  executedAt: string;
  priceExecuted: string;
  settlementId: string;
  transactionHash: string;
  taker: MatchLeg;
  makers: MatchLeg[];
  market: { id: number };
}

const WEI = 10n ** 18n;

const minWei = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** Every simulated market's taker fee rate (`feeRateBps` of the market document); makers pay nothing. */
export const MARKET_FEE_RATE_BPS = 200n;

export class PfState {
  step = 0;
  /** Wall-clock (simulator clock) ms of each step; index k-1 is step k. */
  readonly stepTimes: number[] = [];
  readonly traders: string[];
  readonly startedAt: number;
  /** Matches paper wallets made on the exchange itself (POST /__sim/trade), oldest first, with their step. */
  readonly paperMatches: Array<{ step: number; match: Match }> = [];

  constructor(
    readonly world: World,
    readonly catalog: PfCatalog,
    readonly clock: SimClock,
  ) {
    this.traders = traderPool(world);
    this.startedAt = clock.now();
  }

  advance(steps: number): number {
    const now = this.clock.now();
    for (let i = 0; i < steps; i++) this.stepTimes.push(now);
    this.step += steps;
    return this.step;
  }

  trading(ref: PfMarketRef): boolean {
    return ref.category.prop.status === 'active';
  }

  book(ref: PfMarketRef, step = this.step): YesBook {
    const c = ref.category;
    return buildYesBook(this.world.seed, ref.id, ref.fairYes, c.decimalPrecision, step, this.trading(ref));
  }

  /** Set by the order engine: the book as shown, with paper orders and what they took from the house. */
  bookView: ((ref: PfMarketRef, house: YesBook) => YesBook) | null = null;

  /** The current book as the venue shows it (the house's quote plus paper orders resting in it). */
  liveBook(ref: PfMarketRef): YesBook {
    const house = this.book(ref);
    return this.bookView ? this.bookView(ref, house) : house;
  }

  /** When the book last changed: the last advance, or the simulator's start. */
  bookUpdatedAt(): number {
    return this.stepTimes.at(-1) ?? this.startedAt;
  }

  /**
   * The one match a trading market prints at step k (1-based): a taker crossing the top of the step's book against
   * one maker on the same outcome, amounts and prices in wei as the API sends them.
   */
  match(ref: PfMarketRef, k: number): Match | null {
    if (!this.trading(ref) || k < 1 || k > this.step) return null;
    const book = this.book(ref, k);
    const h = Number.parseInt(hex32('pf-match', this.world.seed, ref.id, k).slice(2, 14), 16);
    const takerBuys = h % 2 === 0;
    const level = takerBuys ? book.asks[0] : book.bids[0];
    if (!level) return null;
    const tokens = marketTokens(this.world, ref.id);
    const yes = { indexSet: 1 as const, name: 'Yes', onChainId: tokens.yes };
    const shares = BigInt(1 + (h % 20_000)) * 10n ** 16n; // 0.01 .. 200 shares
    const priceWei = BigInt(Math.round(level[0] * 1_000_000)) * 10n ** 12n;
    const n = this.traders.length;
    const takerIndex = h % n;
    const taker = this.traders[takerIndex] as string;
    // A different wallet makes: self-trades exist on the venue, but the tape need not invent them.
    const maker = this.traders[(takerIndex + 1 + (Math.floor(h / n) % (n - 1))) % n] as string;
    const at = new Date((this.stepTimes[k - 1] ?? this.startedAt) + (ref.id % 1000)).toISOString();
    return {
      amountFilled: shares.toString(),
      executedAt: at,
      priceExecuted: priceWei.toString(),
      settlementId: uuid(hex32('pf-settlement', this.world.seed, ref.id, k)),
      transactionHash: hex32('pf-tx', this.world.seed, ref.id, k),
      taker: {
        amount: shares.toString(),
        fee: takerFee(shares, priceWei, takerBuys),
        hash: hex32('pf-order', this.world.seed, ref.id, k, 'taker'),
        outcome: yes,
        price: priceWei.toString(),
        quoteType: takerBuys ? 'Bid' : 'Ask',
        signer: taker,
      },
      makers: [
        {
          amount: shares.toString(),
          fee: { amount: '0', type: 'SHARES' },
          hash: hex32('pf-order', this.world.seed, ref.id, k, 'maker'),
          outcome: yes,
          price: priceWei.toString(),
          quoteType: takerBuys ? 'Ask' : 'Bid',
          signer: maker,
        },
      ],
      market: { id: ref.id },
    };
  }

  /**
   * A paper wallet buys 5 YES shares at the best ask of a trading market, against one of the tape's wallets: the
   * match is listed by GET /v1/orders/matches (at the current step, before the step's tape) and settled at once.
   * Null when no trading market has an ask.
   */
  paperTrade(address: string): Match | null {
    const refs = this.catalog.trading();
    const n = this.paperMatches.length;
    for (let j = 0; j < refs.length; j++) {
      const ref = refs[(n + j) % refs.length] as PfMarketRef;
      const level = this.book(ref).asks[0];
      if (!level) continue;
      const tokens = marketTokens(this.world, ref.id);
      const yes = { indexSet: 1 as const, name: 'Yes', onChainId: tokens.yes };
      const shares = 5n * WEI;
      const priceWei = BigInt(Math.round(level[0] * 1_000_000)) * 10n ** 12n;
      const id = (label: string) => hex32(label, this.world.seed, 'paper', n);
      const match: Match = {
        amountFilled: shares.toString(),
        executedAt: new Date(this.clock.now()).toISOString(),
        priceExecuted: priceWei.toString(),
        settlementId: uuid(id('pf-settlement')),
        transactionHash: id('pf-tx'),
        taker: {
          amount: shares.toString(),
          fee: takerFee(shares, priceWei, true),
          hash: id('pf-order-taker'),
          outcome: yes,
          price: priceWei.toString(),
          quoteType: 'Bid',
          signer: getAddress(address),
        },
        makers: [
          {
            amount: shares.toString(),
            fee: { amount: '0', type: 'SHARES' },
            hash: id('pf-order-maker'),
            outcome: yes,
            price: priceWei.toString(),
            quoteType: 'Ask',
            signer: this.traders[n % this.traders.length] as string,
          },
        ],
        market: { id: ref.id },
      };
      this.paperMatches.push({ step: this.step, match });
      return match;
    }
    return null;
  }
}

/**
 * Predict.fun's published taker fee (docs.predict.fun "Predict fees and limits"; docs/venues/predictfun.md):
 * feeRateBps × min(p, 1 − p) × shares in dollars, taken from what the taker receives: a buyer gets that value fewer
 * shares (converted at the trade's price), a seller that many fewer dollars.
 */
export function takerFee(shares: bigint, priceWei: bigint, takerBuys: boolean): MatchLeg['fee'] {
  const feeDollars = (shares * minWei(priceWei, WEI - priceWei) * MARKET_FEE_RATE_BPS) / (10_000n * WEI);
  return takerBuys
    ? { amount: (priceWei === 0n ? 0n : (feeDollars * WEI) / priceWei).toString(), type: 'SHARES' }
    : { amount: feeDollars.toString(), type: 'COLLATERAL' };
}

export function uuid(hex: string): string {
  const h = hex.slice(2, 34);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
