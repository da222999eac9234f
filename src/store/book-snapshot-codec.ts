// The stored form of one recorded book: a compact binary blob that decodes to exactly the levels recorded.
// Each column (prices, sizes) is written as integers at one decimal scale when every value allows it: for each
// value an integer m below 2^52 and a scale k ≤ 22 with m / 10^k === x (one correctly rounded division of two
// exact doubles), so decoding `mantissa / 10^scale` gives `x` again. Prices are
// deltas from the previous level (a 0.01 tick is one byte), sizes plain varints. A column where any value does not
// fit (a 17-digit float artefact that overflows, a negative, -0, NaN) is written as raw float64s instead, which are
// exact by definition. Nothing is rounded in either form.
import type { BookLevel } from '../domain/book.js';

export interface RecordedBook {
  bids: BookLevel[];
  asks: BookLevel[];
  tick_size: number | null;
}

const VERSION = 1;
const COLUMN_SCALED = 0;
const COLUMN_RAW = 1;
const TICK_NULL = 0xff;
const TICK_RAW = 0xfe;
/** Largest scale whose power of ten is an exact double. */
const MAX_SCALE = 22;
/** Mantissas stay below 2^52 so a zigzag delta between two of them stays a safe integer. */
const MAX_MANTISSA = 2 ** 52;
const POW10 = Array.from({ length: MAX_SCALE + 1 }, (_, i) => 10 ** i);

/**
 * The smallest scale k with an integer m such that m / 10^k is `x` (one correctly rounded division, so decoding
 * at any larger common scale gives `x` too), or null when no k up to 22 gives a mantissa below 2^52. This is the
 * value's shortest decimal for every price and size a venue sends, found without formatting a string.
 */
function scaledOf(x: number): { m: number; k: number } | null {
  if (!Number.isFinite(x) || x < 0 || Object.is(x, -0)) return null;
  for (let k = 0; k <= MAX_SCALE; k++) {
    const p = POW10[k] as number;
    const m = Math.round(x * p);
    if (m >= MAX_MANTISSA) return null;
    if (m / p === x) return { m, k };
  }
  return null;
}

/** The common scale and mantissas of a column, or null when the column must be written raw. */
function scaledColumn(values: readonly number[]): { scale: number; mantissas: number[] } | null {
  const parts: Array<{ m: number; k: number }> = [];
  let scale = 0;
  for (const v of values) {
    const d = scaledOf(v);
    if (!d) return null;
    parts.push(d);
    if (d.k > scale) scale = d.k;
  }
  const mantissas: number[] = [];
  for (const d of parts) {
    const m = d.m * (POW10[scale - d.k] as number);
    if (m >= MAX_MANTISSA) return null;
    mantissas.push(m);
  }
  return { scale, mantissas };
}

class Writer {
  private buf = new Uint8Array(256);
  private at = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }

  /** Unsigned LEB128 of a safe integer (arithmetic, not bit operations: values exceed 32 bits). */
  varint(n: number): void {
    this.room(8);
    let v = n;
    while (v >= 0x80) {
      this.buf[this.at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.at++] = v;
  }

  float64(x: number): void {
    this.room(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.at, 8).setFloat64(0, x, true);
    this.at += 8;
  }

  done(): Buffer {
    return Buffer.from(this.buf.buffer, this.buf.byteOffset, this.at);
  }
}

class Reader {
  private at = 0;
  private readonly view: DataView;

  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  byte(): number {
    if (this.at >= this.buf.length) throw new Error('book snapshot blob is truncated');
    return this.buf[this.at++] as number;
  }

  varint(): number {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 0x80;
    }
  }

  float64(): number {
    if (this.at + 8 > this.buf.length) throw new Error('book snapshot blob is truncated');
    const x = this.view.getFloat64(this.at, true);
    this.at += 8;
    return x;
  }

  end(): void {
    if (this.at !== this.buf.length) throw new Error('book snapshot blob has trailing bytes');
  }
}

const zigzag = (d: number): number => (d >= 0 ? d * 2 : -d * 2 - 1);
const unzigzag = (z: number): number => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

function writeColumn(w: Writer, values: readonly number[], deltas: readonly boolean[]): void {
  const scaled = scaledColumn(values);
  if (!scaled) {
    w.byte(COLUMN_RAW);
    for (const v of values) w.float64(v);
    return;
  }
  w.byte(COLUMN_SCALED);
  w.byte(scaled.scale);
  let previous = 0;
  scaled.mantissas.forEach((m, i) => {
    if (deltas[i]) w.varint(zigzag(m - previous));
    else w.varint(m);
    previous = m;
  });
}

function readColumn(r: Reader, count: number, deltas: readonly boolean[]): number[] {
  const out: number[] = new Array(count);
  const mode = r.byte();
  if (mode === COLUMN_RAW) {
    for (let i = 0; i < count; i++) out[i] = r.float64();
    return out;
  }
  if (mode !== COLUMN_SCALED) throw new Error(`book snapshot column mode ${mode} is unknown`);
  const scale = r.byte();
  const divisor = POW10[scale];
  if (divisor === undefined) throw new Error(`book snapshot scale ${scale} is out of range`);
  let previous = 0;
  for (let i = 0; i < count; i++) {
    const m = deltas[i] ? previous + unzigzag(r.varint()) : r.varint();
    previous = m;
    out[i] = m / divisor;
  }
  return out;
}

function writeTick(w: Writer, tick: number | null): void {
  if (tick === null) {
    w.byte(TICK_NULL);
    return;
  }
  const d = scaledOf(tick);
  if (!d) {
    w.byte(TICK_RAW);
    w.float64(tick);
    return;
  }
  w.byte(d.k);
  w.varint(d.m);
}

function readTick(r: Reader): number | null {
  const tag = r.byte();
  if (tag === TICK_NULL) return null;
  if (tag === TICK_RAW) return r.float64();
  const divisor = POW10[tag];
  if (divisor === undefined) throw new Error(`book snapshot tick scale ${tag} is out of range`);
  return r.varint() / divisor;
}

/** One book as its stored bytes. Equal books give equal bytes, so "unchanged" is a byte comparison. */
export function encodeBook(book: RecordedBook): Buffer {
  const w = new Writer();
  w.byte(VERSION);
  w.varint(book.bids.length);
  w.varint(book.asks.length);
  writeTick(w, book.tick_size);
  const levels = [...book.bids, ...book.asks];
  // Each side's first price is absolute, the rest are deltas from the level before.
  const deltas = levels.map((_, i) => i !== 0 && i !== book.bids.length);
  writeColumn(
    w,
    levels.map((l) => l[0]),
    deltas,
  );
  writeColumn(
    w,
    levels.map((l) => l[1]),
    levels.map(() => false),
  );
  return w.done();
}

export function decodeBook(blob: Uint8Array): RecordedBook {
  const r = new Reader(blob);
  const version = r.byte();
  if (version !== VERSION) throw new Error(`book snapshot version ${version} is unknown`);
  const bidCount = r.varint();
  const askCount = r.varint();
  const tick_size = readTick(r);
  const count = bidCount + askCount;
  const deltas = Array.from({ length: count }, (_, i) => i !== 0 && i !== bidCount);
  const prices = readColumn(r, count, deltas);
  const sizes = readColumn(
    r,
    count,
    deltas.map(() => false),
  );
  r.end();
  const level = (i: number): BookLevel => [prices[i] as number, sizes[i] as number];
  return {
    bids: Array.from({ length: bidCount }, (_, i) => level(i)),
    asks: Array.from({ length: askCount }, (_, i) => level(bidCount + i)),
    tick_size,
  };
}
