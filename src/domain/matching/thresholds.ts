// The measurable condition of a question: a comparator, a threshold and its unit, read from folded text whose
// dates and times are already cut out. `$100k`, `$1.5M`, `100,000`, `99,999.99`, `4.5%`, `25bps`, `80°F` and
// `>80°` all parse; `above`, `over`, `more than`, `or above`, `+`, `at least` are one direction, `below`,
// `under`, `less than`, `or below` the other, `between X and Y` a range, `hit`/`reach` a touch at any time.
// The Fed's decisions are a signed change in basis points (cut 25 = -25, hold = 0), compared exactly.

export type Comparator = 'gt' | 'lt' | 'eq' | 'range' | 'touch_up' | 'touch_down';
export type Unit = 'usd' | 'pct' | 'bps' | 'deg' | 'count';

export interface Threshold {
  comparator: Comparator;
  value: number;
  /** Upper bound of a range. */
  high: number | null;
  unit: Unit;
}

const NUM =
  '(\\$)?\\s*(\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?)\\s*(k|m|mm|b|bn|million|billion|thousand|trillion|t)?\\b\\s*(%|percent|bps|basis points?|°\\s*f?|degrees?(?: f| fahrenheit)?|usd|dollars?|cents?)?';

function scale(suffix: string | undefined): number {
  switch (suffix) {
    case 'k':
    case 'thousand':
      return 1e3;
    case 'm':
    case 'mm':
    case 'million':
      return 1e6;
    case 'b':
    case 'bn':
    case 'billion':
      return 1e9;
    case 't':
    case 'trillion':
      return 1e12;
    default:
      return 1;
  }
}

function unitOf(dollar: string | undefined, unit: string | undefined): Unit {
  if (dollar || unit?.startsWith('usd') || unit?.startsWith('dollar')) return 'usd';
  if (unit === undefined) return 'count';
  if (unit === '%' || unit === 'percent') return 'pct';
  if (unit.startsWith('bps') || unit.startsWith('basis')) return 'bps';
  if (unit.startsWith('°') || unit.startsWith('degree')) return 'deg';
  if (unit.startsWith('cent')) return 'usd';
  return 'count';
}

interface Amount {
  value: number;
  unit: Unit;
  at: number;
  end: number;
}

function amounts(text: string): Amount[] {
  const out: Amount[] = [];
  const re = new RegExp(NUM, 'g');
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const raw = Number((m[2] ?? '').replace(/,/g, ''));
    if (!Number.isFinite(raw)) continue;
    let value = raw * scale(m[3]);
    const unit = unitOf(m[1], m[4]?.trim());
    if (m[4]?.startsWith('cent')) value /= 100;
    out.push({ value, unit, at: m.index, end: m.index + m[0].length });
  }
  return out;
}

const UP_BEFORE =
  /(?:above|over|more than|greater than|higher than|exceeds?|exceeding|at least|>=?|reach(?:es)?|hits?|surpass(?:es)?|top(?:s)?|rise to|or more)\s*(?:the\s+)?$/;
const DOWN_BEFORE =
  /(?:below|under|less than|lower than|at most|<=?|dips? to|drops? to|falls? to|fall below)\s*(?:the\s+)?$/;
const TOUCH_BEFORE =
  /(?:reach(?:es)?|hits?|touch(?:es)?|surpass(?:es)?|dips? to|drops? to|falls? to|ath)\s*(?:the\s+)?$/;
const UP_AFTER = /^\s*(?:\+|or (?:above|more|higher|greater)|and above|plus\b)/;
const DOWN_AFTER = /^\s*(?:or (?:below|less|lower|fewer)|and below)/;

/** Rate-setters move in steps of this many bps (the Fed since the 1990s): a strict `>25bps` means 50 or more. */
export const RATE_STEP_BPS = 25;

const RATE_VERB =
  'cut|cuts|lower|lowers|lowered|decrease|decreases|reduce|reduces|hike|hikes|raise|raises|increase|increases';
const RATE_UNIT = 'bps|basis points?|%';
/** Words that make an amount a bound: strict (`>`, `more than`, `over`) or inclusive (`>=`, `at least`). */
const RATE_BOUND = '(>=|>|at least|no less than|more than|greater than|over)\\s*';
const RATE_AFTER = '(\\s+or more|\\s*\\+)?';
const VERB_FIRST = new RegExp(
  `\\b(${RATE_VERB})\\b(?:\\s+(?:interest\\s+)?rates?)?(?:\\s+(?:by|of))?\\s+(?:${RATE_BOUND})?(\\d+(?:\\.\\d+)?)\\s*(\\+)?\\s*(${RATE_UNIT})${RATE_AFTER}`,
);
const AMOUNT_FIRST = new RegExp(
  `(?:${RATE_BOUND})?\\b(\\d+(?:\\.\\d+)?)\\s*(\\+)?\\s*(bps|basis points?)${RATE_AFTER}\\s+(?:rate\\s+)?(cut|decrease|hike|increase|raise)`,
);

/**
 * The Fed (or any rate-setter) moving by N bps, or holding: a signed change. `25 bps` is exactly 25; `25+ bps`,
 * `25 bps or more` and `at least 25 bps` are 25 or more; a strict `>25bps` / `more than 25 bps` is the next step
 * up (50 or more), since decisions come in RATE_STEP_BPS steps: so Kalshi's `Cut >25bps` and Polymarket's
 * `50+ bps` read as the same outcome.
 */
function rateDecision(text: string): Threshold | null {
  if (
    /\b(?:hold|holds|held|unchanged|no change|pause|pauses|maintain|keep)\b/.test(text) &&
    !/\b(?:cut|hike|raise|lower|increase|decrease)s?\b.*\d/.test(text)
  ) {
    if (/\brates?\b|\bfed\b|\bfomc\b|interest/.test(text))
      return { comparator: 'eq', value: 0, high: null, unit: 'bps' };
  }
  let verb: string;
  let bound: string | undefined;
  let amount: number;
  let plus: boolean;
  let unit: string;
  const v = VERB_FIRST.exec(text);
  const a = v ? null : AMOUNT_FIRST.exec(text);
  if (v) {
    verb = v[1] ?? '';
    bound = v[2];
    amount = Number(v[3]);
    plus = Boolean(v[4] || v[6]);
    unit = v[5] ?? 'bps';
  } else if (a) {
    bound = a[1];
    amount = Number(a[2]);
    plus = Boolean(a[3] || a[5]);
    unit = a[4] ?? 'bps';
    verb = a[6] ?? '';
  } else return null;
  if (unit === '%') amount *= 100;
  const strict = bound !== undefined && bound !== '>=' && bound !== 'at least' && bound !== 'no less than';
  if (strict) amount += RATE_STEP_BPS;
  const atLeast = plus || bound !== undefined;
  const down = /cut|lower|decrease|reduce/.test(verb);
  return {
    comparator: atLeast ? (down ? 'lt' : 'gt') : 'eq',
    value: down ? -amount : amount,
    high: null,
    unit: 'bps',
  };
}

/** The condition of a question, or null when it has no measurable one. `rateContext` marks Fed-style questions. */
export function extractThreshold(text: string, rateContext: boolean): Threshold | null {
  if (rateContext) {
    const decision = rateDecision(text);
    if (decision) return decision;
  }
  const found = amounts(text);
  const between = /\bbetween\s+\$?\s*([\d.,]+)\s*(k|m|b)?\s*(?:and|-|to)\s+\$?\s*([\d.,]+)\s*(k|m|b)?/.exec(
    text,
  );
  if (between) {
    const lo = Number((between[1] ?? '').replace(/,/g, '')) * scale(between[2] ?? between[4]);
    const hi = Number((between[3] ?? '').replace(/,/g, '')) * scale(between[4]);
    const unit = found[0]?.unit ?? 'count';
    if (Number.isFinite(lo) && Number.isFinite(hi)) return { comparator: 'range', value: lo, high: hi, unit };
  }
  for (const a of found) {
    const before = text.slice(Math.max(0, a.at - 24), a.at);
    const after = text.slice(a.end, a.end + 16);
    if (TOUCH_BEFORE.test(before)) {
      const down = /dips?|drops?|falls?/.test(before);
      return { comparator: down ? 'touch_down' : 'touch_up', value: a.value, high: null, unit: a.unit };
    }
    if (UP_BEFORE.test(before) || UP_AFTER.test(after))
      return { comparator: 'gt', value: a.value, high: null, unit: a.unit };
    if (DOWN_BEFORE.test(before) || DOWN_AFTER.test(after))
      return { comparator: 'lt', value: a.value, high: null, unit: a.unit };
  }
  return null;
}

/**
 * A question about the extreme a price reaches over a window (`monthly one touch`, `How high will Bitcoin get this
 * year?`, `How low will it fall`): its `above`/`below` line is touched at any time in the window, not read at its
 * end, so it is the same condition as `reach` / `dip to`.
 */
const EXTREME_WINDOW = /\bone[- ]touch\b|\bhow high will\b|\bhow low will\b|\ball[- ]time high\b/;

export function asTouch(t: Threshold | null, text: string): Threshold | null {
  if (t === null || !EXTREME_WINDOW.test(text)) return t;
  if (t.comparator === 'gt') return { ...t, comparator: 'touch_up' };
  if (t.comparator === 'lt') return { ...t, comparator: 'touch_down' };
  return t;
}

/** Equal thresholds, allowing Kalshi's strike convention (`above 99,999.99` is `$100,000 or above`). */
export function sameValue(a: number, b: number): boolean {
  return Math.abs(a - b) <= Math.max(0.011, Math.abs(a) * 1e-7);
}

/** A coarse key for blocking: 4 significant digits, so 84,999.99 and 85,000 share it. */
export function valueKey(v: number): string {
  if (v === 0) return '0';
  return Number(v.toPrecision(4)).toString();
}

export function describeThreshold(t: Threshold): string {
  const sign: Record<Comparator, string> = {
    gt: '>',
    lt: '<',
    eq: '=',
    range: 'in',
    touch_up: 'touches >=',
    touch_down: 'touches <=',
  };
  const v = t.high === null ? `${t.value}` : `[${t.value}, ${t.high}]`;
  return `${sign[t.comparator]} ${v} ${t.unit}`;
}
