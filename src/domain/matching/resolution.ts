// What each side of a link says about how it resolves, read once per market (its deadline, its settlement source,
// whether its threshold includes the line), and the check every same_market link carries: the two sides' deadlines
// (UTC), their settlement sources where stated, and each difference found. A link whose sides differ on one of these
// is still the same question in words, but not one to trade as one without reading both rules.
import { type Static, Type } from 'typebox';
import { settlementSources } from './lexicon.js';
import { fold } from './text.js';

export interface ResolutionFacts {
  /** The resolution deadline (UTC ISO): the day a title, the rules or a Kalshi ticker state (end of that day, UTC), else the close. */
  deadline: string | null;
  /** Where the deadline was read: the title, the rules, or only the venue's close time. */
  deadlineSource: 'text' | 'rules' | 'ticker' | 'end' | null;
  /** Settlement sources the rules name (lexicon ids). */
  settlement: string[];
  /** Whether the threshold includes the line (`or above`, `at least`, `≥`): true, false (`above`, `more than`) or unknown. */
  inclusive: boolean | null;
  /** The market has rules or a description to read. */
  hasRules: boolean;
  /** The rules say what happens when the event is cancelled or postponed (void / refund / resolves No). */
  voidRule: 'no' | 'void' | null;
}

export const ResolutionDifference = Type.Union([
  Type.Literal('deadline'),
  Type.Literal('settlement_source'),
  Type.Literal('threshold_inclusive'),
  Type.Literal('void_rules'),
  Type.Literal('unknown'),
]);
export type ResolutionDifference = Static<typeof ResolutionDifference>;

export const ResolutionSide = Type.Object({
  deadline: Type.Union([Type.String(), Type.Null()], { description: 'Resolution deadline, UTC ISO' }),
  deadline_source: Type.Union([Type.String(), Type.Null()], {
    description: 'text, rules or end (close time only)',
  }),
  settlement_source: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'null when not stated',
  }),
});

export const ResolutionCheck = Type.Object(
  {
    comparable: Type.Boolean({
      description:
        'No difference was found in what both sides state (unknown lists what one side does not state)',
    }),
    differences: Type.Array(ResolutionDifference),
    market: ResolutionSide,
    linked: ResolutionSide,
  },
  { description: 'How the two sides of a same_market link resolve, and the differences found' },
);
export type ResolutionCheck = Static<typeof ResolutionCheck>;

const INCLUSIVE =
  /\b(?:or (?:above|more|higher|greater)|at least|or over|and above|no less than)\b|>=|\+(?!\d)/;
const STRICT =
  /\b(?:above|more than|greater than|higher than|over|exceeds?|below|less than|under|lower than)\b|>|</;
const VOID_NO =
  /\b(?:cancel+ed|postponed|delayed|does not (?:take place|occur))\b[^.]{0,120}\bresolves? (?:to )?["']?no\b/;
const VOID_REFUND =
  /\b(?:void|refund(?:ed)?|resolves? (?:to )?50-50|settle[sd]? at (?:the )?(?:last|fair))\b/;

/** Whether the wording of a threshold includes its line, read from the question (then the rules). */
function inclusiveOf(question: string, rules: string): boolean | null {
  for (const text of [question, rules]) {
    if (INCLUSIVE.test(text)) return true;
    if (STRICT.test(text)) return false;
  }
  return null;
}

export function resolutionFacts(args: {
  question: string;
  rules: string;
  /** The day read from the title or rules (YYYY-MM-DD, a year known), with where it came from. */
  statedDay: { iso: string; source: 'text' | 'rules' | 'ticker' } | null;
  endAt: number | null;
  hasThreshold: boolean;
}): ResolutionFacts {
  // Rules name their source and cancellation terms early; the first 1,500 characters are read (a bound per market).
  const rules = args.rules.length === 0 ? '' : fold(args.rules.slice(0, 1500));
  let deadline: string | null = null;
  let deadlineSource: ResolutionFacts['deadlineSource'] = null;
  if (args.statedDay) {
    deadline = `${args.statedDay.iso}T23:59:59Z`;
    deadlineSource = args.statedDay.source;
  } else if (args.endAt !== null) {
    deadline = new Date(args.endAt).toISOString();
    deadlineSource = 'end';
  }
  const voidRule = VOID_NO.test(rules) ? 'no' : VOID_REFUND.test(rules) ? 'void' : null;
  return {
    deadline,
    deadlineSource,
    settlement: settlementSources(rules),
    inclusive: args.hasThreshold ? inclusiveOf(fold(args.question), rules) : null,
    hasRules: rules.trim().length > 0,
    voidRule,
  };
}

const DAY_MS = 86_400_000;

/**
 * The resolution check of a same_market link. Deadlines differ when they are a day or more apart (venues close the
 * same question hours apart by convention); sources when both name one and none is shared; inclusiveness when both
 * say it and disagree; void rules when both state one and they disagree. `unknown` when a side has no rules to read
 * and no deadline at all.
 */
export function resolutionCheck(a: ResolutionFacts, b: ResolutionFacts): ResolutionCheck {
  const differences: ResolutionDifference[] = [];
  if (a.deadline !== null && b.deadline !== null) {
    if (Math.abs(Date.parse(a.deadline) - Date.parse(b.deadline)) >= DAY_MS) differences.push('deadline');
  }
  if (
    a.settlement.length > 0 &&
    b.settlement.length > 0 &&
    !a.settlement.some((s) => b.settlement.includes(s))
  )
    differences.push('settlement_source');
  if (a.inclusive !== null && b.inclusive !== null && a.inclusive !== b.inclusive)
    differences.push('threshold_inclusive');
  if (a.voidRule !== null && b.voidRule !== null && a.voidRule !== b.voidRule) differences.push('void_rules');
  const unknown =
    (!a.hasRules && a.deadline === null) ||
    (!b.hasRules && b.deadline === null) ||
    (a.deadline === null) !== (b.deadline === null);
  const comparable = differences.length === 0;
  if (unknown) differences.push('unknown');
  const side = (f: ResolutionFacts) => ({
    deadline: f.deadline,
    deadline_source: f.deadlineSource,
    settlement_source: f.settlement.length > 0 ? f.settlement : null,
  });
  return { comparable, differences, market: side(a), linked: side(b) };
}

/** The check seen from the other side of the link. */
export function mirrorCheck(c: ResolutionCheck): ResolutionCheck {
  return { ...c, market: c.linked, linked: c.market };
}
