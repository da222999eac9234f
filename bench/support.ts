// Helpers every benchmark script shares: its progress lines, integer settings from the environment, nearest-rank
// percentiles and a JSON fetch that fails loudly.

/** A progress line on standard error (standard output carries only the report). */
export function progress(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

/** A positive integer setting from the environment, `fallback` when unset; a bad value stops the run. */
export function envInt(name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new Error(`${name} must be an integer between 1 and ${max}, got '${raw}'`);
  }
  return n;
}

/** Nearest-rank percentile (p in 0..100) of values sorted ascending; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1] ?? Number.NaN;
}

export async function fetchJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}
