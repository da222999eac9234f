// The drift alarm's tally: every venue answer that failed its decoder, counted by exchange, operation and JSON path
// (never a value), with the latest few kept for /healthz. An exchange that changes its format is then seen at once
// (`omnibook_venue_payload_drift_total` on /metrics, `drift` on /healthz) instead of being served wrong or only
// logged. Paths come from a venue, so they are normalised (array indices become `*`) and the distinct keys are bounded:
// a venue sending a new shape per market cannot grow this without limit.
import type { ExchangeId } from './exchanges.js';

export interface DriftEntry {
  exchange: ExchangeId;
  operation: string;
  /** JSON pointer into the payload, array indices written `*` (see normalisePath). */
  path: string;
  count: number;
  last_seen: string;
}

/** Distinct (exchange, operation, path) triples kept; later new ones are counted under path `(other)`. */
const MAX_KEYS = 500;
/** Longest path kept (a path is venue text). */
const MAX_PATH = 200;
/** Paths recorded per failed payload (the decoder reports its first few problems). */
const PATHS_PER_PAYLOAD = 5;

export class PayloadDrift {
  private readonly entries = new Map<string, DriftEntry>();
  private totalSeen = 0;

  constructor(private readonly now: () => number = Date.now) {}

  record(exchange: ExchangeId, operation: string, paths: readonly string[]): void {
    this.totalSeen++;
    const at = new Date(this.now()).toISOString();
    const distinct = new Set(paths.slice(0, PATHS_PER_PAYLOAD).map(normalisePath));
    if (distinct.size === 0) distinct.add('/');
    for (const found of distinct) {
      let path = found;
      let entry = this.entries.get(keyOf(exchange, operation, path));
      if (!entry && this.entries.size >= MAX_KEYS) {
        path = '(other)';
        entry = this.entries.get(keyOf(exchange, operation, path));
      }
      if (!entry) {
        entry = { exchange, operation, path, count: 0, last_seen: at };
        this.entries.set(keyOf(exchange, operation, path), entry);
      }
      entry.count++;
      entry.last_seen = at;
    }
  }

  /** Payloads that failed their decoder since start. */
  get total(): number {
    return this.totalSeen;
  }

  /** Every counted (exchange, operation, path), for /metrics. */
  counts(): readonly DriftEntry[] {
    return [...this.entries.values()];
  }

  /** The most recently seen paths, newest first. */
  latest(limit = 10): DriftEntry[] {
    return [...this.entries.values()]
      .sort((a, b) => (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0))
      .slice(0, limit)
      .map((e) => ({ ...e }));
  }
}

function keyOf(exchange: ExchangeId, operation: string, path: string): string {
  return `${exchange}\u0000${operation}\u0000${path}`;
}

/** Array indices become `*` (`/markets/17/price` → `/markets/` `*` `/price`); bounded in length, starts with `/`. */
export function normalisePath(path: string): string {
  const p = path.length === 0 ? '/' : path.startsWith('/') ? path : `/${path}`;
  return p.replace(/\/\d+(?=\/|$)/g, '/*').slice(0, MAX_PATH);
}
