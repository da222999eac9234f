// The static Polymarket catalogue built from the shared world: one event per proposition listed on polymarket, one
// binary market per event or one neg-risk market per option. Records stay compact (payloads are rendered on
// request) and every lookup is O(1): slugs in Maps, numeric ids by offset, condition/token ids by decoding.
import { type Proposition, propositionKey, type World } from '../shared/world.js';
import {
  addressFor,
  bytes32For,
  conditionIdFor,
  decodeConditionIndex,
  decodeTokenId,
  hash32,
  tokenIdFor,
} from './ids.js';
import { type EventPhrase, type PmTag, phraseEvent, phraseOption } from './phrasing.js';

export const GAMMA_MARKET_ID_BASE = 1_000_001;
export const GAMMA_EVENT_ID_BASE = 300_001;
export const MIN_ORDER_SIZE = 5;

export type MarketStatus = 'active' | 'closed' | 'resolved';

export interface PmEvent {
  index: number;
  prop: Proposition;
  phrase: EventPhrase;
  slug: string;
  negRisk: boolean;
  markets: PmMarket[];
  /** When trading opened: the proposition's open time, but never after the world's now for a live market. */
  opened: Date;
}

export interface PmMarket {
  index: number;
  event: PmEvent;
  prop: Proposition;
  /** Option name of a neg-risk market (its groupItemTitle), null for a binary market. */
  option: string | null;
  optionIndex: number;
  question: string;
  slug: string;
  description: string;
  /** YES probability the house centres on at step 0. */
  f0: number;
  /** Tick in micro units away from the extremes (10000 = 0.01, 1000 = 0.001). */
  baseTick: number;
  /** V2 fee curve; rate 0 = no taker fee. */
  feeRate: number;
  feeExp: number;
  status: MarketStatus;
  yesWon: boolean | null;
  archived: boolean;
  /** Volume traded before the simulation started (USD), split by fair share for neg-risk markets. */
  baseVolume: number;
  /** Deterministic per-market variation bits. */
  h: number;
  cid?: string;
  tokens?: [string, string];
}

const FEE_RATES = [0.02, 0.03, 0.05, 0.07];

export class Catalogue {
  readonly markets: PmMarket[] = [];
  readonly events: PmEvent[] = [];
  private readonly marketSlugs = new Map<string, PmMarket>();
  private readonly eventSlugs = new Map<string, PmEvent>();

  constructor(
    readonly world: World,
    readonly seed: number,
  ) {
    for (const prop of world.listedOn('polymarket')) this.addEvent(prop);
  }

  private addEvent(prop: Proposition): void {
    const phrase = phraseEvent(prop);
    const negRisk = prop.shape.kind === 'multi';
    const event: PmEvent = {
      index: this.events.length,
      prop,
      phrase,
      slug: unique(this.eventSlugs, phrase.slug),
      negRisk,
      markets: [],
      opened: new Date(Math.min(prop.openTime.getTime(), this.world.now.getTime() - 30 * 86_400_000)),
    };
    this.events.push(event);
    this.eventSlugs.set(event.slug, event);
    if (prop.shape.kind === 'binary') {
      const winner = prop.status === 'resolved' ? prop.winner === 'Yes' : null;
      this.addMarket(event, null, 0, phrase, prop.shape.fairYes, winner, prop.baseVolumeUsd);
    } else {
      prop.shape.options.forEach((option, i) => {
        const winner = prop.status === 'resolved' ? prop.winner === option.name : null;
        const volume = prop.baseVolumeUsd * option.fair;
        this.addMarket(event, option.name, i, phraseOption(prop, option.name), option.fair, winner, volume);
      });
    }
  }

  private addMarket(
    event: PmEvent,
    option: string | null,
    optionIndex: number,
    phrase: { question: string; slug: string; description: string },
    fair: number,
    yesWon: boolean | null,
    volume: number,
  ): void {
    const h = hash32(`${this.seed}|${event.prop.id}|${option ?? ''}`);
    const fee = (h >>> 4) % 10 < 2;
    const market: PmMarket = {
      index: this.markets.length,
      event,
      prop: event.prop,
      option,
      optionIndex,
      question: phrase.question,
      // A binary event's only market shares the event's slug, as on polymarket.com.
      slug: unique(this.marketSlugs, option === null ? event.slug : phrase.slug),
      description: phrase.description,
      f0: Math.min(0.97, Math.max(0.03, fair)),
      baseTick: h % 10 < 2 ? 1000 : 10_000,
      feeRate: fee ? (FEE_RATES[(h >>> 8) % FEE_RATES.length] ?? 0.02) : 0,
      feeExp: fee ? 1 + ((h >>> 12) % 2) : 0,
      status: event.prop.status,
      yesWon,
      // A fifth of finished events are archived; the whole event at once, as Gamma archives events.
      archived: event.prop.status !== 'active' && hash32(`${this.seed}|${event.prop.id}|archived`) % 5 === 0,
      baseVolume: Math.round(volume * (0.5 + ((h >>> 20) % 100) / 100) * 100) / 100,
      h,
    };
    this.markets.push(market);
    this.marketSlugs.set(market.slug, market);
    event.markets.push(market);
  }

  conditionId(m: PmMarket): string {
    m.cid ??= conditionIdFor(this.seed, m.index);
    return m.cid;
  }

  tokenIds(m: PmMarket): [string, string] {
    m.tokens ??= [tokenIdFor(this.seed, m.index, 0), tokenIdFor(this.seed, m.index, 1)];
    return m.tokens;
  }

  tokenId(m: PmMarket, outcome: 0 | 1): string {
    return this.tokenIds(m)[outcome];
  }

  byConditionId(conditionId: string): PmMarket | undefined {
    const index = decodeConditionIndex(this.seed, conditionId);
    return index === null ? undefined : this.markets[index];
  }

  byToken(tokenId: string): { market: PmMarket; outcome: 0 | 1 } | undefined {
    const decoded = decodeTokenId(this.seed, tokenId);
    const market = decoded ? this.markets[decoded.index] : undefined;
    return market && decoded ? { market, outcome: decoded.outcome } : undefined;
  }

  bySlug(slug: string): PmMarket | undefined {
    return this.marketSlugs.get(slug);
  }

  eventBySlug(slug: string): PmEvent | undefined {
    return this.eventSlugs.get(slug);
  }

  byGammaId(id: string): PmMarket | undefined {
    return /^\d+$/.test(id) ? this.markets[Number(id) - GAMMA_MARKET_ID_BASE] : undefined;
  }

  eventByGammaId(id: string): PmEvent | undefined {
    return /^\d+$/.test(id) ? this.events[Number(id) - GAMMA_EVENT_ID_BASE] : undefined;
  }

  gammaId(m: PmMarket): string {
    return String(GAMMA_MARKET_ID_BASE + m.index);
  }

  eventGammaId(e: PmEvent): string {
    return String(GAMMA_EVENT_ID_BASE + e.index);
  }

  /** Neg-risk market ids end in a zero byte; each option's question id puts its option index in that byte. */
  negRiskMarketId(e: PmEvent): string {
    return e.negRisk ? `${bytes32For(`${this.seed}|negrisk|${e.prop.id}`).slice(0, 64)}00` : '';
  }

  questionId(m: PmMarket): string {
    if (!m.event.negRisk) return bytes32For(`${this.seed}|question|${m.prop.id}`);
    return `${this.negRiskMarketId(m.event).slice(0, 64)}${m.optionIndex.toString(16).padStart(2, '0')}`;
  }

  negRiskRequestId(m: PmMarket): string {
    return m.event.negRisk ? bytes32For(`${this.seed}|request|${m.prop.id}|${m.optionIndex}`) : '';
  }

  tags(e: PmEvent): PmTag[] {
    return e.phrase.tags;
  }

  /** proposition key → [condition id]; the cross-venue ground truth served at /__sim/manifest. */
  manifest(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const m of this.markets) {
      const key = m.option === null ? propositionKey(m.prop) : propositionKey(m.prop, m.option);
      out[key] = [this.conditionId(m)];
    }
    return out;
  }
}

function unique<T>(taken: Map<string, T>, stem: string): string {
  if (!taken.has(stem)) return stem;
  for (let n = 2; ; n++) {
    const slug = `${stem}-${n}`;
    if (!taken.has(slug)) return slug;
  }
}

/** The resolver address Polymarket markets name (UMA adapter), shown in Gamma's `resolvedBy`. */
export const RESOLVED_BY = '0x65070BE91477460D8A7AeEb94ef92fe056C2f2A7';
export const HOUSE_ADDRESS = addressFor('polymarket-sim|house');
