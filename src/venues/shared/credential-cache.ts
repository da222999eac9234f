// Credentials an exchange issues for a wallet (Predict.fun's JWT, Polymarket's derived CLOB key), kept per adapter
// instance so a wallet signs in once rather than on every call: reused until shortly before they expire, issued
// once for concurrent callers (single-flight), bounded in size (least recently used out first). Keys name the
// wallet (address, base URL), never a secret; the values are secrets, so the cache renders as its size only.

export interface IssuedCredential<T> {
  value: T;
  /** Epoch ms after which the exchange no longer accepts it; Infinity when it lasts until refused. */
  expiresAt: number;
}

export interface CredentialCacheOptions {
  /** Wallets kept; the least recently used goes first when a new one would exceed it. */
  maxEntries: number;
  /** A credential is not handed out this close to its expiry: a call must not start with one about to lapse. */
  refreshMarginMs: number;
  now?: () => number;
}

export class CredentialCache<T> {
  private readonly entries = new Map<string, IssuedCredential<T>>();
  private readonly issuing = new Map<string, Promise<IssuedCredential<T>>>();
  private readonly now: () => number;

  constructor(private readonly options: CredentialCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The wallet's cached credential, or a fresh one from `issue`. Concurrent callers for one wallet share a single
   * `issue` (run with the first caller's context) and its outcome, failure included; a failure is not cached.
   */
  async get(key: string, issue: () => Promise<IssuedCredential<T>>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      if (this.usable(hit)) {
        this.entries.set(key, hit); // most recently used goes last
        return hit.value;
      }
    }
    let pending = this.issuing.get(key);
    if (!pending) {
      pending = issue()
        .then((issued) => {
          if (this.usable(issued)) this.store(key, issued);
          return issued;
        })
        .finally(() => this.issuing.delete(key));
      this.issuing.set(key, pending);
    }
    return (await pending).value;
  }

  /**
   * Forgets the wallet's credential after the exchange refused `value`; a newer one another caller already got in
   * its place stays.
   */
  invalidate(key: string, value: T): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  toJSON(): { size: number } {
    return { size: this.entries.size };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `CredentialCache { size: ${this.entries.size} }`;
  }

  private usable(issued: IssuedCredential<T>): boolean {
    return issued.expiresAt - this.options.refreshMarginMs > this.now();
  }

  private store(key: string, issued: IssuedCredential<T>): void {
    this.entries.delete(key);
    this.entries.set(key, issued);
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}
