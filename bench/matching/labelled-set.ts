// A labelled set of real markets in the shared exchange-neutral form (test/fixtures/matching-real-dev/, the
// development set, and test/fixtures/matching-real-holdout/, kept apart to judge whether the rules generalize):
// `markets.jsonl` rows as recorded from each venue's public API, `pairs.jsonl` pairs labelled same_market,
// co_dependent or different. Each market is shaped as our adapters shape it (Kalshi's question from its title and
// `yes_sub_title` by the adapter's own `questionOf`, the event title as `group_title`, the close time as end date),
// so the engine sees what it sees in production.
//
// The world is open: most pairs are unlabelled (48 World Cup options on Kalshi and 48 on Polymarket are 2,304
// exclusive pairs; a few dozen are labelled). A prediction is judged only when its pair is labelled, directly or
// by closure: same_market is an equivalence (A ≡ A′ ≡ A″), and a label between A and B holds between every twin of A
// and every twin of B. Predictions on pairs no label reaches are counted as unjudged, not right.
import { existsSync, readFileSync } from 'node:fs';
import type { MatchInput } from '../../src/domain/matching/features.js';
import { questionOf } from '../../src/venues/kalshi/parse.js';
import { pairKey, type Truth, type TruthRelation } from './metrics.js';

export interface RealMarketRow {
  exchange: MatchInput['exchange'];
  native_id: string;
  event_id?: string | null;
  question: string | null;
  description?: string | null;
  rules?: string | null;
  outcomes?: string[];
  close_time?: string | null;
  yes_sub_title?: string | null;
  event_title?: string | null;
  group_item_title?: string | null;
  question_is_series_title?: boolean;
}

/** A cited correction of one labelled pair (see the header). */
export interface Correction {
  a: string;
  b: string;
  /** The relation the source labelled. */
  label: TruthRelation | 'different';
  /** The relation the rule gives. */
  relation: TruthRelation;
  dependency_type: string;
  differs: string;
  a_source: string;
  b_source: string;
  a_rules: { text: string; source: string };
  b_rules: { text: string; source: string };
  why: string;
}

interface PairRow {
  a: string;
  b: string;
  relation: TruthRelation | 'different' | 'unclear';
}

function lines<T>(dir: URL, name: string): T[] {
  return readFileSync(new URL(name, dir), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** A recorded market as our adapter for its venue would shape it. */
export function toMatchInput(row: RealMarketRow): MatchInput {
  const svc_id = `${row.exchange}:${row.native_id}`;
  const rules = (row.rules ?? row.description ?? '').trim();
  let question = (row.question ?? '').trim();
  let group: string | undefined = row.event_title ?? undefined;
  // An option of a grouped event whose own question the source did not record (`question: null`): the venue's
  // event title and option label are all there is. Opinion's adapter names a child market `parent - child`;
  // elsewhere the engine gets the short option label as the question, inside its event (`group_title`).
  if (!question && row.exchange !== 'kalshi' && row.event_title && row.group_item_title)
    question =
      row.exchange === 'opinion' ? `${row.event_title} - ${row.group_item_title}` : row.group_item_title;
  if (row.exchange === 'kalshi') {
    const event = row.event_title ? { title: row.event_title } : null;
    question = questionOf(
      {
        ticker: row.native_id,
        title: row.question ?? '',
        yes_sub_title: row.yes_sub_title ?? '',
      } as Parameters<typeof questionOf>[0],
      event,
    );
    group = row.event_title || question;
  }
  const input: MatchInput = { svc_id, exchange: row.exchange, question, exchange_market_id: row.native_id };
  if (row.event_id) input.svc_group_id = `${row.exchange}:${row.event_id}`;
  if (group) input.group_title = group;
  if (rules) input.rules = rules;
  if (row.close_time) input.end_date = row.close_time;
  if (row.outcomes) input.outcomes = row.outcomes.map((name) => ({ name }));
  return input;
}

class Classes {
  private readonly parent = new Map<string, string>();
  find(x: string): string {
    let p = this.parent.get(x) ?? x;
    while (p !== (this.parent.get(p) ?? p)) p = this.parent.get(p) ?? p;
    this.parent.set(x, p);
    return p;
  }
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(ra, rb);
  }
}

export interface LabelledSet {
  name: string;
  /** The corrections applied (none with `raw`). */
  corrections: Correction[];
  markets: MatchInput[];
  truth: Truth;
  universe: Set<string>;
}

export function labelledSet(name: string, dir: URL, options: { raw?: boolean } = {}): LabelledSet {
  const corrections =
    options.raw || !existsSync(new URL('corrections.jsonl', dir))
      ? []
      : lines<Correction>(dir, 'corrections.jsonl');
  const stated = new Map<string, string>();
  for (const c of corrections) {
    stated.set(c.a, c.a_rules.text);
    stated.set(c.b, c.b_rules.text);
  }
  const markets = lines<RealMarketRow>(dir, 'markets.jsonl').map((row) => {
    const m = toMatchInput(row);
    const rules = stated.get(m.svc_id);
    if (rules !== undefined && !m.rules) m.rules = rules;
    return m;
  });
  const corrected = new Map(corrections.map((c) => [pairKey(c.a, c.b), c.relation]));
  const pairs = lines<PairRow>(dir, 'pairs.jsonl').map((p) => {
    const relation = corrected.get(pairKey(p.a, p.b));
    return relation === undefined ? p : { ...p, relation };
  });
  const classes = new Classes();
  for (const p of pairs) if (p.relation === 'same_market') classes.union(p.a, p.b);
  const members = new Map<string, string[]>();
  for (const m of markets) {
    const root = classes.find(m.svc_id);
    const list = members.get(root);
    if (list) list.push(m.svc_id);
    else members.set(root, [m.svc_id]);
  }
  const twins = (x: string) => members.get(classes.find(x)) ?? [x];
  const judged = new Map<string, TruthRelation | 'different'>();
  const recall = new Map<string, TruthRelation>();
  const ambiguous = new Set<string>();
  for (const p of pairs) {
    const key = pairKey(p.a, p.b);
    if (p.relation === 'unclear') ambiguous.add(key);
    else if (p.relation !== 'different') recall.set(key, p.relation);
    for (const x of twins(p.a)) {
      for (const y of twins(p.b)) {
        if (x === y || p.relation === 'unclear') continue;
        const k = pairKey(x, y);
        if (!judged.has(k) || p.relation !== 'same_market') judged.set(k, p.relation);
      }
    }
  }
  // Twins reached only by closure are same_market too (A ≡ A′ on one pair of venues, A′ ≡ A″ on another).
  for (const list of members.values()) {
    for (const x of list) for (const y of list) if (x < y) judged.set(pairKey(x, y), 'same_market');
  }
  // A corrected pair keeps its correction, though closure joins its two ends through a third market whose rules
  // were not recorded (A ≡ C and C ≡ B on titles alone, A and B on two stated indices).
  for (const [k, r] of corrected) judged.set(k, r);
  const truthPairs = new Map<string, TruthRelation>();
  const negatives = new Set<string>();
  for (const [k, r] of judged) {
    if (r === 'different') negatives.add(k);
    else truthPairs.set(k, r);
  }
  return {
    name,
    corrections,
    markets,
    truth: { pairs: truthPairs, recallPairs: recall, ambiguous, negatives, openWorld: true },
    universe: new Set(markets.map((m) => m.svc_id)),
  };
}

const FIXTURES = new URL('../../test/fixtures/', import.meta.url);

/** The development set, with its cited corrections unless `raw`. */
export function devSet(options: { raw?: boolean } = {}): LabelledSet {
  return labelledSet(
    `real development set${options.raw ? ' (raw labels)' : ''}`,
    new URL('matching-real-dev/', FIXTURES),
    options,
  );
}

/** The holdout set, with its cited corrections (none today) unless `raw`. */
export function holdoutSet(options: { raw?: boolean } = {}): LabelledSet {
  return labelledSet(
    `real holdout set${options.raw ? ' (raw labels)' : ''}`,
    new URL('matching-real-holdout/', FIXTURES),
    options,
  );
}
