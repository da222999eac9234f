// Blocking: which pairs of markets are worth comparing. A market is indexed under keys made of one of its event
// tokens, its date at its own precision and its threshold, and probes keys that can only hold markets it may equal;
// two markets are candidates when a probe of one meets an index key of the other. Days probe days; a month-level
// date ("at their July 2027 meeting") probes every day of that month; a date known only from the end date probes
// the day before and after. Nothing is compared across unrelated subjects, days or thresholds, so the work grows
// with the size of blocks, not with the square of the catalogue.
//
// A market with no date at all (no title, rules, ticker or end date) may be any date's market: it is compared with
// the dated markets of its subject through lookups only (crossDateKeys), never through stored keys, so the dated
// catalogue pays nothing for the rare undated market (see MatchEngine.candidates).
//
// Ladders (nested thresholds on one subject and day, Fed amounts at one meeting, deadlines of one question) are
// grouped without the threshold (or without the date) and linked to their nearest rungs only, per exchange.
import { shiftDay } from '../../domain/matching/dates.js';
import type { MatchFeatures } from '../../domain/matching/features.js';
import { valueKey } from '../../domain/matching/thresholds.js';

export interface BlockKeys {
  index: string[];
  probe: string[];
}

function thresholdPart(f: MatchFeatures): string {
  const t = f.threshold;
  if (t === null) return '-';
  return `${t.comparator}:${valueKey(t.value)}${t.high === null ? '' : `:${valueKey(t.high)}`}`;
}

function dateParts(f: MatchFeatures): { index: string[]; probe: string[] } {
  const d = f.date;
  if (d === null) return { index: ['n'], probe: ['n'] };
  switch (d.precision) {
    case 'day': {
      const month = d.iso.slice(0, 7);
      if (d.source === 'end') {
        return {
          index: [`d:${d.iso}`, `m:${month}`],
          probe: [`d:${shiftDay(d.iso, -1)}`, `d:${d.iso}`, `d:${shiftDay(d.iso, 1)}`],
        };
      }
      // A day a title gives without its year (`by March 31?`) may be any year's: it probes the day of the year
      // (`dy:`) every dated day is indexed under too, and month-level markets through `my:`.
      if (d.iso.startsWith('????')) {
        return {
          index: [`d:${d.iso}`, `m:${month}`, `my:${d.iso.slice(5, 7)}`],
          probe: [`d:${d.iso}`, `dy:${d.iso.slice(5)}`],
        };
      }
      return {
        index: [`d:${d.iso}`, `m:${month}`, `dy:${d.iso.slice(5)}`, `my:${d.iso.slice(5, 7)}`],
        probe: [`d:${d.iso}`],
      };
    }
    case 'month':
      if (d.iso.startsWith('????')) {
        return { index: [`mc:${d.iso}`], probe: [`m:${d.iso}`, `mc:${d.iso}`, `my:${d.iso.slice(5, 7)}`] };
      }
      return { index: [`mc:${d.iso}`], probe: [`m:${d.iso}`, `mc:${d.iso}`] };
    default:
      return { index: [`yc:${d.iso}`], probe: [`yc:${d.iso}`] };
  }
}

/** Tokens a market is blocked on: its event tokens (named entities first), or its option when it has no others. */
export function blockTokens(f: MatchFeatures): string[] {
  return f.event.length > 0 ? f.event : f.option;
}

export function blockKeys(f: MatchFeatures): BlockKeys {
  const thr = thresholdPart(f);
  const dates = dateParts(f);
  const index: string[] = [];
  const probe: string[] = [];
  for (const token of blockTokens(f)) {
    for (const d of dates.index) index.push(`${token}|${d}|${thr}`);
    for (const d of dates.probe) probe.push(`${token}|${d}|${thr}`);
  }
  return { index, probe };
}

/** Ladder groups: same subject token, date and comparator; the rungs are the thresholds. */
export function ladderKeys(f: MatchFeatures): string[] {
  const t = f.threshold;
  if (t === null) return [];
  const keys: string[] = [];
  if (t.comparator !== 'eq' || f.rate) {
    // Every decision at one meeting is in one group (`rate`): cut 25, hold and 25+ hike exclude each other.
    const family = f.rate && t.unit === 'bps' ? 'rate' : t.comparator;
    // Undated lines of one subject (`FDV above $1B one day after launch?`) ladder together under `n`.
    for (const token of blockTokens(f)) keys.push(`L|${token}|${f.date?.iso ?? 'n'}|${family}|${t.unit}`);
    if (f.date === null) return keys;
    // A touch over a month (`reach $80,000 in April`, often given without its year) meets the same month's touches
    // on another venue whatever day closes them (Kalshi's `…-26APR30-…`): one group per month of the year.
    if ((t.comparator === 'touch_up' || t.comparator === 'touch_down') && f.date.precision !== 'year') {
      const month = f.date.iso.slice(5, 7);
      for (const token of blockTokens(f)) keys.push(`L|${token}|my:${month}|${family}|${t.unit}`);
    }
  }
  return keys;
}

/**
 * Deadline ladders: same subject token and threshold, cumulative phrasing (or a one-off over a year, whose rung is
 * the year's end); the rungs are the dates.
 */
export function deadlineKeys(f: MatchFeatures): string[] {
  if (f.date === null) return [];
  if (f.yearWindow !== true && (!f.cumulative || f.date.precision === 'year')) return [];
  const thr = thresholdPart(f);
  return blockTokens(f).map((token) => `D|${token}|${thr}`);
}

/**
 * Window groups: touches of one subject and direction over a span (a month, a year, up to a deadline). Their pairs
 * across exchanges are compared (comparePair's window rule decides what nests); a market's own deadline ladder
 * (`D|`) already links its venue's rungs.
 */
export function windowKeys(f: MatchFeatures): string[] {
  const t = f.threshold;
  if (f.window === null || t === null) return [];
  return blockTokens(f).map((token) => `W|${token}|${t.comparator}|${t.unit === 'count' ? 'usd' : t.unit}`);
}

/** The numeric rung of a market in a ladder group: its threshold, or its date (days since the epoch). */
export function rungOf(f: MatchFeatures, key: string): number {
  if (key.startsWith('D|')) {
    let iso = f.date?.precision === 'year' ? `${f.date.iso}-12-31` : (f.date?.iso ?? '');
    // A day given without its year (`by June 30?`) is the closing year's; with no close either, it has no rung (NaN).
    if (iso.startsWith('????') && f.endDay !== null) iso = f.endDay.slice(0, 4) + iso.slice(4);
    // (Date.parse reads `????-06-30` as a day of 2001: the yearless day is told apart before it is parsed.)
    if (iso.startsWith('????')) return Number.NaN;
    return Math.floor(Date.parse(iso.padEnd(10, '-01').slice(0, 10)) / 86_400_000);
  }
  return f.threshold?.value ?? 0;
}

/**
 * The coarse date parts a dated market is indexed under: its month (`m:` for a day, `mc:` for a month) or its year
 * (`yc:`). Every dated market has exactly one, so probing a subject token under every coarse part the catalogue
 * holds reaches every dated market of that subject, whatever its day.
 */
export function coarseDatePart(f: MatchFeatures): string | null {
  return (
    dateParts(f).index.find((p) => p.startsWith('m:') || p.startsWith('mc:') || p.startsWith('yc:')) ?? null
  );
}

/**
 * What an undated market looks up to meet the dated markets of its subject, or a dated market to meet the undated
 * ones, per subject token: `others` are the keys to read, `own` the key of this side's own block, which must be
 * within the size limit too. Lookups only, each side the mirror of the other (an undated market reads every coarse
 * date part under `n`-blocked tokens, a dated one reads `n` under its own coarse part), so the candidate relation
 * stays symmetric, an incremental relink sees what a full one does, and nothing is stored for it.
 */
export function crossDateProbes(
  f: MatchFeatures,
  coarseParts: Iterable<string>,
): Array<{ own: string; others: string[] }> {
  const thr = thresholdPart(f);
  if (f.date === null) {
    const parts = [...coarseParts];
    return blockTokens(f).map((token) => ({
      own: `${token}|n|${thr}`,
      others: parts.map((part) => `${token}|${part}|${thr}`),
    }));
  }
  const part = coarseDatePart(f);
  if (part === null) return [];
  return blockTokens(f).map((token) => ({ own: `${token}|${part}|${thr}`, others: [`${token}|n|${thr}`] }));
}
