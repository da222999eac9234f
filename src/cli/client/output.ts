// How the client commands print: aligned tables by default (numbers right-aligned), JSON with --json, and failures
// as one line on standard error with the API's code. Nothing printed here ever holds the API key or credentials:
// errors are the server's own messages, which never echo them.
import { OmnibookError, OmnibookStreamError } from '../../../clients/typescript/src/index.js';

export type Cell = string | number | boolean | null | undefined;

/** Rows under a header, each column as wide as its widest cell. */
export function table(header: string[], rows: Cell[][]): string {
  const text = rows.map((row) => row.map(cellText));
  const numeric = header.map(
    (_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] == null),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...text.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...text.map(line)].join('\n')}\n`;
}

/** `key  value` lines, keys aligned. */
export function fields(pairs: Array<[string, Cell]>): string {
  const width = Math.max(0, ...pairs.map(([k]) => k.length));
  return `${pairs.map(([k, v]) => `${k.padEnd(width)}  ${cellText(v)}`.trimEnd()).join('\n')}\n`;
}

function cellText(value: Cell): string {
  if (value === null || value === undefined) return '-';
  return String(value);
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Exit status of a failed call: 3 when trying again later may work (429, 503, no answer), 1 otherwise. */
export function failure(error: unknown): { code: number; line: string } | null {
  if (error instanceof OmnibookError) {
    const status = error.status === null ? 'no answer' : `HTTP ${error.status}`;
    const details = error.validationErrors.length > 0 ? ` [${error.validationErrors.join('; ')}]` : '';
    return { code: error.retryable ? 3 : 1, line: `${error.code} (${status}): ${error.message}${details}` };
  }
  if (error instanceof OmnibookStreamError) {
    return { code: error.retryable ? 3 : 1, line: `${error.reason}: ${error.message}` };
  }
  return null;
}

/** Prints the command's whole answer; exit status 0. */
export function done(out: (text: string) => void, text: string): number {
  out(text);
  return 0;
}
