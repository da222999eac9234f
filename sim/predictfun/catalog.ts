// The world's propositions phrased the way Predict.fun lists them: a category (its event: slug, title, status
// OPEN|RESOLVED) holding one binary Yes/No market, or, for a multi-option proposition, a neg-risk category with one
// Yes/No market per option. Compact records and Map indexes only; payloads are built per request (payloads.ts).
import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import { setOwn } from '../shared/own-key.js';
import { createRng, pick } from '../shared/prng.js';
import { type Proposition, propositionKey, type World } from '../shared/world.js';

export interface PfCategory {
  /** Position in id order. */
  index: number;
  id: number;
  slug: string;
  prop: Proposition;
  negRisk: boolean;
  yieldBearing: boolean;
  decimalPrecision: 2 | 3;
  /** Markets are numbered contiguously: firstMarketId .. firstMarketId + marketCount - 1. */
  firstMarketId: number;
  marketCount: number;
  /** A volume scale for sorts and /stats. */
  volumeUsd: number;
}

export interface PfMarketRef {
  category: PfCategory;
  id: number;
  /** The option of a multi-option proposition this market asks about; null for a binary proposition. */
  option: { name: string; fair: number; index: number } | null;
  /** Probability of Yes the book centres on. */
  fairYes: number;
}

const CATEGORY_BASE_ID = 400_000;
const MARKET_BASE_ID = 1_700_000;

export class PfCatalog {
  readonly categories: PfCategory[] = [];
  readonly bySlug = new Map<string, PfCategory>();
  readonly manifest: Record<string, string[]> = {};
  private readonly firstIds: number[] = [];
  private readonly sorted = new Map<string, PfCategory[]>();
  private readonly prefixes = new Map<PfCategory[], Int32Array>();
  private tradingRefs: PfMarketRef[] | null = null;

  constructor(readonly world: World) {
    let nextMarket = MARKET_BASE_ID;
    for (const prop of world.listedOn('predictfun')) {
      const index = this.categories.length;
      const rng = createRng(world.seed * 31 + index * 7_919);
      const multi = prop.shape.kind === 'multi';
      const marketCount = prop.shape.kind === 'multi' ? prop.shape.options.length : 1;
      const category: PfCategory = {
        index,
        id: CATEGORY_BASE_ID + index,
        slug: this.uniqueSlug(baseSlug(prop)),
        prop,
        negRisk: multi,
        yieldBearing: rng() < 0.4,
        decimalPrecision: rng() < 0.75 ? 2 : 3,
        firstMarketId: nextMarket,
        marketCount,
        volumeUsd: Math.round(prop.baseVolumeUsd * (0.5 + rng())),
      };
      nextMarket += marketCount;
      this.categories.push(category);
      this.firstIds.push(category.firstMarketId);
      this.bySlug.set(category.slug, category);
      if (prop.shape.kind === 'multi') {
        prop.shape.options.forEach((o, i) => {
          setOwn(this.manifest, propositionKey(prop, o.name), [String(category.firstMarketId + i)]);
        });
      } else {
        setOwn(this.manifest, propositionKey(prop), [String(category.firstMarketId)]);
      }
    }
  }

  /** Resolves a market id in O(log n) without a per-market object. */
  market(id: number): PfMarketRef | null {
    if (!Number.isSafeInteger(id)) return null;
    let lo = 0;
    let hi = this.firstIds.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const category = this.categories[mid] as PfCategory;
      if (id < category.firstMarketId) hi = mid - 1;
      else if (id >= category.firstMarketId + category.marketCount) lo = mid + 1;
      else return marketRef(category, id - category.firstMarketId);
    }
    return null;
  }

  marketsOf(category: PfCategory): PfMarketRef[] {
    return Array.from({ length: category.marketCount }, (_, i) => marketRef(category, i));
  }

  /** Categories in a stable order per (status filter, sort), computed once per combination. */
  list(status: 'OPEN' | 'RESOLVED' | null, sort: CategorySort | null): PfCategory[] {
    const key = `${status ?? '*'}|${sort ?? 'DEFAULT'}`;
    let found = this.sorted.get(key);
    if (!found) {
      found = this.categories.filter((c) => status === null || categoryStatus(c) === status);
      if (sort) found = [...found].sort(SORTS[sort]);
      this.sorted.set(key, found);
    }
    return found;
  }

  /**
   * The markets of a category list from the `offset`-th market on, at most `count` of them, and the list's market
   * total: a binary search over cumulative counts, so paging /v1/markets never scans the catalogue.
   */
  marketSlice(list: PfCategory[], offset: number, count: number): { refs: PfMarketRef[]; total: number } {
    let prefix = this.prefixes.get(list);
    if (!prefix) {
      prefix = new Int32Array(list.length + 1);
      list.forEach((c, i) => {
        (prefix as Int32Array)[i + 1] = ((prefix as Int32Array)[i] as number) + c.marketCount;
      });
      this.prefixes.set(list, prefix);
    }
    const total = prefix[list.length] as number;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((prefix[mid + 1] as number) <= offset) lo = mid + 1;
      else hi = mid;
    }
    const refs: PfMarketRef[] = [];
    for (let i = lo; i < list.length && refs.length < count; i++) {
      const c = list[i] as PfCategory;
      const start = i === lo ? offset - (prefix[i] as number) : 0;
      for (let j = Math.max(0, start); j < c.marketCount && refs.length < count; j++)
        refs.push(marketRef(c, j));
    }
    return { refs, total };
  }

  /** Every market that trades, in id order (the tape's rows), built once. */
  trading(): PfMarketRef[] {
    this.tradingRefs ??= this.categories
      .filter((c) => c.prop.status === 'active')
      .flatMap((c) => this.marketsOf(c));
    return this.tradingRefs;
  }

  private uniqueSlug(base: string): string {
    let slug = base;
    for (let n = 2; this.bySlug.has(slug); n++) slug = `${base}-${n}`;
    return slug;
  }
}

function marketRef(category: PfCategory, i: number): PfMarketRef {
  const { shape } = category.prop;
  if (shape.kind === 'multi') {
    const o = shape.options[i] as { name: string; fair: number };
    return { category, id: category.firstMarketId + i, option: { ...o, index: i }, fairYes: o.fair };
  }
  return { category, id: category.firstMarketId, option: null, fairYes: shape.fairYes };
}

export const CATEGORY_SORTS = [
  'VOLUME_24H_DESC',
  'VOLUME_ALL_DESC',
  'PUBLISHED_AT_ASC',
  'PUBLISHED_AT_DESC',
] as const;
export type CategorySort = (typeof CATEGORY_SORTS)[number];

const SORTS: Record<CategorySort, (a: PfCategory, b: PfCategory) => number> = {
  VOLUME_24H_DESC: (a, b) => b.volumeUsd - a.volumeUsd || a.id - b.id,
  VOLUME_ALL_DESC: (a, b) => b.volumeUsd - a.volumeUsd || a.id - b.id,
  PUBLISHED_AT_ASC: (a, b) => a.prop.openTime.getTime() - b.prop.openTime.getTime() || a.id - b.id,
  PUBLISHED_AT_DESC: (a, b) => b.prop.openTime.getTime() - a.prop.openTime.getTime() || a.id - b.id,
};

/** A category is OPEN until it resolves (trading may have stopped before that); RESOLVED after. */
export function categoryStatus(c: PfCategory): 'OPEN' | 'RESOLVED' {
  return c.prop.status === 'resolved' ? 'RESOLVED' : 'OPEN';
}

/** Market registration status and trading status as the API shows them. */
export function marketStatuses(c: PfCategory): { status: string; tradingStatus: string } {
  switch (c.prop.status) {
    case 'active':
      return { status: 'REGISTERED', tradingStatus: 'OPEN' };
    case 'closed':
      return { status: 'REGISTERED', tradingStatus: 'CLOSED' };
    default:
      return { status: 'RESOLVED', tradingStatus: 'CLOSED' };
  }
}

/** Deterministic 0x-prefixed 32-byte hex and uint256 decimal ids (conditionId, onChainId, hashes). */
export function hex32(...parts: Array<string | number>): string {
  return `0x${createHash('sha256').update(parts.join(':')).digest('hex')}`;
}

export function uint256(...parts: Array<string | number>): string {
  return BigInt(hex32(...parts)).toString(10);
}

export function marketTokens(world: World, marketId: number): { yes: string; no: string } {
  return {
    yes: uint256('pf-token', world.seed, marketId, 1),
    no: uint256('pf-token', world.seed, marketId, 2),
  };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September'];
const MONTHS2 = ['October', 'November', 'December'];

export function longDate(d: Date): string {
  const month = [...MONTHS, ...MONTHS2][d.getUTCMonth()] as string;
  return `${month} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

function kebab(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function baseSlug(p: Proposition): string {
  const day = p.closeTime.toISOString().slice(0, 10);
  switch (p.topic) {
    case 'crypto':
      return kebab(`${p.subject} above ${p.threshold} on ${day}`);
    case 'economics':
      return kebab(`fed ${p.condition} ${day}`);
    case 'politics':
      return kebab(`${p.subject} election winner ${day}`);
    case 'sports':
      return kebab(`${p.subject} ${day}`);
    default:
      return kebab(`${p.subject.replace('the high temperature in ', '')} high above ${p.threshold}f ${day}`);
  }
}

/** Category title, and per market its title and question, in Predict.fun's phrasing. */
export function phrase(ref: PfMarketRef): { categoryTitle: string; title: string; question: string } {
  const p = ref.category.prop;
  const date = longDate(p.closeTime);
  const money = (n: number | null) => `$${(n ?? 0).toLocaleString('en-US')}`;
  switch (p.topic) {
    case 'crypto': {
      const t = `${p.subject} above ${money(p.threshold)} on ${date}?`;
      return {
        categoryTitle: t,
        title: t,
        question: `Will ${p.subject} be above ${money(p.threshold)} on ${date}?`,
      };
    }
    case 'economics': {
      const t = `Fed rate ${p.condition} before ${date}?`;
      return {
        categoryTitle: t,
        title: t,
        question: `Will the Fed funds target rate be ${p.condition} at the meeting before ${date}?`,
      };
    }
    case 'politics': {
      const name = ref.option?.name ?? '';
      return {
        categoryTitle: `${p.subject} election winner`,
        title: name,
        question: `Will ${name} win the election for ${p.subject} by ${date}?`,
      };
    }
    case 'sports': {
      const [home, away] = p.subject.split(' vs ');
      const t = `${home} vs. ${away}: will the ${home} win?`;
      return { categoryTitle: t, title: t, question: `Will the ${home} beat the ${away} on ${date}?` };
    }
    default: {
      const city = p.subject.replace('the high temperature in ', '');
      const t = `Highest temperature in ${city} above ${p.threshold}°F on ${date}?`;
      return {
        categoryTitle: t,
        title: t,
        question: `Will the highest temperature in ${city} be above ${p.threshold}°F on ${date}?`,
      };
    }
  }
}

const TAGS: Record<Proposition['topic'], { id: string; name: string }> = {
  crypto: { id: '2', name: 'Crypto' },
  economics: { id: '4', name: 'Economy' },
  politics: { id: '3', name: 'Politics' },
  sports: { id: '5', name: 'Sports' },
  weather: { id: '9', name: 'Weather' },
};

export function tagOf(p: Proposition): {
  id: string;
  level: number;
  makerRebateBps: number;
  name: string;
  parentId: null;
} {
  const tag = TAGS[p.topic];
  return { id: tag.id, level: 1, makerRebateBps: 0, name: tag.name, parentId: null };
}

/** The synthetic wallets the trade tape is made of (never a paper account). */
export function traderPool(world: World): string[] {
  const rng = createRng(world.seed ^ 0x5eed);
  const hex = '0123456789abcdef';
  return Array.from({ length: 24 }, () =>
    getAddress(`0x${Array.from({ length: 40 }, () => pick(rng, [...hex])).join('')}`),
  );
}
