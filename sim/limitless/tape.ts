// The simulator's moving parts: the tape step (POST /__sim/advance) with the time each step happened, market
// state against the simulator clock, and the deterministic trade tape behind GET /markets/{slug}/events.
import { createRng } from '../shared/prng.js';
import { buildBook, type SimBook, tick } from './book.js';
import { hashHex, type SimMarket, tokenIdOf } from './catalog.js';

export type MarketState = 'active' | 'closed' | 'resolved';

/** Steps before the simulator started, so a fresh tape already has a little history. */
export const PRE_STEPS = 24;
const PRE_STEP_MS = 300_000;

export class SimTape {
  step = 0;
  private readonly times: number[] = [];

  constructor(private readonly startMs: number) {}

  advance(steps: number, nowMs: number): number {
    for (let i = 0; i < steps; i++) this.times.push(nowMs);
    this.step += steps;
    return this.step;
  }

  /** Wall time of step k (k <= 0 are the pre-start steps, five minutes apart). */
  timeOf(k: number): number {
    if (k <= 0) return this.startMs + (k - 1) * PRE_STEP_MS;
    return this.times[k - 1] ?? this.startMs;
  }
}

export function marketState(m: { prop: SimMarket['prop'] }, nowMs: number): MarketState {
  if (m.prop.status === 'resolved') return 'resolved';
  if (m.prop.status === 'closed' || m.prop.closeTime.getTime() <= nowMs) return 'closed';
  return 'active';
}

export function bookAt(m: SimMarket, step: number, nowMs: number): SimBook {
  return buildBook(m.seed, m.fairYes, step, marketState(m, nowMs) === 'active');
}

export interface SimTrade {
  createdMs: number;
  tokenId: string;
  side: 0 | 1;
  /** Price of the traded token (YES or NO). */
  price: number;
  /** Shares × 1e6. */
  size: number;
  traderIndex: number;
  txHash: string;
}

/** Trades one market printed at step k: none, one or two, at the book of that step. */
export function tradesAt(m: SimMarket, k: number, tape: SimTape): SimTrade[] {
  const rng = createRng((m.seed * 7 + Math.imul(k + PRE_STEPS + 11, 0x85ebca6b)) >>> 0);
  const count = Math.floor(rng() * 3);
  if (count === 0) return [];
  const book = buildBook(m.seed, m.fairYes, Math.max(0, k), true);
  const out: SimTrade[] = [];
  for (let i = 0; i < count; i++) {
    const yes = rng() < 0.7;
    const buy = rng() < 0.55;
    // A taker buying YES lifts the ask; selling hits the bid. NO prints at the complement.
    const yesPrice = buy ? (book.asks[0]?.price ?? 0.5) : (book.bids[0]?.price ?? 0.5);
    out.push({
      createdMs: tape.timeOf(k) - i,
      tokenId: tokenIdOf(m, yes ? 'yes' : 'no'),
      side: (yes ? buy : !buy) ? 0 : 1,
      price: yes ? yesPrice : tick(1 - yesPrice),
      size: (1 + Math.floor(rng() * 400)) * 1_000_000,
      traderIndex: Math.floor(rng() * TRADERS.length),
      txHash: `0x${hashHex(`limitless:tx:${m.slug}:${k}:${i}`)}`,
    });
  }
  return out;
}

/** Newest first: every trade from the current step back to the first pre-start step. */
export function* tapeNewestFirst(m: SimMarket, tape: SimTape, nowMs: number): Generator<SimTrade> {
  // A market that stopped trading printed nothing after it closed.
  const lastOpenMs =
    marketState(m, nowMs) === 'active' ? Number.POSITIVE_INFINITY : m.prop.closeTime.getTime();
  for (let k = tape.step; k > -PRE_STEPS; k--) {
    if (tape.timeOf(k) > lastOpenMs) continue;
    yield* tradesAt(m, k, tape);
  }
}

export interface SimTrader {
  id: number;
  account: string;
  username: string;
}

/** The public profiles that show up as takers on the tape. */
export const TRADERS: readonly SimTrader[] = Array.from({ length: 12 }, (_, i) => ({
  id: 190_000 + i * 37,
  account: `0x${hashHex(`limitless:trader:${i}`).slice(0, 40)}`,
  username: `trader${i + 1}`,
}));
