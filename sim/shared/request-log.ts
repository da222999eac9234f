// How many venue requests a simulator received, per route (`[service ]METHOD /path`, query left out), so a test can
// prove how often a client called the exchange — sign-ins, credential derivations, a sunset endpoint — from the
// exchange's side. Served at GET /__sim/requests, cleared by DELETE /__sim/requests (sim/shared/control.ts).

/** Distinct routes kept; paths carrying ids could otherwise grow a long-running sandbox's log without end. */
const MAX_ROUTES = 2_000;
const OVERFLOW = 'other';

export class SimRequestLog {
  private readonly counts = new Map<string, number>();

  /** Counts one request; `service` names the host when a simulator serves several (Polymarket's gamma/clob/data). */
  record(method: string, path: string, service?: string): void {
    const route = service ? `${service} ${method} ${path}` : `${method} ${path}`;
    const key = this.counts.has(route) || this.counts.size < MAX_ROUTES ? route : OVERFLOW;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  count(route: string): number {
    return this.counts.get(route) ?? 0;
  }

  /** Every route seen so far with its count, sorted by route. */
  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  reset(): void {
    this.counts.clear();
  }
}
