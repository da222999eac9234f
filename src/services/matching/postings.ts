// Keyed collections of id lists (block keys, ladder groups, event members), stored without their keys. A million
// markets hold millions of distinct keys (`bitcoin|d:2026-07-01|gt:100000`), and a Map keyed by the strings kept
// every one alive: its characters, the cons cells a template literal makes of it, and an entry, 60–100 bytes a key.
// Here a key is known by two 32-bit hashes of its characters, kept in typed arrays (open addressing, linear probing):
// 12 bytes a slot, and the key strings a caller builds to look up are young garbage only.
//
// Two different keys meeting on both hashes (a 64-bit collision: a chance of about 1 in 10 million at the 1.7
// million keys of the largest table, the index, at a million markets) would share one list: their markets would be
// compared with each other, which comparePair decides as it decides any candidate pair. No pair is ever missed by it.
//
// The lists are kept in typed arrays too (IdPool): a JS array costs 8 bytes an id and 48 a list on this 64-bit
// Node, the pool 4 bytes an id (in blocks of a power of two) and 12 a list.

const EMPTY = 0;
const TOMBSTONE = -1;
/** A slot's value: EMPTY, TOMBSTONE, a lone id (id + 1), or a list (-(list handle + 2)). */
const LIST_BASE = -2;

const NONE: readonly number[] = [];

/** Ints in a full pool chunk (16 MiB); a block is addressed as chunk * CHUNK + offset. */
const CHUNK = 1 << 22;
/** Largest pooled block (ids); a longer list (a word shared by thousands of markets) is a JS array. */
const MAX_BLOCK = 1 << 12;

/**
 * Id lists in blocks of 2, 4, … MAX_BLOCK ids carved from fixed chunks (a chunk is never copied as the catalogue
 * grows, so growth costs no transient double); a freed block is reused by the next list of its size.
 */
class IdPool {
  private readonly chunks: Int32Array[] = [];
  /** Next free int of the last chunk. */
  private top = 0;
  /** Free blocks by size class (log2 of their size). */
  private readonly freeBlocks: number[][] = [];
  /** Per list handle: where its block starts (chunk * CHUNK + offset), its length, its block's size (0: `big`). */
  private start = new Int32Array(16);
  private length = new Int32Array(16);
  private capacity = new Int32Array(16);
  private readonly big: Array<number[] | undefined> = [];
  private readonly freeHandles: number[] = [];
  private handles = 0;

  /** A new list of two ids. */
  pair(x: number, y: number): number {
    const h = this.freeHandles.pop() ?? this.newHandle();
    const at = this.block(1);
    this.start[h] = at;
    this.capacity[h] = 2;
    this.length[h] = 2;
    const chunk = this.chunks[Math.floor(at / CHUNK)] as Int32Array;
    chunk[at % CHUNK] = x;
    chunk[(at % CHUNK) + 1] = y;
    return h;
  }

  push(h: number, id: number): void {
    const cap = this.capacity[h] as number;
    const len = this.length[h] as number;
    if (cap === 0) {
      (this.big[h] as number[]).push(id);
      return;
    }
    if (len === cap) {
      if (cap >= MAX_BLOCK) {
        const list = this.read(h);
        list.push(id);
        this.release(this.start[h] as number, cap);
        this.big[h] = list;
        this.capacity[h] = 0;
        return;
      }
      const from = this.start[h] as number;
      const at = this.block(Math.log2(cap) + 1);
      const src = this.chunks[Math.floor(from / CHUNK)] as Int32Array;
      const dst = this.chunks[Math.floor(at / CHUNK)] as Int32Array;
      dst.set(src.subarray(from % CHUNK, (from % CHUNK) + len), at % CHUNK);
      this.release(from, cap);
      this.start[h] = at;
      this.capacity[h] = cap * 2;
    }
    const at = (this.start[h] as number) + len;
    (this.chunks[Math.floor(at / CHUNK)] as Int32Array)[at % CHUNK] = id;
    this.length[h] = len + 1;
  }

  size(h: number): number {
    return this.capacity[h] === 0 ? (this.big[h] as number[]).length : (this.length[h] as number);
  }

  each(h: number, limit: number, fn: (id: number) => void): boolean {
    if (this.capacity[h] === 0) {
      const list = this.big[h] as number[];
      if (list.length > limit) return false;
      for (const id of list) fn(id);
      return true;
    }
    const len = this.length[h] as number;
    if (len > limit) return false;
    const at = this.start[h] as number;
    const chunk = this.chunks[Math.floor(at / CHUNK)] as Int32Array;
    const off = at % CHUNK;
    for (let i = off; i < off + len; i++) fn(chunk[i] as number);
    return true;
  }

  /** The list as a fresh array (a caller may keep it while the postings change). */
  read(h: number): number[] {
    if (this.capacity[h] === 0) return (this.big[h] as number[]).slice();
    const at = this.start[h] as number;
    const chunk = this.chunks[Math.floor(at / CHUNK)] as Int32Array;
    return Array.from(chunk.subarray(at % CHUNK, (at % CHUNK) + (this.length[h] as number)));
  }

  /**
   * Removes `id` (the last id moves into its place, as the engine's lists always did, so candidate order is the
   * same); answers the length left.
   */
  remove(h: number, id: number): number {
    if (this.capacity[h] === 0) {
      const list = this.big[h] as number[];
      const i = list.indexOf(id);
      if (i >= 0) {
        list[i] = list[list.length - 1] as number;
        list.pop();
      }
      return list.length;
    }
    const at = this.start[h] as number;
    const chunk = this.chunks[Math.floor(at / CHUNK)] as Int32Array;
    const off = at % CHUNK;
    const len = this.length[h] as number;
    const i = chunk.subarray(off, off + len).indexOf(id);
    if (i < 0) return len;
    chunk[off + i] = chunk[off + len - 1] as number;
    this.length[h] = len - 1;
    return len - 1;
  }

  /** Drops a list; answers its first id (what is left of a list of one). */
  free(h: number): number {
    const list = this.read(h);
    if (this.capacity[h] === 0) this.big[h] = undefined;
    else this.release(this.start[h] as number, this.capacity[h] as number);
    this.freeHandles.push(h);
    return list[0] ?? -1;
  }

  private release(at: number, size: number): void {
    const c = Math.log2(size);
    let list = this.freeBlocks[c];
    if (list === undefined) {
      list = [];
      this.freeBlocks[c] = list;
    }
    list.push(at);
  }

  /** A block of 2^c ids. */
  private block(c: number): number {
    const reused = this.freeBlocks[c]?.pop();
    if (reused !== undefined) return reused;
    const size = 1 << c;
    const last = this.chunks[this.chunks.length - 1];
    if (last === undefined || this.top + size > last.length) {
      // The rest of a full chunk is left as free blocks of its sizes, so nothing is lost.
      for (let k = MAX_BLOCK; k >= 2 && last !== undefined; k >>= 1) {
        while (this.top + k <= last.length) {
          this.release((this.chunks.length - 1) * CHUNK + this.top, k);
          this.top += k;
        }
      }
      // Chunks double up to CHUNK, so a small catalogue holds kilobytes, not a chunk per table.
      this.chunks.push(new Int32Array(Math.min(CHUNK, MAX_BLOCK << this.chunks.length)));
      this.top = 0;
    }
    const at = (this.chunks.length - 1) * CHUNK + this.top;
    this.top += size;
    return at;
  }

  private newHandle(): number {
    const h = this.handles++;
    if (h >= this.start.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.start = grow(this.start);
      this.length = grow(this.length);
      this.capacity = grow(this.capacity);
    }
    return h;
  }
}

export class Postings {
  private hashA = new Int32Array(16);
  private hashB = new Int32Array(16);
  private values = new Int32Array(16);
  /** Keys held, and slots that held a removed key (probing goes past them). */
  private used = 0;
  private dead = 0;
  private readonly pool = new IdPool();

  add(key: string, id: number): void {
    const at = this.slotOf(key, true);
    const v = this.values[at] as number;
    if (v === EMPTY || v === TOMBSTONE) {
      if (v === TOMBSTONE) this.dead--;
      this.values[at] = id + 1;
      this.used++;
      if ((this.used + this.dead) * 4 > this.values.length * 3) this.resize();
      return;
    }
    if (v > 0) this.values[at] = LIST_BASE - this.pool.pair(v - 1, id);
    else this.pool.push(LIST_BASE - v, id);
  }

  remove(key: string, id: number): void {
    const at = this.slotOf(key, false);
    if (at < 0) return;
    const v = this.values[at] as number;
    if (v > 0) {
      if (v - 1 === id) this.clear(at);
      return;
    }
    const h = LIST_BASE - v;
    if (this.pool.remove(h, id) <= 1) {
      const last = this.pool.free(h);
      if (last >= 0) this.values[at] = last + 1;
      else this.clear(at);
    }
  }

  /** The ids under `key`, as a fresh array. */
  get(key: string): readonly number[] {
    const at = this.slotOf(key, false);
    if (at < 0) return NONE;
    const v = this.values[at] as number;
    return v > 0 ? [v - 1] : this.pool.read(LIST_BASE - v);
  }

  /**
   * Calls `fn` with each id under `key` unless there are more than `limit` (answers false then, visiting none):
   * what a candidate search reads, without a copy of the list.
   */
  each(key: string, limit: number, fn: (id: number) => void): boolean {
    const at = this.slotOf(key, false);
    if (at < 0) return true;
    const v = this.values[at] as number;
    if (v > 0) {
      if (limit < 1) return false;
      fn(v - 1);
      return true;
    }
    return this.pool.each(LIST_BASE - v, limit, fn);
  }

  /** How many ids are under `key` (without copying them). */
  count(key: string): number {
    const at = this.slotOf(key, false);
    if (at < 0) return 0;
    const v = this.values[at] as number;
    return v > 0 ? 1 : this.pool.size(LIST_BASE - v);
  }

  get size(): number {
    return this.used;
  }

  private clear(at: number): void {
    this.values[at] = TOMBSTONE;
    this.used--;
    this.dead++;
  }

  /**
   * The slot holding `key`, or -1; with `insert`, the slot where it would go when absent (the first tombstone met
   * on its probe, else the empty slot that ends it).
   */
  private slotOf(key: string, insert: boolean): number {
    // FNV-1a and a multiplicative hash with its own constants, each finished by murmur3's mix.
    let a = 0x811c9dc5;
    let b = 0x2545f491;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b + c, 0x9e3779b1) ^ (b >>> 13);
    }
    a = mix(a ^ key.length);
    b = mix(b ^ Math.imul(key.length, 0x85ebca6b));
    return this.probe(a, b, insert);
  }

  private probe(a: number, b: number, insert: boolean): number {
    const mask = this.values.length - 1;
    let free = -1;
    for (let i = a & mask; ; i = (i + 1) & mask) {
      const v = this.values[i] as number;
      if (v === EMPTY) return insert ? this.place(free >= 0 ? free : i, a, b) : -1;
      if (v === TOMBSTONE) {
        if (insert && free < 0) free = i;
        continue;
      }
      if (this.hashA[i] === a && this.hashB[i] === b) return i;
    }
  }

  private place(i: number, a: number, b: number): number {
    this.hashA[i] = a;
    this.hashB[i] = b;
    return i;
  }

  /** Twice the slots when three quarters are taken (tombstones count: they lengthen probes), tombstones dropped. */
  private resize(): void {
    const [hashA, hashB, values] = [this.hashA, this.hashB, this.values];
    const size = this.used * 2 > values.length ? values.length * 2 : values.length;
    this.hashA = new Int32Array(size);
    this.hashB = new Int32Array(size);
    this.values = new Int32Array(size);
    this.dead = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as number;
      if (v === EMPTY || v === TOMBSTONE) continue;
      const at = this.probe(hashA[i] as number, hashB[i] as number, true);
      this.values[at] = v;
    }
  }
}

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}
