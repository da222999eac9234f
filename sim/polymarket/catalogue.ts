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
import {
  type EventPhrase,
  eventSlug,
  optionSlug,
  type Phrase,
  type PmTag,
  phraseEvent,
  phraseOption,
} from './phrasing.js';

export const GAMMA_MARKET_ID_BASE = 1_000_001;
export const GAMMA_EVENT_ID_BASE = 300_001;
export const MIN_ORDER_SIZE = 5;

export type MarketStatus = 'active' | 'closed' | 'resolved';

/** An event; its wording is built the first time a payload needs it (start-up only needs the slug). */
export class PmEvent {
  readonly markets: PmMarket[] = [];
  private worded?: EventPhrase;
  /** A neg-risk event listed on the sandbox chain: the NegRiskAdapter's market id for it. */
  chainMarketId?: string;

  constructor(
    readonly index: number,
    readonly prop: Proposition,
    readonly slug: string,
    readonly negRisk: boolean,
    /** When trading opened: the proposition's open time, but never after the world's now for a live market. */
    readonly opened: Date,
  ) {}

  get phrase(): EventPhrase {
    this.worded ??= phraseEvent(this.prop);
    return this.worded;
  }
}

export interface MarketTraits {
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
}

/** One Yes/No market: a binary event's only market or one option of a neg-risk event. */
export class PmMarket implements MarketTraits {
  readonly f0: number;
  readonly baseTick: number;
  readonly feeRate: number;
  readonly feeExp: number;
  /** Changes only when the simulator resolves a market on the sandbox chain (Catalogue.markResolved). */
  status: MarketStatus;
  yesWon: boolean | null;
  readonly archived: boolean;
  readonly baseVolume: number;
  readonly h: number;
  cid?: string;
  tokens?: [string, string];
  /**
   * A Protocol-V2 market (Gamma `version: "v2"`): it settles on ExchangeV3 and its outcomes are structured position
   * ids rather than CTF token ids (Catalogue.listOnProtocolV2).
   */
  protocolV2 = false;
  private worded?: Phrase;

  constructor(
    readonly index: number,
    readonly event: PmEvent,
    /** Option name of a neg-risk market (its groupItemTitle), null for a binary market. */
    readonly option: string | null,
    readonly optionIndex: number,
    readonly slug: string,
    traits: MarketTraits,
  ) {
    this.f0 = traits.f0;
    this.baseTick = traits.baseTick;
    this.feeRate = traits.feeRate;
    this.feeExp = traits.feeExp;
    this.status = traits.status;
    this.yesWon = traits.yesWon;
    this.archived = traits.archived;
    this.baseVolume = traits.baseVolume;
    this.h = traits.h;
  }

  get prop(): Proposition {
    return this.event.prop;
  }

  private get phrase(): Phrase {
    this.worded ??= this.option === null ? this.event.phrase : phraseOption(this.prop, this.option);
    return this.worded;
  }

  get question(): string {
    return this.phrase.question;
  }

  get description(): string {
    return this.phrase.description;
  }
}

const FEE_RATES = [0.02, 0.03, 0.05, 0.07];

export class Catalogue {
  readonly markets: PmMarket[] = [];
  readonly events: PmEvent[] = [];
  private readonly marketSlugs = new Map<string, PmMarket>();
  private readonly eventSlugs = new Map<string, PmEvent>();
  /** Next numeric suffix per slug stem, so colliding stems do not rescan from -2. */
  private readonly counters = new Map<string, number>();
  /** Markets listed on the sandbox chain answer to their on-chain condition and position ids instead. */
  private readonly chainConditions = new Map<string, PmMarket>();
  private readonly chainTokens = new Map<string, { market: PmMarket; outcome: 0 | 1 }>();

  constructor(
    readonly world: World,
    readonly seed: number,
  ) {
    for (const prop of world.listedOn('polymarket')) this.addEvent(prop);
  }

  /**
   * Lists an active binary proposition of the world that Polymarket had not listed yet (a market launched while
   * clients watch: `POST /__sim/markets`); null when every such proposition is listed already.
   */
  listNext(): PmMarket | null {
    const listed = new Set(this.events.map((e) => e.prop.id));
    const prop = this.world.propositions.find(
      (p) => !listed.has(p.id) && p.status === 'active' && p.shape.kind === 'binary',
    );
    if (!prop) return null;
    this.addEvent(prop);
    return this.markets[this.markets.length - 1] ?? null;
  }

  private addEvent(prop: Proposition): void {
    const negRisk = prop.shape.kind === 'multi';
    const opened = new Date(Math.min(prop.openTime.getTime(), this.world.now.getTime() - 30 * 86_400_000));
    const event = new PmEvent(
      this.events.length,
      prop,
      unique(this.eventSlugs, eventSlug(prop), this.counters),
      negRisk,
      opened,
    );
    this.events.push(event);
    this.eventSlugs.set(event.slug, event);
    if (prop.shape.kind === 'binary') {
      const winner = prop.status === 'resolved' ? prop.winner === 'Yes' : null;
      this.addMarket(event, null, 0, event.slug, prop.shape.fairYes, winner, prop.baseVolumeUsd);
    } else {
      prop.shape.options.forEach((option, i) => {
        const winner = prop.status === 'resolved' ? prop.winner === option.name : null;
        const volume = prop.baseVolumeUsd * option.fair;
        this.addMarket(event, option.name, i, optionSlug(prop, option.name), option.fair, winner, volume);
      });
    }
  }

  private addMarket(
    event: PmEvent,
    option: string | null,
    optionIndex: number,
    stem: string,
    fair: number,
    yesWon: boolean | null,
    volume: number,
  ): void {
    const h = hash32(`${this.seed}|${event.prop.id}|${option ?? ''}`);
    const fee = (h >>> 4) % 10 < 2;
    // A binary event's only market shares the event's slug, as on polymarket.com.
    const slug = unique(this.marketSlugs, stem, this.counters);
    const market = new PmMarket(this.markets.length, event, option, optionIndex, slug, {
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
    });
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
    const listed = this.chainConditions.get(conditionId.toLowerCase());
    if (listed) return listed;
    const index = decodeConditionIndex(this.seed, conditionId);
    const market = index === null ? undefined : this.markets[index];
    // A market listed on chain no longer answers to its generated id.
    return market && this.conditionId(market) === conditionId.toLowerCase() ? market : undefined;
  }

  byToken(tokenId: string): { market: PmMarket; outcome: 0 | 1 } | undefined {
    const listed = this.chainTokens.get(tokenId);
    if (listed) return listed;
    const decoded = decodeTokenId(this.seed, tokenId);
    const market = decoded ? this.markets[decoded.index] : undefined;
    if (!market || !decoded || this.tokenId(market, decoded.outcome) !== tokenId) return undefined;
    return { market, outcome: decoded.outcome };
  }

  /**
   * Gives a market the ids its condition has on the sandbox chain (condition id from the oracle and question id,
   * token ids = the CTF position ids of YES and NO), as Polymarket's ids are. Only before the market is served.
   */
  listOnChain(m: PmMarket, conditionId: string, positionIds: [string, string]): void {
    m.cid = conditionId.toLowerCase();
    m.tokens = positionIds;
    this.chainConditions.set(m.cid, m);
    this.chainTokens.set(positionIds[0], { market: m, outcome: 0 });
    this.chainTokens.set(positionIds[1], { market: m, outcome: 1 });
  }

  /**
   * Moves the market to Protocol V2: its outcomes become structured position ids, laid out as the protocol's
   * Ids.sol does (module byte 0x01 = binary | 128-bit base hash | arity 0 | 64 reserved bits, all zero | resolution
   * chain | condition index 0 | outcome byte), the layout by which clients tell V2 position ids from CTF token ids
   * (Polymarket clob-client-v2 `src/protocol.ts` isV2PositionId: bits 40..103 clear). Only before it is traded.
   */
  listOnProtocolV2(m: PmMarket): [string, string] {
    const base = BigInt(`0x${bytes32For(`${this.seed}|v2|${m.index}`).slice(2, 34)}`);
    const RESOLUTION_CHAIN = 137n;
    const condition = (1n << 248n) | (base << 120n) | (RESOLUTION_CHAIN << 24n);
    const ids: [string, string] = [condition.toString(10), (condition | 1n).toString(10)];
    m.protocolV2 = true;
    m.tokens = ids;
    this.chainTokens.set(ids[0], { market: m, outcome: 0 });
    this.chainTokens.set(ids[1], { market: m, outcome: 1 });
    return ids;
  }

  /** Whether the market was listed on the sandbox chain (its ids are the chain's; its trades settle there). */
  isOnChain(m: PmMarket): boolean {
    return m.cid !== undefined && this.chainConditions.get(m.cid) === m;
  }

  /** The oracle reported the market's payouts: it stops trading and shows its winner. */
  markResolved(m: PmMarket, yesWon: boolean): void {
    m.status = 'resolved';
    m.yesWon = yesWon;
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

  /**
   * Neg-risk market ids end in a zero byte; each option's question id puts its option index in that byte (the
   * NegRiskAdapter's NegRiskIdLib). An event listed on chain answers to the adapter's id.
   */
  negRiskMarketId(e: PmEvent): string {
    if (!e.negRisk) return '';
    return e.chainMarketId ?? `${bytes32For(`${this.seed}|negrisk|${e.prop.id}`).slice(0, 64)}00`;
  }

  /** Gives a neg-risk event the market id the NegRiskAdapter gave it. Only before the event is served. */
  listNegRiskEventOnChain(e: PmEvent, marketId: string): void {
    e.chainMarketId = marketId.toLowerCase();
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
    return Object.fromEntries(
      this.markets.map((m) => [
        m.option === null ? propositionKey(m.prop) : propositionKey(m.prop, m.option),
        [this.conditionId(m)],
      ]),
    );
  }
}

/** The stem, or the stem with the next free `-n` suffix (as Polymarket disambiguates repeated slugs). */
function unique<T>(taken: Map<string, T>, stem: string, counters: Map<string, number>): string {
  if (!taken.has(stem)) return stem;
  for (let n = counters.get(stem) ?? 2; ; n++) {
    const slug = `${stem}-${n}`;
    if (!taken.has(slug)) {
      counters.set(stem, n + 1);
      return slug;
    }
  }
}

/** The resolver address Polymarket markets name (UMA adapter), shown in Gamma's `resolvedBy`. */
export const RESOLVED_BY = '0x65070BE91477460D8A7AeEb94ef92fe056C2f2A7';
export const HOUSE_ADDRESS = addressFor('polymarket-sim|house');
