// The deterministic world every simulator serves: real-world propositions (the same question, before any venue
// phrases it), which venues list each one, and their state. Each simulator phrases a proposition in its own
// style and publishes its proposition → native id mapping at /__sim/manifest; joining those mappings by
// proposition id is the ground truth for cross-venue matching. Shares no code with src/.
import { createRng, intBetween, pick, type Rng } from './prng.js';

export const VENUES = ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun'] as const;
export type VenueName = (typeof VENUES)[number];

export type Topic = 'crypto' | 'economics' | 'politics' | 'sports' | 'weather';

/**
 * The price index each venue's crypto rules name, as real venues do: Kalshi settles on CF Benchmarks' Real-Time
 * Index, Polymarket on the Binance 1-minute candle; the other simulators' crypto rules name none. One proposition
 * on two venues that name different indices is two markets that can settle apart (co_dependent, never same_market),
 * and the matching ground truth (bench/matching/sim-truth.ts) labels it so. sim/kalshi/phrasing.ts and
 * sim/polymarket/phrasing.ts spell these in their rules.
 */
export const CRYPTO_SETTLEMENT_INDEX: Partial<Record<VenueName, string>> = {
  kalshi: 'CF Benchmarks Real-Time Index',
  polymarket: 'Binance',
};
export type PropositionStatus = 'active' | 'closed' | 'resolved';

interface BinaryShape {
  kind: 'binary';
  /** Probability of YES the simulated books centre on. */
  fairYes: number;
}

interface MultiShape {
  kind: 'multi';
  /** Mutually exclusive options (a neg-risk event on Polymarket, a multi-market event on Kalshi). */
  options: Array<{ name: string; fair: number }>;
}

export interface Proposition {
  /** Stable across venues and runs for one seed: `p000042`. */
  id: string;
  topic: Topic;
  /** What the question is about, e.g. `Bitcoin`, `the Fed funds target rate`, `Lakers vs Celtics`. */
  subject: string;
  /** The measurable part when there is one: `above 100000` (USD), `cut by 25 bps`. */
  condition: string;
  /** Neutral wording no venue uses verbatim. */
  statement: string;
  /** A number the condition compares against, when it has one. */
  threshold: number | null;
  unit: 'usd' | 'bps' | 'degrees_f' | null;
  openTime: Date;
  closeTime: Date;
  status: PropositionStatus;
  /** For resolved propositions: the winning outcome (`Yes`/`No`, or an option name). */
  winner: string | null;
  shape: BinaryShape | MultiShape;
  /** Which venues list it; always at least one. */
  venues: VenueName[];
  /** A volume scale shared by all venues listing it (each venue applies its own factor). */
  baseVolumeUsd: number;
}

export interface WorldOptions {
  seed?: number;
  /** Number of propositions. The sandbox default is small; benchmarks ask for 100k+. */
  size?: number;
  /** The instant the world is built around (close times, statuses). Defaults to a fixed date for determinism. */
  now?: Date;
  /**
   * The share of propositions still active (the rest closed or resolved, about half each). Default 0.75, or
   * OMNIBOOK_SIM_ACTIVE_SHARE: the venues' real history is mostly closed markets (about a tenth active), which is
   * what the catalogue benchmark builds its realistic store from, through the unchanged `omnibook sync --sandbox`.
   */
  activeShare?: number;
}

export interface World {
  seed: number;
  now: Date;
  propositions: Proposition[];
  /** Propositions a given venue lists, in id order. */
  listedOn(venue: VenueName): Proposition[];
}

export const DEFAULT_SEED = 20_261_122;
export const DEFAULT_SIZE = 60;
const DAY_MS = 86_400_000;
const DEFAULT_ACTIVE_SHARE = 0.75;

function activeShareFromEnv(): number {
  const raw = process.env.OMNIBOOK_SIM_ACTIVE_SHARE;
  if (raw === undefined || raw === '') return DEFAULT_ACTIVE_SHARE;
  const share = Number(raw);
  if (!(share >= 0 && share <= 1)) throw new Error('OMNIBOOK_SIM_ACTIVE_SHARE must be a number from 0 to 1');
  return share;
}

export function createWorld(options: WorldOptions = {}): World {
  const seed = options.seed ?? DEFAULT_SEED;
  const size = options.size ?? DEFAULT_SIZE;
  const now = options.now ?? new Date(Date.UTC(2026, 10, 22, 12));
  const activeShare = options.activeShare ?? activeShareFromEnv();
  const rng = createRng(seed);
  const propositions: Proposition[] = [];
  for (let i = 0; i < size; i++) propositions.push(makeProposition(rng, i, now, activeShare));
  const byVenue = new Map<VenueName, Proposition[]>(VENUES.map((v) => [v, []]));
  for (const p of propositions) for (const v of p.venues) byVenue.get(v)?.push(p);
  return { seed, now, propositions, listedOn: (venue) => byVenue.get(venue) ?? [] };
}

const COINS = [
  { name: 'Bitcoin', symbol: 'BTC', base: 100_000, step: 5_000 },
  { name: 'Ethereum', symbol: 'ETH', base: 4_000, step: 250 },
  { name: 'Solana', symbol: 'SOL', base: 200, step: 10 },
];
const TEAMS = ['Lakers', 'Celtics', 'Warriors', 'Knicks', 'Bulls', 'Heat', 'Suns', 'Nuggets'];
const CITIES = ['New York', 'Chicago', 'Miami', 'Denver', 'Seattle'];
const CANDIDATES = ['Alice Moreno', 'Ben Okafor', 'Chen Wei', 'Dana Kowalski', 'Elif Yilmaz'];

function makeProposition(rng: Rng, index: number, now: Date, activeShare: number): Proposition {
  const id = `p${String(index).padStart(6, '0')}`;
  const topic = pick<Topic>(rng, ['crypto', 'crypto', 'economics', 'politics', 'sports', 'weather']);
  // By default most propositions are live, some closed or resolved so status filters have something to find; the
  // inactive rest splits 12:13 between closed and resolved whatever the active share (0.75 gives 0.75 / 0.87, the
  // thresholds every seeded world was built with), and the draws stay the same, so only statuses move.
  const roll = rng();
  const closedBelow = activeShare + (1 - activeShare) * 0.48;
  const status: PropositionStatus =
    roll < activeShare ? 'active' : roll < closedBelow ? 'closed' : 'resolved';
  const closeOffsetDays = status === 'active' ? intBetween(rng, 1, 240) : -intBetween(rng, 1, 120);
  const closeTime = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + closeOffsetDays, 23, 59),
  );
  const openTime = new Date(closeTime.getTime() - intBetween(rng, 20, 200) * DAY_MS);
  const venues = chooseVenues(rng);
  const baseVolumeUsd = Math.round(10 ** (2 + rng() * 5));
  const base = { id, topic, openTime, closeTime, status, venues, baseVolumeUsd };
  const date = closeTime.toISOString().slice(0, 10);

  switch (topic) {
    case 'crypto': {
      const coin = pick(rng, COINS);
      const threshold = coin.base + coin.step * intBetween(rng, -4, 4);
      const fairYes = clampProb(rng());
      return {
        ...base,
        subject: coin.name,
        condition: `above ${threshold}`,
        statement: `${coin.name} (${coin.symbol}) trades above ${threshold} USD at ${date} 23:59 UTC`,
        threshold,
        unit: 'usd',
        winner: status === 'resolved' ? (rng() < fairYes ? 'Yes' : 'No') : null,
        shape: { kind: 'binary', fairYes },
      };
    }
    case 'economics': {
      const bps = pick(rng, [0, 25, 50]);
      const fairYes = clampProb(rng());
      const condition = bps === 0 ? 'held unchanged' : `cut by ${bps} bps`;
      return {
        ...base,
        subject: 'the Fed funds target rate',
        condition,
        statement: `The Federal Reserve's target rate is ${condition} at the meeting before ${date}`,
        threshold: bps,
        unit: 'bps',
        winner: status === 'resolved' ? (rng() < fairYes ? 'Yes' : 'No') : null,
        shape: { kind: 'binary', fairYes },
      };
    }
    case 'politics': {
      const count = intBetween(rng, 3, CANDIDATES.length);
      const names = CANDIDATES.slice(0, count);
      const weights = names.map(() => 0.2 + rng());
      const total = weights.reduce((a, b) => a + b, 0);
      const options = names.map((name, i) => ({ name, fair: (weights[i] ?? 0) / total }));
      const office = `Mayor of ${pick(rng, CITIES)}`;
      return {
        ...base,
        subject: office,
        condition: 'winner',
        statement: `Who wins the election for ${office} held by ${date}`,
        threshold: null,
        unit: null,
        winner: status === 'resolved' ? (options[0]?.name ?? null) : null,
        shape: { kind: 'multi', options },
      };
    }
    case 'sports': {
      const home = pick(rng, TEAMS);
      let away = pick(rng, TEAMS);
      if (away === home) away = TEAMS[(TEAMS.indexOf(home) + 1) % TEAMS.length] as string;
      const fairYes = clampProb(rng());
      return {
        ...base,
        subject: `${home} vs ${away}`,
        condition: `${home} win`,
        statement: `The ${home} beat the ${away} in their game on ${date}`,
        threshold: null,
        unit: null,
        winner: status === 'resolved' ? (rng() < fairYes ? 'Yes' : 'No') : null,
        shape: { kind: 'binary', fairYes },
      };
    }
    default: {
      const city = pick(rng, CITIES);
      const threshold = intBetween(rng, 40, 95);
      const fairYes = clampProb(rng());
      return {
        ...base,
        subject: `the high temperature in ${city}`,
        condition: `above ${threshold}`,
        statement: `The official high temperature in ${city} on ${date} is above ${threshold}°F`,
        threshold,
        unit: 'degrees_f',
        winner: status === 'resolved' ? (rng() < fairYes ? 'Yes' : 'No') : null,
        shape: { kind: 'binary', fairYes },
      };
    }
  }
}

function chooseVenues(rng: Rng): VenueName[] {
  // Every venue lists about half the propositions, so each pair of venues shares about a quarter of them.
  const chosen = VENUES.filter(() => rng() < 0.5);
  return chosen.length > 0 ? chosen : [pick(rng, VENUES)];
}

function clampProb(x: number): number {
  return Math.round((0.03 + x * 0.94) * 1000) / 1000;
}

/**
 * The ground-truth key of one tradable question, used in every simulator's /__sim/manifest: the proposition id
 * for a binary proposition, `${id}/${option}` for each option of a multi-option one (a venue may list those as
 * several binary markets, as Polymarket's neg-risk events and Kalshi's multi-market events do, or as one
 * categorical market, in which case it maps the bare id).
 */
export function propositionKey(p: Proposition, option?: string): string {
  return option === undefined ? p.id : `${p.id}/${option}`;
}
