// Counts admitted requests per key and month in memory and writes the increments to the database in batches,
// as additive upserts: several nodes flushing their own deltas add up correctly.
import type { UsageRepo } from '../../store/usage-repo.js';

export interface LedgerEntry {
  keyId: string;
  period: string;
  /** Value read from the database when the entry was first needed. */
  base: number;
  /** Requests counted on this node since start (both flushed and pending). */
  local: number;
  pending: number;
}

export class UsageLedger {
  private readonly entries = new Map<string, LedgerEntry>();
  private readonly loading = new Map<string, Promise<LedgerEntry>>();

  constructor(private readonly repo: UsageRepo) {}

  /** The entry if already loaded, so the hot path stays synchronous after the first request of a key. */
  peek(keyId: string, period: string): LedgerEntry | undefined {
    return this.entries.get(`${keyId}|${period}`);
  }

  async load(keyId: string, period: string): Promise<LedgerEntry> {
    const id = `${keyId}|${period}`;
    const hit = this.entries.get(id);
    if (hit) return hit;
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.repo.get(keyId, period).then((base) => {
        const entry: LedgerEntry = { keyId, period, base, local: 0, pending: 0 };
        this.entries.set(id, entry);
        this.loading.delete(id);
        return entry;
      });
      pending.catch(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  count(entry: LedgerEntry): number {
    entry.local += 1;
    entry.pending += 1;
    return entry.base + entry.local;
  }

  async flush(): Promise<void> {
    const deltas: Array<{ keyId: string; period: string; requests: number }> = [];
    for (const entry of this.entries.values()) {
      if (entry.pending > 0) {
        deltas.push({ keyId: entry.keyId, period: entry.period, requests: entry.pending });
        entry.pending = 0;
      }
    }
    try {
      await this.repo.add(deltas);
    } catch (error) {
      // Put the counts back so the next flush retries them; a failed write must not lose requests.
      for (const d of deltas) {
        const entry = this.entries.get(`${d.keyId}|${d.period}`);
        if (entry) entry.pending += d.requests;
      }
      throw error;
    }
  }
}
