// Compares two markets' features and says what links them, with the evidence: the same proposition
// (same_market), or a logical dependency (co_dependent): options of one event that exclude each other, nested
// thresholds on one subject and day, a ladder of deadlines, Fed decisions at one meeting. Hard contradictions
// are checked first and end the comparison; only then is a confidence computed (confidence.ts).
import { type ConfidenceTier, combine, DOUBT, PENALTY, PUBLISH_THRESHOLD, tierOf } from './confidence.js';
import { dayGap } from './dates.js';
import { isEntity } from './entities.js';
import { eventTokens, type MarketDate, type MatchFeatures } from './features.js';
import { stageOf } from './lexicon.js';
import { type ResolutionCheck, resolutionCheck } from './resolution.js';
import { type Comparator, describeThreshold, sameValue, type Threshold } from './thresholds.js';
import { bothDeadlines, inside, sameWindow } from './windows.js';

export type Relation = 'same_market' | 'co_dependent';
/**
 * `settlement_index`: one proposition (same subject, line, window) that the two venues state settles on different
 * price indices (BRTI against Binance): the two move together but can settle apart, so it is never same_market and
 * has no direction (neither side's YES makes the other's certain). `stage_reached`: winning a competition implies
 * reaching a stage of it (`win the 2026 World Cup` implies `qualify for the 2026 World Cup`), `implies` from the
 * winner's side.
 */
export type DependencyType =
  | 'mutually_exclusive'
  | 'nested_threshold'
  | 'date_ladder'
  | 'settlement_index'
  | 'stage_reached';
/**
 * From the first market's side: `implies` = its YES makes the other's YES certain; `exclusive` = at most one YES;
 * null for `settlement_index`.
 */
export type DependencyDirection = 'implies' | 'implied_by' | 'exclusive';
export type LinkSource = 'hierarchical' | 'deterministic_graph' | 'text_similarity';

export interface PairVerdict {
  relation: Relation;
  confidence: number;
  tier: ConfidenceTier;
  source: LinkSource;
  dependencyType: DependencyType | null;
  /** Direction from a to b (b to a is its mirror). */
  direction: DependencyDirection | null;
  evidence: string[];
  /** same_market only: how each side resolves and the differences found (`market` is a, `linked` is b). */
  resolution?: ResolutionCheck;
}

export type TokenWeight = (token: string) => number;

/**
 * The weight of a token in the wording similarity: a named entity (btc, fed, spx) counts double. Fixed, not learnt
 * from the catalogue (no IDF): a link's score then depends only on its two markets, so linking a batch at a time
 * gives exactly the links (and confidences) of linking everything at once, and any link can be re-derived alone.
 */
export function tokenWeight(token: string): number {
  return isEntity(token) ? 2 : 1;
}

/** IDF-weighted cosine of two sorted token lists. */
export function similarity(a: readonly string[], b: readonly string[], weight: TokenWeight): number {
  if (a.length === 0 || b.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const t of a) na += weight(t) ** 2;
  for (const t of b) nb += weight(t) ** 2;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as string;
    const y = b[j] as string;
    if (x === y) {
      dot += weight(x) ** 2;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

type DateFit = 'day' | 'month' | 'end' | 'end_near' | 'year' | 'none' | 'one_sided' | 'conflict';

function sameDayIso(a: string, b: string): boolean {
  if (a.startsWith('????') || b.startsWith('????')) return a.slice(4) === b.slice(4);
  return a === b;
}

/** Two months, either of which may be given without its year (`in April`). */
function sameMonthIso(a: string, b: string): boolean {
  if (a.startsWith('????') || b.startsWith('????')) return a.slice(4) === b.slice(4);
  return a === b;
}

const DAY_MS = 86_400_000;

/**
 * A day between the dates read on two sides, when one side's date is only its end date, is a convention (a close at
 * midnight ET is the next day in UTC; one venue closes at noon, the other at 23:59) only if the two markets really
 * close less than a day apart. Closes a whole day apart or more are two deadlines (the hard negative listed for
 * the day before), however alike the rest: agreement on an end date is never evidence enough by itself.
 */
function closesNear(aEndAt: number | null, bEndAt: number | null): boolean {
  return aEndAt !== null && bEndAt !== null && Math.abs(aEndAt - bEndAt) < DAY_MS;
}

function fitDates(a: MatchFeatures, b: MatchFeatures): DateFit {
  return fitDateFields(a.date, b.date, a.endDay, b.endDay, a.endAt, b.endAt);
}

function fitDateFields(
  a: MarketDate | null,
  b: MarketDate | null,
  aEnd: string | null,
  bEnd: string | null,
  aEndAt: number | null,
  bEndAt: number | null,
): DateFit {
  if (a === null && b === null) return 'none';
  if (a === null || b === null) return 'one_sided';
  if (a.source === 'end' || b.source === 'end') {
    const other = a.source === 'end' ? b : a;
    const end = a.source === 'end' ? a.iso : b.iso;
    if (other.precision === 'day' && !other.iso.startsWith('????')) {
      const gap = dayGap(other.iso, end);
      if (gap === 0) return 'end';
      return gap <= 1 && closesNear(aEndAt, bEndAt) ? 'end_near' : 'conflict';
    }
    if (other.precision === 'month') return end.startsWith(other.iso) ? 'end' : 'conflict';
    if (other.precision === 'year') return end.startsWith(other.iso) ? 'year' : 'conflict';
    return 'end';
  }
  if (a.precision === 'day' && b.precision === 'day') return sameDayIso(a.iso, b.iso) ? 'day' : 'conflict';
  if (a.precision === 'year' || b.precision === 'year') {
    if (a.precision !== b.precision) return 'conflict';
    return a.iso === b.iso ? 'year' : 'conflict';
  }
  const [fine, coarse] = a.precision === 'day' ? [a, b] : [b, a];
  if (!sameMonthIso(fine.iso.slice(0, 7), coarse.iso)) return 'conflict';
  // Two month-level dates: the end dates must not tell different meetings or deadlines apart.
  if (fine.precision === 'month' && aEnd && bEnd && dayGap(aEnd, bEnd) > 3) return 'conflict';
  return 'month';
}

function dateDoubt(fit: DateFit): number[] {
  switch (fit) {
    case 'day':
      return [DOUBT.sameDay];
    case 'month':
      return [DOUBT.sameMonth];
    case 'end':
      return [DOUBT.endDateOnly];
    case 'end_near':
      return [DOUBT.endDateOnly];
    case 'year':
      return [DOUBT.sameYear];
    default:
      return [];
  }
}

function datePenalty(fit: DateFit): number[] {
  if (fit === 'one_sided') return [PENALTY.dateMissingOneSide];
  if (fit === 'end_near') return [PENALTY.endDateNear];
  if (fit === 'none') return [PENALTY.noDates];
  return [];
}

function family(c: Comparator): string {
  return c;
}

function unitsAgree(a: Threshold, b: Threshold): boolean {
  return a.unit === b.unit || a.unit === 'count' || b.unit === 'count';
}

function sameThreshold(a: Threshold, b: Threshold): boolean {
  return (
    family(a.comparator) === family(b.comparator) &&
    unitsAgree(a, b) &&
    sameValue(a.value, b.value) &&
    (a.high === null) === (b.high === null) &&
    (a.high === null || b.high === null || sameValue(a.high, b.high))
  );
}

type OptionFit = 'same' | 'different' | 'partial' | 'none' | 'one_sided';

function fitOptions(a: readonly string[], b: readonly string[]): OptionFit {
  if (a.length === 0 && b.length === 0) return 'none';
  if (a.length === 0 || b.length === 0) return 'one_sided';
  const set = new Set(a);
  const shared = b.filter((t) => set.has(t)).length;
  if (shared === 0) return 'different';
  return shared === Math.min(a.length, b.length) ? 'same' : 'partial';
}

/**
 * Two labels that share words and whose other words are abbreviations of each other's (`Man City` / `Manchester
 * City`: `man` begins `manchester`) may be two spellings of one name: not known to be different options, so never
 * declared exclusive. `Kevin Hassett` / `Kevin Warsh` share a first name and differ after it: two people.
 */
export function mayAbbreviate(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  const onlyA = a.filter((t) => !sb.has(t));
  const onlyB = b.filter((t) => !sa.has(t));
  if (onlyA.length === 0 || onlyB.length === 0 || onlyA.length !== onlyB.length) return false;
  const prefix = (x: string, y: string) => x !== y && (y.startsWith(x) || x.startsWith(y));
  return onlyA.every((x) => onlyB.some((y) => prefix(x, y)));
}

function entitiesConflict(a: MatchFeatures, b: MatchFeatures): boolean {
  if (a.entities.length === 0 || b.entities.length === 0) return false;
  const set = new Set(a.entities);
  return !b.entities.some((e) => set.has(e));
}

function sharedEntity(a: MatchFeatures, b: MatchFeatures): string | null {
  const set = new Set(a.entities);
  return b.entities.find((e) => set.has(e)) ?? null;
}

function timesConflict(a: MatchFeatures, b: MatchFeatures): boolean {
  if (!a.time || !b.time) return false;
  if (a.time.zone !== null && b.time.zone !== null && a.time.zone !== b.time.zone) return false;
  return Math.abs(a.time.minutes - b.time.minutes) > 1;
}

function dateText(d: MarketDate | null): string {
  return d === null ? 'none' : `${d.iso} (${d.source})`;
}

/**
 * Each side names something the other does not mention (Chicago / Seattle, Lakers / Knicks), and those names carry
 * a real share of each side's wording: two different subjects in the same template, whatever the rest shares.
 */
function namesConflict(a: MatchFeatures, b: MatchFeatures, weight: TokenWeight): boolean {
  const share = (x: MatchFeatures, y: MatchFeatures) => {
    const other = new Set(y.tokens);
    let missing = 0;
    for (const t of x.names) if (!other.has(t)) missing += weight(t) ** 2;
    if (missing === 0) return 0;
    let total = 0;
    for (const t of x.event) total += weight(t) ** 2;
    return total === 0 ? 0 : missing / total;
  };
  return share(a, b) >= NAME_CONFLICT_SHARE && share(b, a) >= NAME_CONFLICT_SHARE;
}

const NAME_CONFLICT_SHARE = 0.15;

/**
 * Beyond who is named, the two sides say something alike about them: they share a word that is no name or
 * entity (`win`, `nominate`, `mayoral`), or one of them says nothing but names. Two questions about the same
 * people that share no other word ask different things (`Will Trump and Xi hug at their summit?` and `How long
 * will Trump and Xi shake hands when they meet?`), however much the names weigh. Used where no threshold says
 * what is measured.
 */
function sharePredicate(a: MatchFeatures, b: MatchFeatures): boolean {
  const rest = (f: MatchFeatures) => {
    const named = new Set([...f.names, ...f.entities]);
    return f.event.filter((t) => !named.has(t));
  };
  const ra = rest(a);
  const rb = rest(b);
  if (ra.length === 0 || rb.length === 0) return true;
  const set = new Set(ra);
  return rb.some((t) => set.has(t));
}

/** Minimum event-wording similarity for any link, and for each co_dependent rule. */
const MIN_SAME_SIMILARITY = 0.4;
const MIN_DEPENDENT_SIMILARITY = 0.6;
/** Places of one contest: near-identical wording, since a word or two is all that tells a primary from the race. */
const MIN_PLACE_SIMILARITY = 0.85;

/**
 * What links a and b, or null. `weight` is the token weighting (IDF over the markets being linked). Same-exchange
 * pairs are never same_market (a venue does not list one question twice); they may be co_dependent.
 */
export function comparePair(a: MatchFeatures, b: MatchFeatures, weight: TokenWeight): PairVerdict | null {
  if (a.svcId === b.svcId) return null;
  // A market known by an unreadable ticker alone says nothing to compare (features.ts `unread`).
  if (a.unread || b.unread) return null;
  if (entitiesConflict(a, b) || timesConflict(a, b) || namesConflict(a, b, weight)) return null;
  const staged = stageImplication(a, b, weight);
  if (staged !== undefined) return staged;
  const nested = touchWindows(a, b, weight);
  if (nested !== undefined) return nested;
  const dates = fitDates(a, b);
  if (dates === 'conflict') {
    return dateLadder(a, b, weight);
  }
  const ea = eventTokens(a);
  const eb = eventTokens(b);
  const sim = similarity(ea, eb, weight);
  if (sim < MIN_SAME_SIMILARITY) return null;
  const entity = sharedEntity(a, b);
  const evidence: string[] = [];
  if (entity) evidence.push(`entity ${entity}`);
  evidence.push(`date ${dateText(a.date)} ~ ${dateText(b.date)}: ${dates}`);
  if (dates === 'end_near' && a.endAt !== null && b.endAt !== null)
    evidence.push(`closes ${(Math.abs(a.endAt - b.endAt) / 3_600_000).toFixed(1)} h apart`);
  const options = fitOptions(a.option, b.option);
  const baseDoubts = [...(entity ? [DOUBT.sharedEntity] : []), ...dateDoubt(dates)];

  const ta = a.threshold;
  const tb = b.threshold;
  if ((ta === null) !== (tb === null)) return null;
  const placeA = a.place ?? 1;
  const placeB = b.place ?? 1;
  if (placeA !== placeB) {
    // One contestant cannot finish in two places of one contest; two contestants in two places can both be Yes.
    if (options !== 'same' || ta !== null || sim < MIN_PLACE_SIMILARITY) return null;
    if (dates === 'one_sided' || dates === 'end_near') return null;
    evidence.push(`wording ${sim.toFixed(3)}`, `option ${a.option.join(' ')}: place ${placeA} vs ${placeB}`);
    const confidence = combine(sim, [...baseDoubts, DOUBT.sameOption], datePenalty(dates));
    return verdict(
      'co_dependent',
      confidence,
      'deterministic_graph',
      'mutually_exclusive',
      'exclusive',
      evidence,
    );
  }
  if (ta !== null && tb !== null && !sameThreshold(ta, tb)) {
    return thresholdDependency(a, b, ta, tb, sim, baseDoubts, dates, options, evidence);
  }
  if (ta !== null && tb !== null)
    evidence.push(`threshold ${describeThreshold(ta)} = ${describeThreshold(tb)}`);
  evidence.push(`wording ${sim.toFixed(3)}`);

  // `kevin hassett` / `kevin warsh`: a shared first name, but neither names the other; two options.
  if (options === 'different' || options === 'partial') {
    if (!a.exclusive || !b.exclusive || sim < MIN_DEPENDENT_SIMILARITY) return null;
    if (options === 'partial' && mayAbbreviate(a.option, b.option)) return null;
    if (dates === 'end_near') return null;
    // A date one title states and the other does not may be another contest (the 2024 race, the next one); a date
    // only the rules or end date give, beside a title that names none either, is no such difference.
    if (dates === 'one_sided' && (a.date ?? b.date)?.source === 'text') return null;
    evidence.push(`options ${a.option.join(' ')} / ${b.option.join(' ')} of one event`);
    const confidence = combine(
      sim,
      [...baseDoubts, ...(ta ? [DOUBT.sameThreshold] : [])],
      datePenalty(dates),
    );
    return verdict('co_dependent', confidence, 'hierarchical', 'mutually_exclusive', 'exclusive', evidence);
  }
  if (a.exchange === b.exchange) return null;
  if (sim < MIN_SAME_SIMILARITY) return null;
  if (ta === null && !sharePredicate(a, b)) return null;
  const doubts = [...baseDoubts, ...(ta ? [DOUBT.sameThreshold] : [])];
  const penalties = datePenalty(dates);
  if (options === 'same') {
    doubts.push(DOUBT.sameOption);
    evidence.push(`option ${a.option.join(' ')}`);
  } else if (options === 'one_sided') {
    penalties.push(PENALTY.optionOneSided);
    evidence.push(`option on one side only: ${[...a.option, ...b.option].join(' ')}`);
  }
  const confidence = combine(sim, doubts, penalties);
  const source: LinkSource =
    options === 'same' && a.group !== null && b.group !== null
      ? 'hierarchical'
      : (entity !== null || ta !== null) && (dates === 'day' || dates === 'month')
        ? 'deterministic_graph'
        : 'text_similarity';
  const check = resolutionCheck(a.resolution, b.resolution);
  // Two deadlines both sides state (title, rules, ticker) a day or more apart are two questions, never one: a
  // deadline ladder if the wording says one, else nothing. A touch against a close is never the same question
  // (comparators differ: thresholdDependency).
  if (check.differences.includes('deadline') && statedDeadlines(a, b)) return dateLadder(a, b, weight);
  // Two settlement indices both sides' rules name and do not share (BRTI and Binance for one line and window): the
  // same words, but two prices that can settle apart — co_dependent, never same_market (issue 32 item 3).
  if (check.differences.includes('settlement_source')) return settlementVariant(a, b, confidence, evidence);
  const same = verdict('same_market', confidence, source, null, null, evidence);
  if (same) same.resolution = check;
  return same;
}

/** One proposition on two stated settlement indices: co_dependent `settlement_index`, no direction. */
export function settlementVariant(
  a: MatchFeatures,
  b: MatchFeatures,
  confidence: number,
  evidence: string[],
): PairVerdict | null {
  return verdict('co_dependent', confidence, 'deterministic_graph', 'settlement_index', null, [
    ...evidence,
    `settlement ${a.resolution.settlement.join('+')} vs ${b.resolution.settlement.join('+')}: stated indices differ`,
  ]);
}

const WIN_WORDS: ReadonlySet<string> = new Set(['win', 'wins', 'won', 'winner', 'champion', 'championship']);

function stageToken(f: MatchFeatures): string | null {
  return f.tokens.find((t) => stageOf(t) !== null) ?? null;
}

/** The features without some tokens (a stage, the words of winning): what the two questions share beside them. */
function without(f: MatchFeatures, drop: (t: string) => boolean): MatchFeatures {
  const keep = (list: string[]) => list.filter((t) => !drop(t));
  return { ...f, tokens: keep(f.tokens), event: keep(f.event), option: keep(f.option), names: keep(f.names) };
}

/**
 * Reaching a stage of a competition (`reach the … Finals`, `qualify for …`: lexicon/stages.json) against winning it:
 * the winner reached every stage, so the pair is co_dependent `stage_reached` (the winner's side implies), never
 * same_market — when, the stage and the words of winning set aside, the two are the same question about the same
 * contestant. undefined when the rule does not apply (neither side or both name one stage); null when it applies
 * and links nothing (two different stages, or no winner's side).
 */
function stageImplication(
  a: MatchFeatures,
  b: MatchFeatures,
  weight: TokenWeight,
): PairVerdict | null | undefined {
  const sa = stageToken(a);
  const sb = stageToken(b);
  if (sa === sb) return undefined;
  if (sa !== null && sb !== null) return null;
  const [stage, winner] = sa !== null ? [a, b] : [b, a];
  // The other side asks who wins (its wording is exclusive: `win`, `champion`, `winner`; `win` itself is no token).
  if (!winner.exclusive || winner.rate) return null;
  // One contestant on both sides: an option either names is named by the other (Italy qualifying says nothing of
  // Spain winning).
  const names = (x: MatchFeatures, y: MatchFeatures) => {
    const ys = new Set(y.tokens);
    return x.option.every((t) => ys.has(t));
  };
  if (!names(winner, stage) || !names(stage, winner)) return null;
  const token = (sa ?? sb) as string;
  const inner = comparePair(
    without(stage, (t) => t === token),
    without(winner, (t) => WIN_WORDS.has(t)),
    weight,
  );
  if (inner?.relation !== 'same_market') return null;
  const evidence = [
    ...inner.evidence,
    `stage ${stageOf(token)} on ${stage.svcId}; winning implies reaching it`,
  ];
  return verdict(
    'co_dependent',
    inner.confidence,
    'deterministic_graph',
    'stage_reached',
    winner === a ? 'implies' : 'implied_by',
    evidence,
  );
}

/** Both sides' deadlines were read from what the market states, not from a venue's close time. */
function statedDeadlines(a: MatchFeatures, b: MatchFeatures): boolean {
  const stated = (f: MatchFeatures) =>
    f.resolution.deadlineSource !== null && f.resolution.deadlineSource !== 'end';
  return stated(a) && stated(b);
}

function verdict(
  relation: Relation,
  confidence: number,
  source: LinkSource,
  dependencyType: DependencyType | null,
  direction: DependencyDirection | null,
  evidence: string[],
): PairVerdict | null {
  if (confidence < PUBLISH_THRESHOLD) return null;
  return { relation, confidence, tier: tierOf(confidence), source, dependencyType, direction, evidence };
}

function thresholdDependency(
  a: MatchFeatures,
  b: MatchFeatures,
  ta: Threshold,
  tb: Threshold,
  sim: number,
  baseDoubts: number[],
  dates: DateFit,
  options: OptionFit,
  evidence: string[],
): PairVerdict | null {
  if (sim < MIN_DEPENDENT_SIMILARITY || !unitsAgree(ta, tb)) return null;
  if (dates === 'one_sided' || dates === 'end_near') return null;
  // Neither side dated (`FDV above $1B one day after launch?`): the lines still nest if the wording is the same
  // question, which the one-to-one same_market rule has already tied together; only near-identical wording counts.
  if (dates === 'none' && sim < MIN_PLACE_SIMILARITY) return null;
  if (options !== 'none' && options !== 'same') return null;
  evidence.push(
    `threshold ${describeThreshold(ta)} vs ${describeThreshold(tb)}`,
    `wording ${sim.toFixed(3)}`,
  );
  const penalties = datePenalty(dates);
  // Fed-style decisions at one meeting: outcomes whose ranges of change do not overlap exclude each other.
  if (a.rate && b.rate && ta.unit === 'bps' && tb.unit === 'bps' && rateDisjoint(ta, tb)) {
    const confidence = combine(sim, [...baseDoubts, DOUBT.orderedThresholds], penalties);
    return verdict(
      'co_dependent',
      confidence,
      'deterministic_graph',
      'mutually_exclusive',
      'exclusive',
      evidence,
    );
  }
  if (ta.comparator === 'range' && tb.comparator === 'range' && ta.high !== null && tb.high !== null) {
    const confidence = combine(sim, [...baseDoubts, DOUBT.orderedThresholds], penalties);
    const rangeLink = (
      type: 'mutually_exclusive' | 'nested_threshold',
      direction: 'exclusive' | 'implies' | 'implied_by',
    ) => verdict('co_dependent', confidence, 'deterministic_graph', type, direction, evidence);
    if (ta.high <= tb.value || tb.high <= ta.value) {
      return rangeLink('mutually_exclusive', 'exclusive');
    }
    if (ta.value >= tb.value && ta.high <= tb.high) {
      return rangeLink('nested_threshold', 'implies');
    }
    if (tb.value >= ta.value && tb.high <= ta.high) {
      return rangeLink('nested_threshold', 'implied_by');
    }
    return null;
  }
  if (ta.comparator !== tb.comparator) return null;
  const up = ta.comparator === 'gt' || ta.comparator === 'touch_up';
  const down = ta.comparator === 'lt' || ta.comparator === 'touch_down';
  if (!up && !down) return null;
  // Above a higher line implies above a lower one; below a lower line implies below a higher one.
  const aStricter = up ? ta.value > tb.value : ta.value < tb.value;
  const confidence = combine(sim, [...baseDoubts, DOUBT.orderedThresholds], penalties);
  return verdict(
    'co_dependent',
    confidence,
    'deterministic_graph',
    'nested_threshold',
    aStricter ? 'implies' : 'implied_by',
    evidence,
  );
}

/** The change a rate decision allows, as [low, high] in bps. */
function rateRange(t: Threshold): [number, number] {
  if (t.comparator === 'lt') return [Number.NEGATIVE_INFINITY, t.value];
  if (t.comparator === 'gt') return [t.value, Number.POSITIVE_INFINITY];
  return [t.value, t.value];
}

function rateDisjoint(a: Threshold, b: Threshold): boolean {
  const [al, ah] = rateRange(a);
  const [bl, bh] = rateRange(b);
  return ah < bl || bh < al;
}

/**
 * Something that can happen any time before a deadline: by an earlier date implies by a later one. A one-off asked
 * over a calendar year (`launch a token in 2025`, features.ts `yearWindow`) implies it by any deadline from that
 * year's end on (`by June 30, 2026`); it says nothing about an earlier deadline, nor about another year's window.
 */
function dateLadder(a: MatchFeatures, b: MatchFeatures, weight: TokenWeight): PairVerdict | null {
  if (a.date === null || b.date === null) return null;
  const aYear = a.yearWindow === true;
  const bYear = b.yearWindow === true;
  if (!(a.cumulative || aYear) || !(b.cumulative || bYear) || (aYear && bYear)) return null;
  if ((!aYear && a.date.precision === 'year') || (!bYear && b.date.precision === 'year')) return null;
  // A deadline given without its year (`by June 30?`) is read in the other's year: its day of the year decides.
  const yearless = a.date.iso.startsWith('????') || b.date.iso.startsWith('????');
  let aEarlier = yearless ? a.date.iso.slice(4) < b.date.iso.slice(4) : a.date.iso < b.date.iso;
  if (aYear || bYear) {
    const [window, deadline] = aYear ? [a.date, b.date] : [b.date, a.date];
    const yearEnd = `${window.iso}-12-31`.slice(0, deadline.iso.length);
    if (deadline.iso.startsWith('????') || deadline.iso < yearEnd) return null;
    aEarlier = aYear;
  }
  const ta = a.threshold;
  const tb = b.threshold;
  if ((ta === null) !== (tb === null)) return null;
  if (ta !== null && tb !== null && !sameThreshold(ta, tb)) return null;
  // A price touch can happen again: two deadlines of different years on two venues are two series whose windows
  // start at different listings, so the earlier one's touch (before the later series opened) does not count there.
  // A one-off event (a launch, a visit) happened whichever series asks.
  const touch = ta?.comparator === 'touch_up' || ta?.comparator === 'touch_down';
  if (touch && a.exchange !== b.exchange && a.date.iso.slice(0, 4) !== b.date.iso.slice(0, 4)) {
    if (!a.date.iso.startsWith('????') && !b.date.iso.startsWith('????')) return null;
  }
  const options = fitOptions(a.option, b.option);
  if (options !== 'none' && options !== 'same') return null;
  const sim = similarity(eventTokens(a), eventTokens(b), weight);
  if (sim < MIN_DEPENDENT_SIMILARITY) return null;
  const entity = sharedEntity(a, b);
  const evidence = [
    ...(entity ? [`entity ${entity}`] : []),
    `deadline ${a.date.iso}${aYear ? ' (the year)' : ''} vs ${b.date.iso}${bYear ? ' (the year)' : ''}`,
    ...(ta ? [`threshold ${describeThreshold(ta)}`] : []),
    `wording ${sim.toFixed(3)}`,
  ];
  const confidence = combine(
    sim,
    [...(entity ? [DOUBT.sharedEntity] : []), DOUBT.orderedThresholds, ...(ta ? [DOUBT.sameThreshold] : [])],
    [],
  );
  return verdict(
    'co_dependent',
    confidence,
    'deterministic_graph',
    'date_ladder',
    aEarlier ? 'implies' : 'implied_by',
    evidence,
  );
}

/**
 * Two touches of one subject in the same direction over windows that differ: a touch inside a window is a touch
 * inside every window containing it, so `reach $105,000 in April` implies `hit $100k before July 2026` (the higher
 * line, the narrower window). undefined when the rule does not apply (not both touches over a window, or the same
 * window: the other rules decide); null when it applies and links nothing (windows that do not nest).
 */
function touchWindows(
  a: MatchFeatures,
  b: MatchFeatures,
  weight: TokenWeight,
): PairVerdict | null | undefined {
  const ta = a.threshold;
  const tb = b.threshold;
  if (!ta || !tb || !a.window || !b.window || ta.comparator !== tb.comparator) return undefined;
  if (ta.comparator !== 'touch_up' && ta.comparator !== 'touch_down') return undefined;
  if (sameWindow(a.window, b.window) || bothDeadlines(a.window, b.window)) return undefined;
  if (!unitsAgree(ta, tb)) return null;
  const options = fitOptions(a.option, b.option);
  if (options !== 'none' && options !== 'same') return null;
  const sim = similarity(eventTokens(a), eventTokens(b), weight);
  if (sim < MIN_DEPENDENT_SIMILARITY) return null;
  const up = ta.comparator === 'touch_up';
  const stricter = (x: Threshold, y: Threshold) =>
    up ? x.value >= y.value - 0.011 : x.value <= y.value + 0.011;
  const aImplies = inside(a.window, b.window) === true && stricter(ta, tb);
  const bImplies = inside(b.window, a.window) === true && stricter(tb, ta);
  if (aImplies === bImplies) return null;
  const entity = sharedEntity(a, b);
  const evidence = [
    ...(entity ? [`entity ${entity}`] : []),
    `window ${dateText(a.date)} ${aImplies ? 'within' : 'contains'} ${dateText(b.date)}`,
    `threshold ${describeThreshold(ta)} vs ${describeThreshold(tb)}`,
    `wording ${sim.toFixed(3)}`,
  ];
  const confidence = combine(
    sim,
    [...(entity ? [DOUBT.sharedEntity] : []), DOUBT.orderedThresholds, DOUBT.sameThreshold],
    [],
  );
  return verdict(
    'co_dependent',
    confidence,
    'deterministic_graph',
    'date_ladder',
    aImplies ? 'implies' : 'implied_by',
    evidence,
  );
}

/** The direction seen from the other market. */
export function mirror(direction: DependencyDirection | null): DependencyDirection | null {
  if (direction === 'implies') return 'implied_by';
  if (direction === 'implied_by') return 'implies';
  return direction;
}
