// What the matcher knows about one market, extracted once: content tokens (entities canonical), the option it
// asks about inside a multi-option event, its measurable condition, its date and time. Pure and deterministic:
// the same market text gives the same features on every node and in `omnibook links`.
import { createHash } from 'node:crypto';
import { type Static, Type } from 'typebox';
import { ExchangeId } from '../exchanges.js';
import {
  type DateMention,
  type DatePrecision,
  type DatePreposition,
  extractDates,
  extractTimes,
  isoDay,
  kalshiTickerDate,
  type TimeMention,
} from './dates.js';
import { canonicalPhrases, canonicalToken, isEntity, kalshiSeriesEntity } from './entities.js';
import { kalshiOptionId, kalshiTitleFromTicker, lexiconVersion } from './lexicon.js';
import { type ResolutionFacts, resolutionFacts } from './resolution.js';
import { contentTokens, fold } from './text.js';
import { asTouch, extractThreshold, type Threshold } from './thresholds.js';
import { type Window, windowHint, windowOf } from './windows.js';

/** The market fields matching reads (a subset of Market; `omnibook links` reads them from JSON lines). */
export const MatchInput = Type.Object({
  svc_id: Type.String({ minLength: 1 }),
  exchange: ExchangeId,
  question: Type.String(),
  exchange_market_id: Type.Optional(Type.String()),
  svc_group_id: Type.Optional(Type.String()),
  group_title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  rules: Type.Optional(Type.String()),
  outcomes: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))),
  end_date: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  status: Type.Optional(Type.String()),
});
export type MatchInput = Static<typeof MatchInput>;

/** Where a market's date came from: its question (or event title), its rules text, a ticker, or only its end date. */
export type DateSource = 'text' | 'rules' | 'ticker' | 'end';

export interface MarketDate {
  iso: string;
  precision: DatePrecision;
  source: DateSource;
  preposition: DatePreposition;
}

export interface MatchFeatures {
  svcId: string;
  exchange: ExchangeId;
  group: string | null;
  /** Sorted, unique content tokens of the question and its event title. */
  tokens: string[];
  /** Tokens naming the option asked about inside a multi-option event (a candidate, a team); sorted. */
  option: string[];
  /** `tokens` without `option`: the event's wording. */
  event: string[];
  /** Tokens written as names (capitalised) in the question or event title, option excluded: places, offices, teams. */
  names: string[];
  /** Canonical entity tokens among `tokens`. */
  entities: string[];
  threshold: Threshold | null;
  date: MarketDate | null;
  /** The end date's day, whatever the text says. */
  endDay: string | null;
  /** The end date's instant (ms since the epoch): tells a close-time convention from another deadline. */
  endAt: number | null;
  time: TimeMention | null;
  /** A rate decision (Fed): amounts are exact and mutually exclusive at one meeting. */
  rate: boolean;
  /** Deadline phrasing (`by`/`before` a date) of something that can happen any time before it. */
  cumulative: boolean;
  /**
   * Something that happens once, asked over a calendar year (`Will MetaMask launch a token in 2025?`): it implies the
   * same thing by any deadline from that year's end on. No threshold, no rate decision, no point event.
   */
  yearWindow?: boolean;
  /** Exclusive-outcome wording (who wins, winner, nominee): options of one event exclude each other. */
  exclusive: boolean;
  /** The finishing place asked about (`second place`, `finish third`, `runner-up`); null when none is named. */
  place: number | null;
  /** The span a touch market watches (`in April`, `before July 2026`, `this year`); null for any other market. */
  window: Window | null;
  /** How the market resolves as far as its text says (deadline, settlement source, inclusiveness, void rules). */
  resolution: ResolutionFacts;
  /**
   * Nothing says what the market asks: a Kalshi record that kept its ticker alone, which no series grammar reads.
   * Its only words are the ticker's codes, so no rule can tell it from another market of its series and day.
   */
  unread?: boolean;
  /** Hash of the inputs matching reads: equal fingerprints need no relinking. */
  fingerprint: string;
}

// A contest with one winner. `who will`/`which` alone are not: `Who will attend Dick Cheney's funeral?` has many Yes.
const EXCLUSIVE_CUES =
  /\b(?:win|wins|winner|won|elected|election|nominee|nomination|nominate|champion|championship|mvp|next)\b/;
const POINT_EVENT_TOKENS: ReadonlySet<string> = new Set([
  'meeting',
  'election',
  'game',
  'match',
  'mayor',
  'president',
  'primary',
  'final',
  'race',
]);
const INTERROGATIVES: ReadonlySet<string> = new Set(['who', 'what', 'which', 'will', 'when', 'how', 'the']);

export function fingerprintOf(m: MatchInput): string {
  // The first 12 bytes are the first 16 characters of the whole digest's base64url, encoded without a slice (a slice
  // of a string keeps the whole string alive, and the engine holds a fingerprint per market).
  return createHash('sha1')
    .update(
      JSON.stringify([
        m.exchange,
        m.question,
        m.group_title ?? '',
        m.svc_group_id ?? '',
        m.description ?? '',
        m.rules ?? '',
        m.end_date ?? '',
        m.exchange_market_id ?? '',
        lexiconVersion(),
      ]),
    )
    .digest()
    .subarray(0, 12)
    .toString('base64url');
}

/** Canonical content tokens of raw text (entities folded onto one token). */
export function tokensOf(text: string): string[] {
  return contentTokens(canonicalPhrases(fold(text))).map(canonicalToken);
}

interface Parsed {
  dates: DateMention[];
  times: TimeMention[];
  place: number | null;
  rest: string;
}

function parse(text: string, reference: Date | null): Parsed {
  const canon = canonicalPhrases(fold(text));
  const d = extractDates(canon, reference);
  const t = extractTimes(d.rest);
  const p = cutPlace(t.rest);
  return { dates: d.dates, times: t.times, place: p.place, rest: p.rest };
}

/**
 * tokensOf of one word, remembered: names are read a word at a time, and each call ran the whole lexicon's phrase
 * expression over a word the catalogue spells thousands of times (a team, a city, a month). Bounded: forgotten
 * when full, so it costs a fixed amount whatever the catalogue holds, and when the lexicon changes (loadLexicon);
 * the lists are only read.
 */
const wordMemo = new Map<string, readonly string[]>();
const WORD_MEMO = 1 << 16;
let wordMemoLexicon = '';

function wordTokens(word: string): readonly string[] {
  if (wordMemoLexicon !== lexiconVersion()) {
    wordMemo.clear();
    wordMemoLexicon = lexiconVersion();
  }
  const known = wordMemo.get(word);
  if (known !== undefined) return known;
  const tokens = tokensOf(word);
  if (wordMemo.size >= WORD_MEMO) wordMemo.clear();
  wordMemo.set(word, tokens);
  return tokens;
}

const NAME_JOINERS: ReadonlySet<string> = new Set(['and', 'of', 'de', 'del', '&']);

/**
 * Tokens of words written with a capital in the original text (names), canonicalised: each word alone, and each run
 * of capitalised words (joined by `and`, `of`, `de`, `&`) as one name, so a name the lexicon spells in several words
 * (`Man City` → manchester city) reads as the lexicon's words.
 */
function properTokens(text: string): Set<string> {
  const out = new Set<string>();
  const raw = text.split(/[^\p{L}\p{N}$&.'-]+/u);
  let run: string[] = [];
  const flush = () => {
    while (run.length > 0 && NAME_JOINERS.has(run[run.length - 1] ?? '')) run.pop();
    if (run.length > 1) for (const t of tokensOf(run.join(' '))) out.add(t);
    run = [];
  };
  for (const w of raw) {
    // A name word starts with a capital, or with digits then letters (`76ers`, `49ers`).
    if (!/^(?:\p{Lu}|\p{N}+\p{L})/u.test(w)) {
      if (run.length > 0 && NAME_JOINERS.has(w)) run.push(w);
      else flush();
      continue;
    }
    run.push(w);
    for (const t of wordTokens(w)) out.add(t);
  }
  flush();
  return out;
}

// A name of up to four capitalised words, which may be joined by `and`, `of`, `de`, `&` (`Bosnia and Herzegovina`),
// before the verb of a contest: `win`, `be elected`, or `be the … champion/winner/MVP` (`Will Lando Norris be the 2026
// F1 Drivers' Champion?`, predict.fun's wording).
const WINNER_RE =
  /(?:^|\bwill\s+|\bcan\s+)(?:the\s+)?((?:\p{Lu}[\p{L}\p{N}.'&-]*\s+(?:(?:and|of|de|del|&)\s+)?){0,3}(?:\p{Lu}|\p{N}+\p{L})[\p{L}\p{N}.'&-]*)\s+(?:to\s+)?(?:win|beat|defeat|be elected|be the nominee|be nominated|be\s+(?:the\s+)?(?=[^?]{0,60}\b(?:[Cc]hampions?|[Ww]inners?|MVP)\b)|finish|come)\b/u;
/** The person someone picks (`Will Trump next nominate Kevin Warsh as Fed Chair?`): the option is the object. */
const PICKED_RE =
  /\b(?:nominate|appoint|pick|name|choose|select)\s+((?:\p{Lu}[\p{L}\p{N}.'&-]*\s+){0,3}\p{Lu}[\p{L}\p{N}.'&-]*)\s+(?:as|for|to)\b/u;

const PLACES: ReadonlyMap<string, number> = new Map([
  ['second', 2],
  ['2nd', 2],
  ['runner-up', 2],
  ['runner up', 2],
  ['third', 3],
  ['3rd', 3],
  ['fourth', 4],
  ['4th', 4],
]);
const PLACE_RE =
  /\b(?:finish(?:es)?\s+(?:in\s+)?|comes?\s+(?:in\s+)?)?(second|2nd|third|3rd|fourth|4th|runner[- ]up)(?:\s+place)?\b/;

/** A finishing place other than first, cut out of folded text so the words left compare as the event's. */
function cutPlace(rest: string): { place: number | null; rest: string } {
  const m = PLACE_RE.exec(rest);
  if (!m) return { place: null, rest };
  return {
    place: PLACES.get(m[1] ?? '') ?? null,
    rest: rest.slice(0, m.index) + ' '.repeat(m[0].length) + rest.slice(m.index + m[0].length),
  };
}

/** The option a question asks about: what its words add to the event title, or the named winner. */
function optionTokens(
  question: string,
  context: string | null,
  eventTokens: ReadonlySet<string>,
  questionTokens: ReadonlySet<string>,
): string[] {
  const out = new Set<string>();
  if (context !== null) {
    const dash = question.lastIndexOf(' - ');
    if (dash > 0 && question.slice(0, dash).trim() === context.trim()) {
      for (const t of tokensOf(question.slice(dash + 3))) out.add(t);
    } else {
      for (const t of properTokens(question)) {
        if (questionTokens.has(t) && !eventTokens.has(t) && !INTERROGATIVES.has(t)) out.add(t);
      }
    }
  }
  if (out.size === 0) {
    const asked = question.replace(/^\s*will\s+/i, 'will ');
    const m = WINNER_RE.exec(asked) ?? PICKED_RE.exec(asked);
    const named = m?.[1];
    if (named)
      for (const t of tokensOf(named)) if (questionTokens.has(t) && !INTERROGATIVES.has(t)) out.add(t);
  }
  return [...out].sort();
}

/** An option named after ` - `: its tokens, or the folded text itself when it is all numbers (`10–15s`, `15s+`). */
function dashOption(text: string): string[] {
  // An option that is only a date (`Before July 2026`, Kalshi's deadlines): the date says it, not a name.
  const dated = extractDates(canonicalPhrases(fold(text)), null);
  if (dated.dates.length > 0 && contentTokens(dated.rest).length === 0) return [];
  const tokens = tokensOf(text);
  if (tokens.length > 0) return tokens.sort();
  // An option that is only a line (`Above $99,999.99`, Kalshi's strikes): the threshold says it, not a name.
  if (extractThreshold(fold(text), false) !== null) return [];
  const raw = fold(text).replace(/\s+/g, '');
  return raw.length > 0 ? [raw] : [];
}

function pickDate(
  question: Parsed,
  context: Parsed | null,
  rules: Parsed | null,
  ticker: DateMention | null,
  endDay: string | null,
): MarketDate | null {
  const fromText = question.dates[0] ?? context?.dates[0];
  const ruleDay = rules?.dates.find((d) => d.precision === 'day' && !d.iso.startsWith('????'));
  if (fromText) {
    // A month in the title (`at their July 2027 meeting`) is refined by a day in that month from the rules.
    if (fromText.precision === 'month' && ruleDay && ruleDay.iso.startsWith(fromText.iso)) {
      return { iso: ruleDay.iso, precision: 'day', source: 'rules', preposition: ruleDay.preposition };
    }
    if (fromText.endOf && fromText.precision === 'month' && !fromText.iso.startsWith('????')) {
      const [y, mo] = fromText.iso.split('-').map(Number);
      const last = new Date(Date.UTC(y ?? 2000, mo ?? 1, 0)).toISOString().slice(0, 10);
      return { iso: last, precision: 'day', source: 'text', preposition: 'by' };
    }
    return {
      iso: fromText.iso,
      precision: fromText.precision,
      source: 'text',
      preposition: fromText.preposition,
    };
  }
  const fromRules = rules?.dates.find((d) => !d.iso.startsWith('????'));
  if (fromRules)
    return {
      iso: fromRules.iso,
      precision: fromRules.precision,
      source: 'rules',
      preposition: fromRules.preposition,
    };
  if (ticker) return { iso: ticker.iso, precision: ticker.precision, source: 'ticker', preposition: null };
  if (endDay) return { iso: endDay, precision: 'day', source: 'end', preposition: null };
  return null;
}

/**
 * The question without the venue's leading bracketed labels (Polymarket's `[Single Market] Will …`): a label
 * says how the venue lists the market, not what it asks, and would hide the `Will <name> win` shape.
 */
export function withoutTags(question: string): string {
  return question.replace(/^\s*(?:\[[^\]]{1,40}\]\s*)+/, '').trim();
}

function endInstant(timestamp: string | null | undefined): number | null {
  if (!timestamp) return null;
  const t = Date.parse(timestamp);
  return Number.isFinite(t) ? t : null;
}

/**
 * `<a question>? - <option>`: a venue's event question followed by the option this market is (Kalshi markets whose
 * title is the event's question and whose option is only in `yes_sub_title`, Opinion children): the question part.
 */
function askedThenOption(question: string): string | null {
  const at = question.indexOf('? - ');
  return at > 0 && question.length > at + 4 ? question.slice(0, at + 1) : null;
}

export function extractFeatures(m: MatchInput): MatchFeatures {
  const endDay = isoDay(m.end_date);
  const reference = endDay === null ? null : new Date(`${endDay}T12:00:00Z`);
  // A Kalshi market known by its ticker alone (a record without its title) reads as the title its series' grammar
  // spells (lexicon/kalshi-tickers.json).
  const untitled =
    m.exchange === 'kalshi' &&
    m.exchange_market_id !== undefined &&
    m.question.trim() === m.exchange_market_id;
  const rebuilt = untitled ? kalshiTitleFromTicker(m.exchange_market_id as string) : null;
  const question = rebuilt || withoutTags(m.question);
  const groupTitle = untitled && m.group_title === m.question ? '' : (m.group_title ?? '').trim();
  const context =
    groupTitle.length > 0 && groupTitle !== question && !question.includes(groupTitle) ? groupTitle : null;
  const dashContext =
    groupTitle.length > 0 && question.startsWith(`${groupTitle} - `)
      ? groupTitle
      : (askedThenOption(question) ?? context);
  const q = parse(question, reference);
  const c = dashContext === null ? null : parse(dashContext, reference);
  // The rules are read only when the title leaves the date or the condition open (most titles say both).
  const rulesText = (m.rules || m.description || '').slice(0, 600);
  let parsedRules: Parsed | null | undefined;
  const rules = (): Parsed | null => {
    if (parsedRules === undefined) parsedRules = rulesText.length > 0 ? parse(rulesText, reference) : null;
    return parsedRules;
  };
  const ticker =
    m.exchange === 'kalshi' && m.exchange_market_id ? kalshiTickerDate(m.exchange_market_id) : null;

  const questionTokens = new Set(contentTokens(q.rest).map(canonicalToken));
  const tokenSet = new Set<string>(questionTokens);
  const eventTokens = new Set<string>();
  if (c) for (const t of contentTokens(c.rest).map(canonicalToken)) eventTokens.add(t);
  for (const t of eventTokens) tokenSet.add(t);
  const seriesEntity =
    m.exchange === 'kalshi' && m.exchange_market_id ? kalshiSeriesEntity(m.exchange_market_id) : null;
  if (seriesEntity) tokenSet.add(seriesEntity);

  // Opinion's categorical children (`parent - option`): one option of one outcome, exclusive by construction.
  const dashLayout = dashContext !== null && question.startsWith(`${dashContext} - `);
  let option = dashLayout
    ? dashOption(question.slice(dashContext.length + 3))
    : optionTokens(question, context, eventTokens, questionTokens);
  // A Kalshi option named by its ticker code in a series the lexicon lists (KXNBA-26-LAL, titled only `Los Angeles
  // L`): the lexicon's name for it, so it compares with the full name other venues write.
  const coded = m.exchange === 'kalshi' && m.exchange_market_id ? kalshiOptionId(m.exchange_market_id) : null;
  if (coded !== null) option = [...new Set(tokensOf(coded.replace(/_/g, ' ')))].sort();
  for (const t of option) tokenSet.add(t);
  const tokens = [...tokenSet].sort();
  const optionSet = new Set(option);
  const event = tokens.filter((t) => !optionSet.has(t));
  const entities = tokens.filter(isEntity);
  const proper = properTokens(`${question} ${dashContext ?? ''}`);
  const names = event.filter((t) => proper.has(t) && !INTERROGATIVES.has(t));
  // A rate decision: the Fed (or `interest rates`) and a word of a decision; `Fed Chair` nominations are not one.
  const rate =
    /\binterest rates?\b/.test(q.rest) ||
    (entities.includes('fed') &&
      /\b(?:rates?|bps|basis points?|cut|hike|hold|decision|meeting)\b/.test(q.rest));

  // An Opinion categorical child carries its parent's rules, which describe every option (`10–15s — resolves YES
  // if no handshake exceeds 15 seconds. 15s+ — …`): a condition read there belongs to no child in particular.
  const sharedRules = m.exchange === 'opinion' && dashLayout;
  const threshold = asTouch(
    extractThreshold(q.rest, rate) ??
      (c ? extractThreshold(c.rest, rate) : null) ??
      (!sharedRules && rules() ? extractThreshold((rules() as Parsed).rest, rate) : null),
    fold(`${question} ${groupTitle}`),
  );
  const titleDate = q.dates[0] ?? c?.dates[0];
  const needRules =
    titleDate === undefined || titleDate.precision !== 'day' || titleDate.iso.startsWith('????');
  const date = pickDate(q, c, needRules ? rules() : null, ticker, endDay);
  const time = q.times[0] ?? c?.times[0] ?? null;
  const allText = `${fold(question)} ${fold(groupTitle)}`;
  const pointEvent = tokens.some((t) => POINT_EVENT_TOKENS.has(t));
  const cumulative =
    !rate && !pointEvent && date !== null && (date.preposition === 'by' || date.preposition === 'before');
  const exclusive = rate || dashLayout || EXCLUSIVE_CUES.test(allText);
  const yearWindow =
    !rate &&
    !pointEvent &&
    !exclusive &&
    threshold === null &&
    date !== null &&
    date.precision === 'year' &&
    date.preposition === 'in' &&
    !date.iso.startsWith('????');

  const touch = threshold?.comparator === 'touch_up' || threshold?.comparator === 'touch_down';
  const window = touch ? windowOf(date, cumulative, windowHint(allText)) : null;
  const endAt = endInstant(m.end_date);
  // The day the market states (title, rules or Kalshi ticker), year known; an end date alone is the close time.
  const lastDay = date === null || date.source === 'end' ? null : deadlineDay(date);
  const statedDay =
    lastDay === null ? null : { iso: lastDay, source: date?.source as 'text' | 'rules' | 'ticker' };
  const resolution = resolutionFacts({
    question: `${question} ${groupTitle}`,
    rules: m.rules || m.description || '',
    statedDay,
    endAt,
    hasThreshold: threshold !== null,
  });

  return {
    svcId: m.svc_id,
    exchange: m.exchange,
    group: m.svc_group_id ?? null,
    tokens,
    option,
    event: event.length > 0 ? event : tokens,
    names,
    entities,
    threshold,
    date,
    endDay,
    endAt,
    time,
    rate,
    cumulative,
    ...(yearWindow ? { yearWindow } : {}),
    exclusive,
    place: q.place ?? c?.place ?? null,
    window,
    resolution,
    ...(untitled && !rebuilt ? { unread: true } : {}),
    fingerprint: fingerprintOf(m),
  };
}

/**
 * The last day a stated date leaves the market open, year known: the day itself; a month's or a year's last day
 * (`in April 2026`, `in 2026`); the day before a month or year a market must happen `before` (`before 2027` is by
 * December 31, 2026). null for a date without its year.
 */
export function deadlineDay(date: MarketDate): string | null {
  if (date.iso.startsWith('????')) return null;
  if (date.precision === 'day') return date.iso;
  const [y = 0, m] = date.iso.split('-').map(Number);
  const before = date.preposition === 'before';
  if (date.precision === 'year') return before ? `${y - 1}-12-31` : `${y}-12-31`;
  const month = m ?? 1;
  // Day 0 of the next month is this month's last; day 0 of this month is the previous month's last.
  const last = new Date(Date.UTC(y, before ? month - 1 : month, 0));
  return last.toISOString().slice(0, 10);
}

/** Tokens of the event: everything but the option. */
export function eventTokens(f: MatchFeatures): string[] {
  return f.event;
}
