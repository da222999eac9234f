// The /mcp sessions of this node, each bound to the API key that opened it, held in memory and bounded three ways:
// a node-wide count, a count per key (a new session past it closes that key's least recently used one, so a client
// that restarts without ending its session never locks itself out), and an idle lifetime. Nothing else grows.

export interface SessionLimits {
  maxSessions: number;
  maxSessionsPerKey: number;
  idleMs: number;
}

export interface McpSession {
  readonly id: string;
  readonly keyId: string;
  /** Ends the session's transport and server; called once, when the session leaves the table. */
  close(): Promise<void> | void;
}

interface Entry<S> {
  session: S;
  lastUsedMs: number;
}

export class McpSessions<S extends McpSession = McpSession> {
  // Insertion order is recency order: every use moves an entry to the end.
  private readonly entries = new Map<string, Entry<S>>();
  private readonly perKey = new Map<string, number>();

  constructor(
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The session, if it exists, has not expired and belongs to this key; marks it used. */
  use(id: string, keyId: string): S | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (this.expired(entry)) {
      this.drop(id);
      return undefined;
    }
    // Another key's session is answered as absent: a session id is no credential.
    if (entry.session.keyId !== keyId) return undefined;
    this.entries.delete(id);
    entry.lastUsedMs = this.now();
    this.entries.set(id, entry);
    return entry.session;
  }

  /** Whether a new session may open now (expired ones are swept first). */
  hasRoom(): boolean {
    if (this.entries.size < this.limits.maxSessions) return true;
    this.sweep();
    return this.entries.size < this.limits.maxSessions;
  }

  /** Adds a session, closing the key's least recently used one when the key is at its limit. */
  add(session: S): void {
    while ((this.perKey.get(session.keyId) ?? 0) >= this.limits.maxSessionsPerKey) {
      const oldest = this.oldestOf(session.keyId);
      if (oldest === undefined) break;
      this.drop(oldest);
    }
    this.entries.set(session.id, { session, lastUsedMs: this.now() });
    this.perKey.set(session.keyId, (this.perKey.get(session.keyId) ?? 0) + 1);
  }

  /** Removes a session (ended by its client, or closed here); closing it is the caller's business. */
  forget(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    const left = (this.perKey.get(entry.session.keyId) ?? 1) - 1;
    if (left > 0) this.perKey.set(entry.session.keyId, left);
    else this.perKey.delete(entry.session.keyId);
  }

  /** Closes every session idle past the limit; least recently used come first, so the walk stops at a live one. */
  sweep(): number {
    let closed = 0;
    for (const [id, entry] of this.entries) {
      if (!this.expired(entry)) break;
      this.drop(id);
      closed += 1;
    }
    return closed;
  }

  async closeAll(): Promise<void> {
    const sessions = [...this.entries.values()].map((e) => e.session);
    for (const s of sessions) this.forget(s.id);
    await Promise.allSettled(sessions.map((s) => s.close()));
  }

  private expired(entry: Entry<S>): boolean {
    return this.now() - entry.lastUsedMs >= this.limits.idleMs;
  }

  private oldestOf(keyId: string): string | undefined {
    for (const [id, entry] of this.entries) if (entry.session.keyId === keyId) return id;
    return undefined;
  }

  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.forget(id);
    Promise.resolve()
      .then(() => entry.session.close())
      .catch(() => undefined);
  }
}
