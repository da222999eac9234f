// Dates and times in market text, whatever the venue's style: `Jul 15, 2027`, `July 15`, `15 July 2027`,
// `2027-07-15`, `7/15/2027`, `December 2025`, `2025 December`, `end of January`, `in 2028`, `11:59 PM UTC`, and
// Kalshi's ticker codes (`27JUL15`, `26DEC`). A date without a year takes the year that puts it closest to the
// market's end date. Each mention is cut out of the text so its digits are never read as a threshold.

export type DatePrecision = 'day' | 'month' | 'year';
/** The word before the date: `by`/`before` make a deadline (cumulative), `on`/`at` a point, `in` a window. */
export type DatePreposition = 'by' | 'before' | 'on' | 'in' | 'at' | 'of' | 'after' | null;

export interface DateMention {
  /** `YYYY-MM-DD`, `YYYY-MM` or `YYYY` by precision; the year is `????` when unknown and not inferable. */
  iso: string;
  precision: DatePrecision;
  preposition: DatePreposition;
  /** `end of January` style: the last day of the month is meant. */
  endOf: boolean;
}

export interface TimeMention {
  /** Minutes after midnight. */
  minutes: number;
  zone: string | null;
}

const MONTHS: ReadonlyMap<string, number> = new Map([
  ['jan', 1],
  ['january', 1],
  ['feb', 2],
  ['february', 2],
  ['mar', 3],
  ['march', 3],
  ['apr', 4],
  ['april', 4],
  ['may', 5],
  ['jun', 6],
  ['june', 6],
  ['jul', 7],
  ['july', 7],
  ['aug', 8],
  ['august', 8],
  ['sep', 9],
  ['sept', 9],
  ['september', 9],
  ['oct', 10],
  ['october', 10],
  ['nov', 11],
  ['november', 11],
  ['dec', 12],
  ['december', 12],
]);
const MONTH_RE =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const PREP_RE = '(?:\\b(by|before|on|in|at|of|after|until|through|end of)\\s+(?:the\\s+)?)?';
const NOT_AMOUNT = '(?![\\d.,]*\\s*(?:k\\b|m\\b|bn?\\b|%|°|bps|usd|\\$))';

const PATTERNS: ReadonlyArray<{
  re: RegExp;
  read: (m: RegExpExecArray) => Omit<DateMention, 'preposition'> | null;
}> = [
  {
    re: new RegExp(`${PREP_RE}\\b(\\d{4})-(\\d{2})-(\\d{2})\\b`, 'g'),
    read: (m) => day(Number(m[2]), Number(m[3]), Number(m[4])),
  },
  {
    re: new RegExp(
      // A span of days (`around May 14-15, 2026`, a summit) reads as its first day, with the span's year; a
      // dash before a time (`March 11 - 12:00PM`) is no span.
      `${PREP_RE}\\b(${MONTH_RE})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:\\s*[-–]\\s*\\d{1,2}(?:st|nd|rd|th)?(?![:\\d]|\\s*[ap]\\.?m\\b))?\\b(?:,?\\s+(\\d{4})\\b)?${NOT_AMOUNT}`,
      'g',
    ),
    read: (m) => day(m[4] ? Number(m[4]) : null, monthOf(m[2]), Number(m[3])),
  },
  {
    re: new RegExp(
      `${PREP_RE}\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH_RE})\\b\\.?(?:,?\\s+(\\d{4})\\b)?`,
      'g',
    ),
    read: (m) => day(m[4] ? Number(m[4]) : null, monthOf(m[3]), Number(m[2])),
  },
  {
    re: new RegExp(`${PREP_RE}\\b(\\d{1,2})/(\\d{1,2})/(\\d{4}|\\d{2})\\b`, 'g'),
    read: (m) => day(fullYear(Number(m[4])), Number(m[2]), Number(m[3])),
  },
  {
    re: new RegExp(`${PREP_RE}\\b(${MONTH_RE})\\.?,?\\s+(\\d{4})\\b`, 'g'),
    read: (m) => month(Number(m[3]), monthOf(m[2])),
  },
  {
    // Year first (`after 2024 September meeting`, `the 2026 December FOMC`): a month, as `September 2024` is.
    re: new RegExp(`${PREP_RE}(?<![$\\d.,])\\b(20\\d{2})\\s+(${MONTH_RE})\\b\\.?(?!\\s*\\d)`, 'g'),
    read: (m) => month(Number(m[2]), monthOf(m[3])),
  },
  {
    re: new RegExp(`${PREP_RE}\\b(${MONTH_RE})\\b(?!\\s*\\d)`, 'g'),
    // A bare month name (`end of January`, `in March`) only counts after a preposition: `may` is also a verb.
    read: (m) => (m[1] ? month(null, monthOf(m[2])) : null),
  },
  {
    // A season over two calendar years (`the 2025–26 La Liga`, `2025-2026 NBA MVP`, `2025/26`) is decided in its
    // later year: it reads as that year, as `La Liga Winner 2026` and `2026 NBA Champion` name it.
    re: new RegExp(`${PREP_RE}(?<![$\\d.,])\\b(20\\d{2})\\s*[-/]\\s*(20\\d{2}|\\d{2})\\b(?![-/]\\d)`, 'g'),
    read: (m) => {
      const first = Number(m[2]);
      const second = m[3]?.length === 2 ? Math.floor(first / 100) * 100 + Number(m[3]) : Number(m[3]);
      return second === first + 1 ? { iso: String(second), precision: 'year', endOf: false } : null;
    },
  },
  {
    re: new RegExp(`${PREP_RE}(?<![$\\d.,])\\b(20\\d{2})\\b${NOT_AMOUNT}`, 'g'),
    read: (m) => ({ iso: String(m[2]), precision: 'year', endOf: false }),
  },
];

function monthOf(name: string | undefined): number {
  return MONTHS.get(name ?? '') ?? MONTHS.get((name ?? '').slice(0, 3)) ?? 0;
}

function fullYear(y: number): number {
  return y < 100 ? 2000 + y : y;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function day(year: number | null, m: number, d: number): Omit<DateMention, 'preposition'> | null {
  if (m < 1 || m > 12 || d < 1 || d > 31) return null;
  return { iso: `${year === null ? '????' : year}-${pad(m)}-${pad(d)}`, precision: 'day', endOf: false };
}

function month(year: number | null, m: number): Omit<DateMention, 'preposition'> | null {
  if (m < 1 || m > 12) return null;
  return { iso: `${year === null ? '????' : year}-${pad(m)}`, precision: 'month', endOf: false };
}

function preposition(raw: string | undefined): DatePreposition {
  switch (raw) {
    case 'by':
    case 'until':
    case 'through':
    case 'end of':
      return 'by';
    case 'before':
      return 'before';
    case 'on':
    case 'at':
    case 'in':
    case 'of':
    case 'after':
      return raw;
    default:
      return null;
  }
}

/** Every date in folded text, in order of appearance, and the text with them blanked out. */
export function extractDates(folded: string, reference: Date | null): { dates: DateMention[]; rest: string } {
  const found: Array<{ at: number; mention: DateMention }> = [];
  let rest = folded;
  for (const { re, read } of PATTERNS) {
    re.lastIndex = 0;
    rest = rest.replace(re, (...args: unknown[]) => {
      const match = args.slice(0, -2) as unknown as RegExpExecArray;
      const at = args[args.length - 2] as number;
      const base = read(match);
      if (base === null) return String(match[0]);
      const prep = preposition(match[1]);
      const mention: DateMention = {
        ...base,
        preposition: prep,
        endOf: match[1] === 'end of' || base.endOf,
      };
      found.push({ at, mention: inferYear(mention, reference) });
      return ' '.repeat(String(match[0]).length);
    });
  }
  found.sort((a, b) => a.at - b.at);
  return { dates: found.map((f) => f.mention), rest };
}

/** Fills a missing year from the reference date (the market's end date): the nearest such date. */
function inferYear(mention: DateMention, reference: Date | null): DateMention {
  if (!mention.iso.startsWith('????') || reference === null) return mention;
  const refYear = reference.getUTCFullYear();
  const rest = mention.iso.slice(4);
  let best = mention.iso;
  let bestGap = Number.POSITIVE_INFINITY;
  for (const year of [refYear - 1, refYear, refYear + 1]) {
    const candidate = `${year}${rest}`;
    const t = Date.parse(mention.precision === 'day' ? candidate : `${candidate}-01`);
    const gap = Math.abs(t - reference.getTime());
    if (Number.isFinite(gap) && gap < bestGap) {
      bestGap = gap;
      best = candidate;
    }
  }
  return { ...mention, iso: best };
}

const TIME_RE =
  /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b(?:\s*(utc|gmt|et|est|edt|pt|pst|pdt|ct|cst|cdt))?|\b(\d{1,2}):(\d{2})\b(?:\s*(utc|gmt|et|est|edt|pt|pst|pdt|ct|cst|cdt))?/g;

/** Times of day (`11:59 PM UTC`, `12PM ET`, `23:59 UTC`), and the text with them blanked out. */
export function extractTimes(folded: string): { times: TimeMention[]; rest: string } {
  const times: TimeMention[] = [];
  const rest = folded.replace(TIME_RE, (whole, h12, m12, ampm, z12, h24, m24, z24) => {
    if (h12 !== undefined) {
      const h = (Number(h12) % 12) + (ampm === 'pm' ? 12 : 0);
      times.push({ minutes: h * 60 + Number(m12 ?? 0), zone: z12 ?? null });
    } else {
      const h = Number(h24);
      if (h > 23) return whole;
      times.push({ minutes: h * 60 + Number(m24), zone: z24 ?? null });
    }
    return ' '.repeat(whole.length);
  });
  return { times, rest };
}

const MONTH_CODES: ReadonlyMap<string, number> = new Map(
  ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'].map((m, i) => [
    m,
    i + 1,
  ]),
);

/** The date a Kalshi ticker encodes (`KXBTCD-27JUL15-T…` → 2027-07-15, `KXFEDDECISION-26DEC` → 2026-12). */
export function kalshiTickerDate(ticker: string): DateMention | null {
  const m = /-(\d{2})([A-Z]{3})(\d{2})?(?:\d{2})?(?=-|$|[A-Z])/.exec(ticker);
  if (!m) return null;
  const month = MONTH_CODES.get(m[2] ?? '');
  if (month === undefined) return null;
  const year = 2000 + Number(m[1]);
  if (m[3] !== undefined)
    return { iso: `${year}-${pad(month)}-${m[3]}`, precision: 'day', preposition: null, endOf: false };
  return { iso: `${year}-${pad(month)}`, precision: 'month', preposition: null, endOf: false };
}

/** `YYYY-MM-DD` of an ISO timestamp, or null. */
export function isoDay(timestamp: string | null | undefined): string | null {
  if (!timestamp) return null;
  const t = Date.parse(timestamp);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 10) : null;
}

/** Days between two `YYYY-MM-DD` strings. */
export function dayGap(a: string, b: string): number {
  return Math.abs(Date.parse(a) - Date.parse(b)) / 86_400_000;
}

/** `YYYY-MM-DD` shifted by n days. */
export function shiftDay(iso: string, n: number): string {
  return new Date(Date.parse(iso) + n * 86_400_000).toISOString().slice(0, 10);
}
