// The Opinion catalogue from the shared world: a binary proposition is a binary market (marketType 0), a
// multi-option one a categorical market (marketType 1) with a binary child per option, on one id sequence.
// Records sit in Maps, JSON is rendered on demand, each distinct list query's order is computed once.
import { setOwn } from '../shared/own-key.js';
import type { Proposition, PropositionStatus, World } from '../shared/world.js';
import {
  hex32,
  OPINION_LABELS,
  opinionRules,
  opinionTitle,
  slugify,
  tokenIdFor,
  tokenOwner,
} from './phrasing.js';

export const BSC_USDT = '0x55d398326f99059fF775485246999027B3197955';
export const CHAIN_ID = '56';
const FIRST_MARKET_ID = 100;

/** Opinion's topic status codes: 1 Created, 2 Activated, 3 Resolving, 4 Resolved, 5 Failed, 6 Deleted. */
export type TopicStatus = 1 | 2 | 3 | 4 | 5 | 6;
export const STATUS_ENUM: Readonly<Record<TopicStatus, string>> = {
  1: 'Created',
  2: 'Activated',
  3: 'Resolving',
  4: 'Resolved',
  5: 'Failed',
  6: 'Deleted',
};

function topicStatus(status: PropositionStatus): TopicStatus {
  // A closed proposition has passed its cutoff and waits for resolution: Opinion shows that as Resolving.
  return status === 'active' ? 2 : status === 'closed' ? 3 : 4;
}

/** A tradable binary market: a standalone binary topic, or one child of a categorical topic. */
export interface TradableMarket {
  marketId: number;
  parent: CategoricalMarket | null;
  prop: Proposition;
  option: string | null;
  title: string;
  slug: string;
  fairYes: number;
  yesTokenId: string;
  noTokenId: string;
  status: TopicStatus;
  /** The winning token once resolved, else "". */
  resultTokenId: string;
  volume: number;
}

export interface CategoricalMarket {
  marketId: number;
  prop: Proposition;
  title: string;
  slug: string;
  status: TopicStatus;
  children: TradableMarket[];
  volume: number;
}

export type TopLevel =
  | { kind: 'binary'; market: TradableMarket }
  | { kind: 'categorical'; market: CategoricalMarket };

export interface TokenRef {
  market: TradableMarket;
  side: 'yes' | 'no';
}

export interface ListQuery {
  /** `activated`, `resolved`, or empty for every status. */
  status: string;
  /** Which rows the `marketType` query selected (its number's meaning is the server's reading, see server.ts). */
  kind: 'binary' | 'categorical' | 'all';
  sortBy: number;
  labelId: number;
}

export class OpinionCatalogue {
  readonly rows: TopLevel[] = [];
  readonly tradable = new Map<number, TradableMarket>();
  readonly categorical = new Map<number, CategoricalMarket>();
  readonly bySlug = new Map<string, TopLevel | { kind: 'child'; market: TradableMarket }>();
  /** propositionKey → native market ids, served at /__sim/manifest. */
  readonly manifest: Record<string, string[]> = {};
  private readonly orders = new Map<string, Int32Array>();

  constructor(
    readonly world: World,
    readonly seed: number,
  ) {
    let nextId = FIRST_MARKET_ID;
    for (const prop of world.listedOn('opinion')) {
      const status = topicStatus(prop.status);
      const title = opinionTitle(prop);
      const slug = slugify(title);
      const volume = Math.round(prop.baseVolumeUsd * 0.4 * 100) / 100;
      if (prop.shape.kind === 'binary') {
        const market = this.tradableMarket(
          nextId++,
          prop,
          null,
          null,
          title,
          slug,
          prop.shape.fairYes,
          volume,
        );
        market.status = status;
        market.resultTokenId =
          status === 4 ? (prop.winner === 'Yes' ? market.yesTokenId : market.noTokenId) : '';
        this.addRow({ kind: 'binary', market });
        setOwn(this.manifest, prop.id, [String(market.marketId)]);
        continue;
      }
      const parent: CategoricalMarket = {
        marketId: nextId++,
        prop,
        title,
        slug,
        status,
        children: [],
        volume,
      };
      const share = volume / prop.shape.options.length;
      for (const option of prop.shape.options) {
        const child = this.tradableMarket(
          nextId++,
          prop,
          parent,
          option.name,
          option.name,
          `${slug}-${slugify(option.name)}`,
          option.fair,
          Math.round(share),
        );
        child.status = status;
        // As recorded: a resolved child's resultTokenId is its YES token if its option won, else its NO one.
        child.resultTokenId =
          status === 4 ? (prop.winner === option.name ? child.yesTokenId : child.noTokenId) : '';
        parent.children.push(child);
        this.bySlug.set(child.slug, { kind: 'child', market: child });
        setOwn(this.manifest, `${prop.id}/${option.name}`, [String(child.marketId)]);
      }
      this.categorical.set(parent.marketId, parent);
      this.addRow({ kind: 'categorical', market: parent });
    }
  }

  private tradableMarket(
    marketId: number,
    prop: Proposition,
    parent: CategoricalMarket | null,
    option: string | null,
    title: string,
    slug: string,
    fairYes: number,
    volume: number,
  ): TradableMarket {
    const market: TradableMarket = {
      marketId,
      parent,
      prop,
      option,
      title,
      slug,
      fairYes,
      yesTokenId: tokenIdFor(this.seed, marketId, 'yes'),
      noTokenId: tokenIdFor(this.seed, marketId, 'no'),
      status: 2,
      resultTokenId: '',
      volume,
    };
    this.tradable.set(marketId, market);
    return market;
  }

  /** The market and side a token id belongs to. */
  token(tokenId: string): TokenRef | undefined {
    const owner = tokenOwner(this.seed, tokenId);
    const market = owner ? this.tradable.get(owner.marketId) : undefined;
    return market && owner ? { market, side: owner.side } : undefined;
  }

  private addRow(row: TopLevel): void {
    this.rows.push(row);
    this.bySlug.set(row.market.slug, row);
  }

  /** Row indexes matching the query, in the requested order; cached per distinct query. */
  list(query: ListQuery): Int32Array {
    const key = `${query.status}|${query.kind}|${query.sortBy}|${query.labelId}`;
    const cached = this.orders.get(key);
    if (cached) return cached;
    const wanted: number[] = [];
    this.rows.forEach((row, i) => {
      if (query.kind !== 'all' && row.kind !== query.kind) return;
      if (query.status === 'activated' && row.market.status !== 2) return;
      if (query.status === 'resolved' && row.market.status !== 4) return;
      if (query.labelId > 0 && OPINION_LABELS[row.market.prop.topic].labelId !== query.labelId) return;
      wanted.push(i);
    });
    const rows = this.rows;
    const num = (i: number, f: (r: TopLevel) => number) => f(rows[i] as TopLevel);
    const created = (r: TopLevel) => listedAt(r.market, this.world.now);
    const cutoff = (r: TopLevel) => r.market.prop.closeTime.getTime();
    const volume = (r: TopLevel) => r.market.volume;
    const comparators: Record<number, (a: number, b: number) => number> = {
      1: (a, b) => num(b, created) - num(a, created) || b - a,
      2: (a, b) => num(a, cutoff) - num(b, cutoff) || a - b,
      3: (a, b) => num(b, volume) - num(a, volume) || a - b,
      4: (a, b) => num(a, volume) - num(b, volume) || a - b,
    };
    // 24h and 7d volumes are fixed fractions of the total here, so they order like it.
    comparators[5] = comparators[3] as (a: number, b: number) => number;
    comparators[6] = comparators[4] as (a: number, b: number) => number;
    comparators[7] = comparators[3] as (a: number, b: number) => number;
    comparators[8] = comparators[4] as (a: number, b: number) => number;
    const compare = comparators[query.sortBy];
    if (compare) wanted.sort(compare);
    const order = Int32Array.from(wanted);
    this.orders.set(key, order);
    return order;
  }
}

// ---- rendering, in the recorded field names (keys in the recorded, alphabetical, order) ----

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * When the market was listed. The world may open a live proposition after its own `now`; a listed market
 * cannot have been created in the future, so it is dated at most 30 days before the world's instant.
 */
export function listedAt(m: { prop: Proposition }, worldNow: Date): number {
  return Math.min(seconds(m.prop.openTime), seconds(worldNow) - 30 * 86_400);
}

function resolvedAt(p: Proposition, status: TopicStatus): number {
  return status === 4 ? seconds(p.closeTime) + 3_600 : 0;
}

function label(p: Proposition) {
  return OPINION_LABELS[p.topic];
}

/** A child market as it appears in `childMarkets` (no marketType, labels or 24h volumes; cutoffAt 0, rules ""). */
export function renderChild(seed: number, worldNow: Date, m: TradableMarket): Record<string, unknown> {
  return {
    chainId: CHAIN_ID,
    conditionId: hex32('condition', seed, m.marketId),
    createdAt: listedAt(m, worldNow),
    cutoffAt: 0,
    isResolvableByAI: true,
    marketId: m.marketId,
    marketTitle: m.title,
    noLabel: 'No',
    noTokenId: m.noTokenId,
    questionId: hex32('question', seed, m.marketId),
    quoteToken: BSC_USDT,
    rebate: { maker: 0.5 },
    resolvedAt: resolvedAt(m.prop, m.status),
    resultTokenId: m.resultTokenId,
    rules: '',
    slug: m.slug,
    status: m.status,
    statusEnum: STATUS_ENUM[m.status],
    volume: String(m.volume),
    yesLabel: 'Yes',
    yesTokenId: m.yesTokenId,
  };
}

/** A binary market (list row or GET /market/{id}); a child looked up by its own id is rendered this way too. */
export function renderBinary(seed: number, worldNow: Date, m: TradableMarket): Record<string, unknown> {
  const topic = m.parent?.prop ?? m.prop;
  const { labelId, labelName } = label(topic);
  return {
    chainId: CHAIN_ID,
    conditionId: hex32('condition', seed, m.marketId),
    coverUrl: '',
    createdAt: listedAt(m, worldNow),
    cutoffAt: m.parent ? 0 : seconds(m.prop.closeTime),
    isResolvableByAI: true,
    labelIds: [labelId],
    labels: [labelName],
    marketId: m.marketId,
    marketTitle: m.title,
    marketType: 0,
    noLabel: 'No',
    noTokenId: m.noTokenId,
    questionId: hex32('question', seed, m.marketId),
    quoteToken: BSC_USDT,
    rebate: { maker: 0.5 },
    resolvedAt: resolvedAt(m.prop, m.status),
    resultTokenId: m.resultTokenId,
    rules: m.parent ? '' : opinionRules(m.prop),
    slug: m.slug,
    status: m.status,
    statusEnum: STATUS_ENUM[m.status],
    thumbnailUrl: `https://images.opinion.trade/sim/${m.prop.id}.png`,
    volume: m.volume.toFixed(2),
    volume24h: (m.volume * 0.02).toFixed(2),
    volume7d: (m.volume * 0.1).toFixed(2),
    yesLabel: 'Yes',
    yesTokenId: m.yesTokenId,
  };
}

/** A categorical market with its childMarkets, as recorded from GET /market/categorical/{marketId}. */
export function renderCategorical(
  seed: number,
  worldNow: Date,
  c: CategoricalMarket,
): Record<string, unknown> {
  const { labelId, labelName } = label(c.prop);
  return {
    chainId: CHAIN_ID,
    childMarkets: c.children.map((child) => renderChild(seed, worldNow, child)),
    conditionId: '',
    coverUrl: '',
    createdAt: listedAt(c, worldNow),
    cutoffAt: seconds(c.prop.closeTime),
    isResolvableByAI: false,
    labelIds: [labelId],
    labels: [labelName],
    marketId: c.marketId,
    marketTitle: c.title,
    marketType: 1,
    noLabel: '',
    noTokenId: '',
    questionId: hex32('question', seed, c.marketId),
    quoteToken: BSC_USDT,
    rebate: { maker: 0.5 },
    resolvedAt: 0,
    resultTokenId: '',
    rules: opinionRules(c.prop),
    slug: c.slug,
    status: c.status,
    statusEnum: STATUS_ENUM[c.status],
    thumbnailUrl: `https://images.opinion.trade/sim/${c.prop.id}.png`,
    volume: c.volume.toFixed(2),
    volume24h: (c.volume * 0.02).toFixed(2),
    volume7d: (c.volume * 0.1).toFixed(2),
    yesLabel: '',
    yesTokenId: '',
  };
}

export function renderRow(seed: number, worldNow: Date, row: TopLevel): Record<string, unknown> {
  return row.kind === 'binary'
    ? renderBinary(seed, worldNow, row.market)
    : renderCategorical(seed, worldNow, row.market);
}
