// Exact decimal arithmetic for money: a value is `units / 10^scale` with bigint units, so 0.1 + 0.2 is 0.3 and a
// fee summed over many book levels carries no binary rounding. Every venue quantity (a JSON number on a book
// level, a fee rate, a query amount) is converted once to its shortest decimal string and parsed here; results
// go back to JSON numbers only at the HTTP edge (`toNumber`).

export type Rounding = 'half_up' | 'ceil' | 'floor';

const TEN = 10n;

/** 10^0 … 10^63, computed once: a bigint power per operation was most of a book walk's time. */
const POW10: readonly bigint[] = Array.from({ length: 64 }, (_, i) => TEN ** BigInt(i));

function pow10(n: number): bigint {
  return POW10[n] ?? TEN ** BigInt(n);
}

/** Rounds the quotient `n / d` (d > 0) to an integer. */
function divRound(n: bigint, d: bigint, mode: Rounding): bigint {
  const q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  const negative = n < 0n;
  switch (mode) {
    case 'floor':
      return negative ? q - 1n : q;
    case 'ceil':
      return negative ? q : q + 1n;
    case 'half_up': {
      // Half away from zero.
      const twice = (r < 0n ? -r : r) * 2n;
      if (twice >= d) return negative ? q - 1n : q + 1n;
      return q;
    }
  }
}

const DECIMAL = /^([+-])?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

export class Decimal {
  static readonly ZERO = new Decimal(0n, 0);
  static readonly ONE = new Decimal(1n, 0);

  private constructor(
    readonly units: bigint,
    readonly scale: number,
  ) {}

  /** Parses a plain or exponent decimal string ("0.07", "1e-7", "-3.5"); throws on anything else. */
  static parse(text: string): Decimal {
    const m = DECIMAL.exec(text.trim());
    if (!m) throw new RangeError(`not a decimal: ${JSON.stringify(text)}`);
    const [, sign, whole = '0', fraction = '', exponent] = m;
    let scale = fraction.length - Number(exponent ?? 0);
    let units = BigInt(whole + fraction);
    if (scale < 0) {
      units *= pow10(-scale);
      scale = 0;
    }
    return new Decimal(sign === '-' ? -units : units, scale).normalized();
  }

  /** The exact decimal a finite JSON number stands for, read from its shortest round-trip spelling. */
  static fromNumber(n: number): Decimal {
    if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
    return Decimal.parse(String(n));
  }

  static fromInt(n: number | bigint): Decimal {
    return new Decimal(BigInt(n), 0);
  }

  private normalized(): Decimal {
    let { units, scale } = this;
    while (scale > 0 && units % TEN === 0n) {
      units /= TEN;
      scale -= 1;
    }
    return scale === this.scale ? this : new Decimal(units, scale);
  }

  private at(scale: number): bigint {
    return this.units * pow10(scale - this.scale);
  }

  add(o: Decimal): Decimal {
    const scale = Math.max(this.scale, o.scale);
    return new Decimal(this.at(scale) + o.at(scale), scale).normalized();
  }

  sub(o: Decimal): Decimal {
    const scale = Math.max(this.scale, o.scale);
    return new Decimal(this.at(scale) - o.at(scale), scale).normalized();
  }

  mul(o: Decimal): Decimal {
    return new Decimal(this.units * o.units, this.scale + o.scale).normalized();
  }

  /** Whole, non-negative powers only: fee curves raise p(1 − p) to an integer exponent. */
  pow(exponent: number): Decimal {
    if (!Number.isInteger(exponent) || exponent < 0) throw new RangeError(`exponent ${exponent}`);
    return new Decimal(this.units ** BigInt(exponent), this.scale * exponent).normalized();
  }

  /** `this / o` rounded to `places` decimals (a quotient of decimals is not always a finite decimal). */
  div(o: Decimal, places: number, mode: Rounding = 'half_up'): Decimal {
    if (o.units === 0n) throw new RangeError('division by zero');
    // this/o = (u1 / 10^s1) / (u2 / 10^s2); scaled by 10^places and made an integer quotient with d > 0.
    let n = this.units * pow10(places + o.scale);
    let d = o.units * pow10(this.scale);
    if (d < 0n) {
      n = -n;
      d = -d;
    }
    return new Decimal(divRound(n, d, mode), places).normalized();
  }

  round(places: number, mode: Rounding = 'half_up'): Decimal {
    if (this.scale <= places) return this;
    return new Decimal(divRound(this.units, pow10(this.scale - places), mode), places).normalized();
  }

  cmp(o: Decimal): -1 | 0 | 1 {
    const scale = Math.max(this.scale, o.scale);
    const a = this.at(scale);
    const b = o.at(scale);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  eq(o: Decimal): boolean {
    return this.cmp(o) === 0;
  }

  lt(o: Decimal): boolean {
    return this.cmp(o) < 0;
  }

  lte(o: Decimal): boolean {
    return this.cmp(o) <= 0;
  }

  gt(o: Decimal): boolean {
    return this.cmp(o) > 0;
  }

  gte(o: Decimal): boolean {
    return this.cmp(o) >= 0;
  }

  isZero(): boolean {
    return this.units === 0n;
  }

  isNegative(): boolean {
    return this.units < 0n;
  }

  neg(): Decimal {
    return new Decimal(-this.units, this.scale);
  }

  /** Decimal places actually used (trailing zeros do not count). */
  get places(): number {
    return this.scale;
  }

  static min(a: Decimal, b: Decimal): Decimal {
    return a.lte(b) ? a : b;
  }

  static max(a: Decimal, b: Decimal): Decimal {
    return a.gte(b) ? a : b;
  }

  toString(): string {
    const negative = this.units < 0n;
    const digits = (negative ? -this.units : this.units).toString();
    if (this.scale === 0) return (negative ? '-' : '') + digits;
    const padded = digits.padStart(this.scale + 1, '0');
    const cut = padded.length - this.scale;
    return `${negative ? '-' : ''}${padded.slice(0, cut)}.${padded.slice(cut)}`;
  }

  /** The JSON number at the edge: the nearest double to the exact value. */
  toNumber(): number {
    return Number(this.toString());
  }
}
