// Turning a key's text into a usable key is the dearest step of a signed call that is not the signature itself:
// 0.4–0.5 ms for Kalshi's RSA PEM, 0.25–0.35 ms for a Polymarket secp256k1 account (its public key), in a hot loop
// on the CI machine. A stored or managed session brings the same key on every call, so its parsed form is kept here,
// found by a SHA-256 digest of the key's text (the text itself is not kept), least recently used out first.
// Per-request credentials are never kept: spec §5 has them gone after their call. The values are keys, so the
// cache renders as its size only.
import { createHash } from 'node:crypto';
import type { VenueSession } from '../port.js';

/** Sessions whose key is the customer's sealed record, presented again on every call. */
const KEPT_SOURCES: ReadonlySet<VenueSession['source'] | undefined> = new Set([
  'stored',
  'managed',
  'builder',
]);

export class ParsedKeyCache<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * `parse()` of the key, kept for a stored, managed or builder session and reused while it is among the
   * `maxEntries` most recently used; always fresh for any other session. A parse that throws keeps nothing.
   */
  parsed(session: { readonly source?: VenueSession['source'] }, keyText: string, parse: () => T): T {
    if (!KEPT_SOURCES.has(session.source)) return parse();
    const id = createHash('sha256').update(keyText).digest('base64');
    const hit = this.entries.get(id);
    if (hit !== undefined) {
      this.entries.delete(id);
      this.entries.set(id, hit); // most recently used goes last
      return hit;
    }
    const value = parse();
    this.entries.set(id, value);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    return value;
  }

  toJSON(): { size: number } {
    return { size: this.entries.size };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ParsedKeyCache { size: ${this.entries.size} }`;
  }
}
