// The history a caller's tier may read (wire contract §1: free 5 days, pro 30, scale unlimited): a window that
// starts earlier is the client's 400, and a default window is clamped to the tier rather than refused.
import { validationError } from '../../errors/app-error.js';
import type { CallerContext } from '../caller-context.js';

const DAY_S = 86_400;

/** The earliest Unix second the caller may read, or null when the tier is unlimited. */
export function tierWindowStart(caller: CallerContext, nowS: number): number | null {
  return caller.historyMaxAgeDays > 0 ? nowS - caller.historyMaxAgeDays * DAY_S : null;
}

/** 400 when a window the client asked for starts before its tier's history window. */
export function assertInTierWindow(
  startTs: number,
  caller: CallerContext,
  nowS: number,
  param: string,
): void {
  const earliest = tierWindowStart(caller, nowS);
  if (earliest !== null && startTs < earliest) {
    throw validationError([
      `${param} is older than this key's tier allows: history goes back ${caller.historyMaxAgeDays} days ` +
        `(to ${new Date(earliest * 1000).toISOString()})`,
    ]);
  }
}

/** A default start clamped to the tier window. */
export function clampToTierWindow(startTs: number, caller: CallerContext, nowS: number): number {
  const earliest = tierWindowStart(caller, nowS);
  return earliest === null ? startTs : Math.max(startTs, earliest);
}
