// The time window a touch market watches: a touch (`reach $100,000`, `dip to $60,000`, a one-touch, the year's high)
// happens at some instant inside it. `in April` is April; `before July 2026` is everything before July 1; `by June 30`
// everything up to that day; `this year` / `yearly` the year of the market's date. A touch inside a window is a touch
// inside every window that contains it, so windows that nest give implications across venues that phrase the window
// differently (Kalshi's `When will bitcoin hit 100k? - Before July 2026` is implied by `reach $100,000 in April`).
import type { MarketDate } from './features.js';

/** Days since the epoch, inclusive at both ends; `from` -Infinity for a deadline with no start. `year` null = unknown. */
export interface Window {
  from: number;
  to: number;
  /** The year is unknown (`in April`): the window is that month of whichever year the other side says. */
  anyYear: boolean;
  /** Month and day parts, for windows of unknown year. */
  monthFrom: number;
  monthTo: number;
}

export type WindowHint = 'year' | 'month' | null;

const DAY = 86_400_000;

function day(y: number, m: number, d: number): number {
  return Math.floor(Date.UTC(y, m - 1, d) / DAY);
}

function lastDay(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** The window of a touch market's date, or null when it watches no span (a point in time, or no date). */
export function windowOf(date: MarketDate | null, cumulative: boolean, hint: WindowHint): Window | null {
  if (date === null) return null;
  const [ys, ms, ds] = date.iso.split('-');
  const anyYear = ys === '????';
  const y = anyYear ? 2000 : Number(ys);
  const m = ms === undefined ? null : Number(ms);
  const d = ds === undefined ? null : Number(ds);
  if (hint === 'year' && !anyYear) return span(day(y, 1, 1), day(y, 12, 31), false, 1, 12);
  if (date.precision === 'year') return anyYear ? null : span(day(y, 1, 1), day(y, 12, 31), false, 1, 12);
  if (m === null) return null;
  if (date.precision === 'month') {
    if (date.preposition === 'before')
      return anyYear ? null : span(Number.NEGATIVE_INFINITY, day(y, m, 1) - 1, false, 0, 0);
    if (date.preposition === 'by')
      return anyYear ? null : span(Number.NEGATIVE_INFINITY, day(y, m, lastDay(y, m)), false, 0, 0);
    return span(day(y, m, 1), day(y, m, lastDay(y, m)), anyYear, m, m);
  }
  if (d === null) return null;
  if (hint === 'month') return span(day(y, m, 1), day(y, m, lastDay(y, m)), anyYear, m, m);
  if (cumulative && !anyYear) return span(Number.NEGATIVE_INFINITY, day(y, m, d), false, 0, 0);
  return null;
}

function span(from: number, to: number, anyYear: boolean, monthFrom: number, monthTo: number): Window {
  return { from, to, anyYear, monthFrom, monthTo };
}

/** The window placed in a year: a window of unknown year takes the other side's year (its end's). */
function placed(w: Window, other: Window): Window | null {
  if (!w.anyYear) return w;
  if (other.anyYear) return null;
  const year = new Date(other.to * DAY).getUTCFullYear();
  return span(day(year, w.monthFrom, 1), day(year, w.monthTo, lastDay(year, w.monthTo)), false, 0, 0);
}

/** a ⊆ b (strictly smaller or equal); null when it cannot be told. */
export function inside(a: Window, b: Window): boolean | null {
  if (a.anyYear && b.anyYear) return a.monthFrom >= b.monthFrom && a.monthTo <= b.monthTo;
  const pa = placed(a, b);
  const pb = placed(b, a);
  if (pa === null || pb === null) return null;
  // A deadline's window starts when its market was listed, which no field says: a span is taken to be inside it
  // only within the deadline's own year (venues list `before <month> 2026` series per year), never a year before.
  if (!Number.isFinite(pb.from)) {
    if (!Number.isFinite(pa.from)) return null;
    const year = (n: number) => new Date(n * DAY).getUTCFullYear();
    if (year(pa.from) !== year(pb.to)) return false;
  }
  return pa.from >= pb.from && pa.to <= pb.to;
}

/** Both are deadlines (no start): the deadline ladder decides, not the window rule. */
export function bothDeadlines(a: Window, b: Window): boolean {
  return !Number.isFinite(a.from) && !Number.isFinite(b.from);
}

export function sameWindow(a: Window, b: Window): boolean {
  return inside(a, b) === true && inside(b, a) === true;
}

const YEAR_HINT = /\bthis year\b|\byearly\b|\bannual\b/;
const MONTH_HINT = /\bthis month\b|\bmonthly\b/;

/** What the wording says of the window beyond its date: the year or the month the date falls in. */
export function windowHint(folded: string): WindowHint {
  if (MONTH_HINT.test(folded)) return 'month';
  if (YEAR_HINT.test(folded)) return 'year';
  return null;
}
