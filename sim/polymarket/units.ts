// Fixed-point units of the simulated CLOB. Prices are integer micro-dollars (1e6 = $1) and every amount (collateral,
// shares) is an integer count of 6-decimal base units, as on chain; JSON decimals are produced only at the edge.

export const ONE = 1_000_000;

/** Base units → the decimal string Polymarket sends ("5.5", "667.12", "0"). */
export function fmtUnits(units: number): string {
  const neg = units < 0;
  const abs = Math.abs(Math.round(units));
  const whole = Math.floor(abs / ONE);
  const frac = abs % ONE;
  const body = frac === 0 ? String(whole) : `${whole}.${String(frac).padStart(6, '0').replace(/0+$/, '')}`;
  return neg ? `-${body}` : body;
}

/** Base units → a JSON number (Data API and Gamma send numbers). */
export function toNumber(units: number): number {
  return Math.round(units) / ONE;
}

/** A decimal string or number → base units, or null when it is not a finite non-negative decimal. */
export function parseUnits(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d+(\.\d+)?$/.test(text)) return null;
  const [whole = '0', frac = ''] = text.split('.');
  const units = Number(whole) * ONE + Number(frac.slice(0, 6).padEnd(6, '0'));
  return Number.isSafeInteger(units) ? units : null;
}

/** Exact `a * b / ONE` rounded half up, through bigint so large books cannot lose precision. */
export function mulPrice(units: number, priceMicro: number): number {
  const product = BigInt(Math.round(units)) * BigInt(Math.round(priceMicro));
  return Number((product + BigInt(ONE / 2)) / BigInt(ONE));
}

/** Number of decimals an amount in base units needs (0..6). */
export function decimalsOf(units: number): number {
  let frac = Math.abs(units) % ONE;
  if (frac === 0) return 0;
  let decimals = 6;
  while (frac % 10 === 0) {
    frac /= 10;
    decimals -= 1;
  }
  return decimals;
}

/** Decimal places of a tick in micro units (10000 → 2, 1000 → 3). */
export function tickDecimals(tickMicro: number): number {
  return decimalsOf(tickMicro);
}
