// Precision and recall of predicted links against labelled truth, broken down by relation, tier, venue pair and
// dependency type. Pairs are unordered (`a|b` with a < b); a prediction is right when the truth holds the same
// pair with the same relation.
import type { EngineLink } from '../../src/services/matching/match-engine.js';

export type TruthRelation = 'same_market' | 'co_dependent';

export interface Truth {
  /** Unordered pair key → relation. Pairs absent are known not to be linked (a closed world). */
  pairs: Map<string, TruthRelation>;
  /** Pairs recall is measured on (a subset of `pairs`: e.g. only nearest rungs of a ladder). */
  recallPairs: Map<string, TruthRelation>;
  /** Pairs no method could decide (twins in the world); neither counted right nor wrong. */
  ambiguous?: ReadonlySet<string>;
  /** Pairs labelled as linked by neither relation (hard negatives): a prediction there is wrong. */
  negatives?: ReadonlySet<string>;
  /**
   * An open world (a real labelled set): a predicted pair neither in `pairs` nor in `negatives` is unjudged, counted
   * apart (`unjudged …` rows), neither right nor wrong. A closed world (the sandbox) counts it wrong.
   */
  openWorld?: boolean;
}

export function pairKey(a: string, b: string): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

function exchangeOf(svcId: string): string {
  return svcId.slice(0, svcId.indexOf(':'));
}

export function venuePair(a: string, b: string): string {
  return [exchangeOf(a), exchangeOf(b)].sort().join('~');
}

interface Cell {
  predicted: number;
  correct: number;
  truth: number;
  found: number;
}

export interface Report {
  rows: Array<{
    group: string;
    predicted: number;
    correct: number;
    precision: number | null;
    truth: number;
    found: number;
    recall: number | null;
  }>;
  /** precision/recall by relation, for assertions. */
  relation: Map<
    string,
    { precision: number | null; recall: number | null; predicted: number; truth: number }
  >;
  /** precision of same_market HIGH. */
  sameHighPrecision: number | null;
  errors: EngineLink[];
}

function ratio(n: number, d: number): number | null {
  return d === 0 ? null : n / d;
}

export function evaluate(links: readonly EngineLink[], truth: Truth, universe: ReadonlySet<string>): Report {
  const cells = new Map<string, Cell>();
  const cell = (g: string): Cell => {
    let c = cells.get(g);
    if (!c) {
      c = { predicted: 0, correct: 0, truth: 0, found: 0 };
      cells.set(g, c);
    }
    return c;
  };
  const predictedPairs = new Map<string, EngineLink>();
  const errors: EngineLink[] = [];
  for (const l of links) {
    if (!universe.has(l.a) || !universe.has(l.b)) continue;
    const key = pairKey(l.a, l.b);
    predictedPairs.set(key, l);
    if (truth.ambiguous?.has(key)) continue;
    if (truth.openWorld && !truth.pairs.has(key) && !truth.negatives?.has(key)) {
      cell(`unjudged ${l.relation} ${l.tier}`).predicted++;
      continue;
    }
    const ok = truth.pairs.get(key) === l.relation;
    if (!ok) errors.push(l);
    const groups = [
      `relation ${l.relation}`,
      `tier ${l.relation} ${l.tier}`,
      `tier ${l.relation} ${l.tier} ${venuePair(l.a, l.b)}`,
      `pair ${l.relation} ${venuePair(l.a, l.b)}`,
      ...(l.dependencyType ? [`type ${l.dependencyType}`] : []),
      `source ${l.relation} ${l.source}`,
    ];
    for (const g of groups) {
      const c = cell(g);
      c.predicted++;
      if (ok) c.correct++;
    }
  }
  for (const [key, relation] of truth.recallPairs) {
    const [a = '', b = ''] = key.split('|');
    const found = predictedPairs.get(key)?.relation === relation;
    for (const g of [`relation ${relation}`, `pair ${relation} ${venuePair(a, b)}`]) {
      const c = cell(g);
      c.truth++;
      if (found) c.found++;
    }
  }
  const rows = [...cells.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([group, c]) => ({
      group,
      predicted: c.predicted,
      correct: c.correct,
      precision: ratio(c.correct, c.predicted),
      truth: c.truth,
      found: c.found,
      recall: ratio(c.found, c.truth),
    }));
  const relation = new Map<
    string,
    { precision: number | null; recall: number | null; predicted: number; truth: number }
  >();
  for (const r of rows) {
    if (r.group.startsWith('relation ')) {
      relation.set(r.group.slice(9), {
        precision: r.precision,
        recall: r.recall,
        predicted: r.predicted,
        truth: r.truth,
      });
    }
  }
  const high = cells.get('tier same_market HIGH');
  return {
    rows,
    relation,
    sameHighPrecision: high ? ratio(high.correct, high.predicted) : null,
    errors,
  };
}

export function formatReport(title: string, report: Report): string {
  const pct = (x: number | null) => (x === null ? '   -  ' : `${(x * 100).toFixed(1).padStart(5)}%`);
  const lines = [
    `== ${title}`,
    `${'group'.padEnd(52)} ${'pred'.padStart(6)} ${'prec'.padStart(7)} ${'truth'.padStart(6)} ${'recall'.padStart(7)}`,
  ];
  for (const r of report.rows) {
    lines.push(
      `${r.group.padEnd(52)} ${String(r.predicted).padStart(6)} ${pct(r.precision)} ${String(r.truth).padStart(6)} ${pct(r.recall)}`,
    );
  }
  return lines.join('\n');
}
