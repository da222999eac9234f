// The Limitless catalogue built from the shared world: a binary proposition becomes one CLOB market, a
// multi-option one a negRisk group whose options are child CLOB markets (as Limitless lists elections). Only the
// small per-market records live in memory; JSON payloads are built per request (see payloads.ts), so start-up
// stays cheap at 100k+ propositions. Slugs index everything in Maps.
import { createHash } from 'node:crypto';
import { setOwn } from '../shared/own-key.js';
import { type Proposition, propositionKey, type World } from '../shared/world.js';

export interface SimMarket {
  kind: 'market';
  id: number;
  slug: string;
  title: string;
  prop: Proposition;
  /** The option a group child stands for; null for a stand-alone market. */
  option: string | null;
  group: SimGroup | null;
  /** Probability of YES the books centre on. */
  fairYes: number;
  /** Seed of this market's books, history and tape. */
  seed: number;
  createdMs: number;
}

export interface SimGroup {
  kind: 'group';
  id: number;
  slug: string;
  title: string;
  prop: Proposition;
  children: SimMarket[];
  seed: number;
  createdMs: number;
}

/** One row of /markets/active: a stand-alone market or a whole group. */
export type SimRow = SimMarket | SimGroup;

export interface SimCatalog {
  rows: SimRow[];
  /** Every market and group by slug. */
  bySlug: Map<string, SimRow>;
  manifest: Record<string, string[]>;
}

export function hashHex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** uint256 position id of one outcome token, as a decimal string (Limitless `tokens.yes` / `tokens.no`). */
export function tokenIdOf(m: SimMarket, side: 'yes' | 'no'): string {
  return BigInt(`0x${hashHex(`limitless:token:${m.slug}:${side}`)}`).toString(10);
}

export function buildCatalog(world: World): SimCatalog {
  const rows: SimRow[] = [];
  const bySlug = new Map<string, SimRow>();
  const manifest: Record<string, string[]> = {};
  let counter = 0;
  // Real slugs end in the creation time in ms; the counter keeps two markets with one title apart. A world
  // proposition may open after the world's `now`; a listed market was created before it, with some history.
  const latestCreation = world.now.getTime() - 14 * 86_400_000;
  const nextCreated = (p: Proposition) => Math.min(p.openTime.getTime(), latestCreation) + counter * 7;
  const claim = (base: string, created: number): string => {
    let slug = `${base}-${created}`;
    for (let bump = 1; bySlug.has(slug); bump++) slug = `${base}-${created + bump}`;
    return slug;
  };

  for (const prop of world.listedOn('limitless')) {
    if (prop.shape.kind === 'binary') {
      const createdMs = nextCreated(prop);
      const title = marketTitle(prop);
      const market: SimMarket = {
        kind: 'market',
        id: 100_000 + counter,
        slug: claim(slugBase(title), createdMs),
        title,
        prop,
        option: null,
        group: null,
        fairYes: prop.shape.fairYes,
        seed: world.seed * 31 + counter,
        createdMs,
      };
      counter++;
      rows.push(market);
      bySlug.set(market.slug, market);
      setOwn(manifest, propositionKey(prop), [market.slug]);
      continue;
    }
    const groupCreated = nextCreated(prop);
    const groupTitle = groupTitleOf(prop);
    const group: SimGroup = {
      kind: 'group',
      id: 100_000 + counter,
      slug: claim(slugBase(groupTitle), groupCreated),
      title: groupTitle,
      prop,
      children: [],
      seed: world.seed * 31 + counter,
      createdMs: groupCreated,
    };
    counter++;
    bySlug.set(group.slug, group);
    for (const option of prop.shape.options) {
      const createdMs = nextCreated(prop);
      const child: SimMarket = {
        kind: 'market',
        id: 100_000 + counter,
        slug: claim(slugBase(option.name), createdMs),
        title: option.name,
        prop,
        option: option.name,
        group,
        fairYes: Math.min(0.97, Math.max(0.03, Math.round(option.fair * 1000) / 1000)),
        seed: world.seed * 31 + counter,
        createdMs,
      };
      counter++;
      group.children.push(child);
      bySlug.set(child.slug, child);
      setOwn(manifest, propositionKey(prop, option.name), [child.slug]);
    }
    rows.push(group);
  }
  return { rows, bySlug, manifest };
}

/** Lower-case, dash-joined words (emoji and symbols dropped), as Limitless slugs are. */
export function slugBase(title: string): string {
  const base = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return base.length > 0 ? base : 'market';
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Nov 30, 2026`, the form of Limitless's `expirationDate`. */
export function expirationDate(d: Date): string {
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

function shortDate(d: Date): string {
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

/** Limitless titles are short questions: `$BTC above $100,000 on Nov 30?`, `USA and Australia both to score?`. */
export function marketTitle(p: Proposition): string {
  const day = shortDate(p.closeTime);
  switch (p.topic) {
    case 'crypto': {
      const symbol = /\(([A-Z]+)\)/.exec(p.statement)?.[1] ?? p.subject;
      return `$${symbol} above $${withCommas(p.threshold ?? 0)} on ${day}?`;
    }
    case 'economics':
      return p.threshold === 0
        ? `Fed holds rates at the meeting before ${day}?`
        : `Fed cuts rates by ${p.threshold} bps before ${day}?`;
    case 'sports': {
      const [home, away] = p.subject.split(' vs ');
      return `${home} to beat the ${away} on ${day}?`;
    }
    case 'weather': {
      const city = p.subject.replace('the high temperature in ', '');
      return `${city} high above ${p.threshold}°F on ${day}?`;
    }
    default:
      return `${p.subject} ${p.condition}?`;
  }
}

/** 100000 → `100,000` (toLocaleString is far slower, and the catalogue builds 100k+ titles). */
function withCommas(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function groupTitleOf(p: Proposition): string {
  return `Who will win the ${p.subject} election?`;
}

export function categoryOf(p: Proposition): string {
  const names = { crypto: 'Crypto', economics: 'Economy', politics: 'Politics', sports: 'Sports' } as const;
  return p.topic === 'weather' ? 'Weather' : names[p.topic];
}
