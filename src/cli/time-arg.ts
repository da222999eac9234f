// A time on the command line (`--from`, `--to`): an ISO 8601 time ("2026-12-02T04:00:00Z") or Unix seconds.
import { UsageError } from './args.js';

/** The time as Unix ms; a UsageError naming the flag for anything else. */
export function parseTimeArg(flag: string, text: string | undefined): number {
  if (text === undefined) throw new UsageError(`--${flag} TIME is required (ISO 8601 or Unix seconds)`);
  if (/^\d{1,12}$/.test(text)) return Number(text) * 1000;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 0)
    throw new UsageError(`--${flag} must be an ISO 8601 time or Unix seconds, not ${JSON.stringify(text)}`);
  return ms;
}
