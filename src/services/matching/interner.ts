// One instance of each equal value for the whole catalogue, so a million markets' features point at shared strings,
// token lists and small records instead of each holding its own copies: options of one event share their event's
// words, the strikes of a ladder share everything but their threshold, markets of one day share their date and
// resolution facts. Features are never mutated once extracted, so sharing cannot change what any rule reads.
//
// Sharing is only a saving, never needed for a right answer, and what shares is mostly listed together (an event's
// options, a ladder's strikes, one day's markets): each table is forgotten when it reaches TABLE_SIZE entries, so the
// tables cost a bounded amount instead of an entry per distinct list a million markets hold.

/** Token lists are looked up by a hash of their strings (a list kept as its own key would double its size). */
type Bucket = readonly string[] | Array<readonly string[]>;

const EMPTY: readonly string[] = Object.freeze([]);

const TABLE_SIZE = 1 << 16;

export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly lists = new Map<number, Bucket>();
  private readonly records = new Map<string, object>();

  one(s: string): string {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    if (this.strings.size >= TABLE_SIZE) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }

  /** The shared list equal to `list` (its strings interned too). */
  list(list: readonly string[]): string[] {
    if (list.length === 0) return EMPTY as string[];
    const own = list.map((s) => this.one(s));
    const hash = hashOf(own);
    const bucket = this.lists.get(hash);
    if (bucket === undefined) {
      if (this.lists.size >= TABLE_SIZE) this.lists.clear();
      this.lists.set(hash, own);
      return own;
    }
    // A bucket holds one list (strings), or several (lists) when hashes collide.
    const entries =
      typeof bucket[0] === 'string' ? [bucket as readonly string[]] : (bucket as Array<readonly string[]>);
    for (const known of entries) if (sameList(known, own)) return known as string[];
    this.lists.set(hash, [...entries, own]);
    return own;
  }

  /**
   * The shared record equal to `value` (a date, a threshold, a resolution: a few distinct values per day or subject),
   * keyed by its JSON, which is small; null stays null.
   */
  record<T extends object>(value: T | null): T | null {
    if (value === null) return null;
    const key = JSON.stringify(value, exact);
    const known = this.records.get(key);
    if (known !== undefined) return known as T;
    if (this.records.size >= TABLE_SIZE) this.records.clear();
    this.records.set(key, value);
    return value;
  }
}

/** What JSON would write alike (NaN and null, -0 and 0, a missing and an undefined field) is keyed apart. */
function exact(_key: string, v: unknown): unknown {
  if (v === undefined || (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))))
    return `#${String(v)}${Object.is(v, -0) ? '-0' : ''}`;
  return v;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  // Strings are compared by identity: two equal lists whose strings were interned apart (the string table was
  // forgotten between them) are only left unshared.
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** FNV-1a over the strings' characters, a separator between strings. */
function hashOf(list: readonly string[]): number {
  let h = 0x811c9dc5;
  for (const s of list) {
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0xff, 0x01000193);
  }
  return h >>> 0;
}
