// Kalshi's fixed-point wire units, kept as integers inside the simulator: money in micro-dollars (responses carry
// 4 or 6 decimals of dollars), contract counts in hundredths (`*_fp` strings always carry 2 decimals), balances in
// cents where the exchange still reports them. Parsing is strict, the way the exchange validates requests.

export const ONE_DOLLAR = 1_000_000;

/** Micro-dollars → "0.5600" (4 decimals, the price format) or "0.017500" (6 decimals, costs and fees). */
export function dollars(micros: number, decimals: 4 | 6 = 4): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(Math.round(micros));
  const whole = Math.floor(abs / ONE_DOLLAR);
  const frac = String(abs % ONE_DOLLAR).padStart(6, '0');
  return `${sign}${whole}.${frac.slice(0, decimals)}`;
}

/** Hundredths of a contract → "10.00". */
export function count(centis: number): string {
  const sign = centis < 0 ? '-' : '';
  const abs = Math.abs(Math.round(centis));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Micro-dollars → whole cents, truncated (the `balance` field is truncated, as recorded on the demo exchange). */
export function cents(micros: number): number {
  return Math.trunc(micros / 10_000);
}

/** "0.56" / "0.5600" (2 to 4 decimals, as requests accept) → micro-dollars; null when malformed. */
export function parseDollars(raw: string, maxDecimals = 4): number | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(raw);
  if (!m) return null;
  const frac = m[2] ?? '';
  if (frac.length > maxDecimals) return null;
  return Number(m[1]) * ONE_DOLLAR + Number(frac.padEnd(6, '0'));
}

/** "10", "10.0", "10.00" (0 to 2 decimals) → hundredths; null when malformed. */
export function parseCount(raw: string): number | null {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(raw);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/** Cost of `centis` contracts at `priceMicros` each, in micro-dollars (exact: prices are whole centi-cents). */
export function costOf(priceMicros: number, centis: number): number {
  return (priceMicros * centis) / 100;
}

/**
 * Kalshi's general trading fee, 0.07 × C × P × (1 − P), rounded up to the next $0.0001 (docs: fee rounding; the
 * recorded demo fill at 0.52 for one contract paid 0.0175). BigInt keeps large orders exact.
 */
export function takerFee(priceMicros: number, centis: number): number {
  const raw = 7n * BigInt(centis) * BigInt(priceMicros) * BigInt(ONE_DOLLAR - priceMicros);
  const denominator = 10_000n * BigInt(ONE_DOLLAR);
  const micros = (raw + denominator - 1n) / denominator;
  const step = 100n;
  return Number(((micros + step - 1n) / step) * step);
}

/** RFC 3339 with microseconds, as the exchange prints timestamps ("2026-06-11T06:29:20.866753Z"). */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** RFC 3339 without fractions ("2099-08-01T04:59:00Z"), as market schedule times are printed. */
export function plainTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
