// The list endpoints' views of the catalogue, computed once and cached so a page request never scans the whole
// catalogue: /markets/active per (sortBy, tradeType, automationType) filter, and a word index for /markets/search
// (Limitless ranks by semantic similarity; here a query word overlap ratio stands in for it).
import type { SimCatalog, SimRow } from './catalog.js';
import { marketState } from './tape.js';

export const SORT_BY = ['lp_rewards', 'ending_soon', 'newest', 'high_value', 'liquidity'] as const;
export const TRADE_TYPES = ['amm', 'clob', 'group'] as const;
export const AUTOMATION_TYPES = ['manual', 'lumy', 'sports'] as const;

export interface ActiveFilter {
  sortBy: string | null;
  tradeType: string | null;
  automationType: string | null;
}

export class SimListing {
  private active: SimRow[] | null = null;
  private readonly views = new Map<string, SimRow[]>();
  private words: Map<string, number[]> | null = null;

  constructor(private readonly catalog: SimCatalog) {}

  /** Statuses depend on the simulator clock; forget the cached views when it moves. */
  invalidate(): void {
    this.active = null;
    this.views.clear();
  }

  activeRows(filter: ActiveFilter, worldNowMs: number): SimRow[] {
    const key = `${filter.sortBy}|${filter.tradeType}|${filter.automationType}`;
    const cached = this.views.get(key);
    if (cached) return cached;
    this.active ??= this.catalog.rows.filter((r) => marketState(r, worldNowMs) === 'active');
    let rows = this.active.filter((r) => {
      if (filter.tradeType === 'amm') return false;
      if (filter.tradeType === 'clob' && r.kind !== 'market') return false;
      if (filter.tradeType === 'group' && r.kind !== 'group') return false;
      if (filter.automationType !== null && automationOf(r) !== filter.automationType) return false;
      return true;
    });
    rows = sortRows(rows, filter.sortBy);
    this.views.set(key, rows);
    return rows;
  }

  /** Rows whose title shares at least `threshold` of the query's words, best first. */
  search(query: string, threshold: number): SimRow[] {
    const index = this.wordIndex();
    const words = [...new Set(tokenize(query))];
    if (words.length === 0) return [];
    const hits = new Map<number, number>();
    for (const w of words) for (const i of index.get(w) ?? []) hits.set(i, (hits.get(i) ?? 0) + 1);
    return [...hits.entries()]
      .map(([i, n]) => ({ i, score: n / words.length }))
      .filter((h) => h.score >= threshold)
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .map((h) => this.catalog.rows[h.i] as SimRow);
  }

  private wordIndex(): Map<string, number[]> {
    if (this.words) return this.words;
    const index = new Map<string, number[]>();
    this.catalog.rows.forEach((row, i) => {
      const text =
        row.kind === 'group' ? [row.title, ...row.children.map((c) => c.title)].join(' ') : row.title;
      for (const w of new Set(tokenize(`${text} ${row.prop.subject}`))) {
        const list = index.get(w);
        if (list) list.push(i);
        else index.set(w, [i]);
      }
    });
    this.words = index;
    return index;
  }
}

export function automationOf(r: SimRow): string {
  return r.prop.topic === 'sports' ? 'sports' : 'manual';
}

function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 2);
}

function sortRows(rows: SimRow[], sortBy: string | null): SimRow[] {
  const by = (key: (r: SimRow) => number) => [...rows].sort((a, b) => key(a) - key(b) || a.id - b.id);
  switch (sortBy) {
    case 'ending_soon':
      return by((r) => r.prop.closeTime.getTime());
    case 'newest':
      return by((r) => -r.createdMs);
    case 'high_value':
    case 'liquidity':
      return by((r) => -r.prop.baseVolumeUsd);
    default:
      // lp_rewards and no sort: Limitless's own order; here, the listing order.
      return rows;
  }
}
