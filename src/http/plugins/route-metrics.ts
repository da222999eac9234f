// Requests and latency per route, counted in plain numbers on the request path and rendered in the Prometheus text
// format only when /metrics is scraped. prom-client validates and hashes the labels of every observation, which
// was about a tenth of the CPU of a cheap request; here a request costs a few increments.

/** Upper bounds of the latency histogram, in seconds. */
export const LATENCY_BUCKETS_S = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** What one route answered to one method: counts per status, and the latency histogram. */
interface RouteEntry {
  method: string;
  route: string;
  statuses: Map<number, number>;
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

export class RouteMetrics {
  /** route → method → entry: two lookups and no string built per request. */
  private readonly routes = new Map<string, Map<string, RouteEntry>>();

  constructor(
    private readonly requestsName: string,
    private readonly latencyName: string,
  ) {}

  /** One answered request: `route` is a template (bounded cardinality), `seconds` its latency. */
  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.routes.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.routes.set(route, byMethod);
    }
    let entry = byMethod.get(method);
    if (!entry) {
      entry = {
        method,
        route,
        statuses: new Map(),
        buckets: new Array<number>(LATENCY_BUCKETS_S.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      byMethod.set(method, entry);
    }
    entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
    let i = 0;
    while (i < LATENCY_BUCKETS_S.length && seconds > (LATENCY_BUCKETS_S[i] as number)) i++;
    entry.buckets[i] = (entry.buckets[i] ?? 0) + 1;
    entry.sum += seconds;
    entry.count += 1;
  }

  /** Both metrics in the Prometheus text exposition format (cumulative buckets, `le` first as prom-client does). */
  render(): string {
    const entries = [...this.routes.values()].flatMap((byMethod) => [...byMethod.values()]);
    const lines = [
      `# HELP ${this.requestsName} HTTP requests by route template and status code`,
      `# TYPE ${this.requestsName} counter`,
    ];
    for (const e of entries) {
      for (const [status, count] of e.statuses) {
        const names = labels(['method', e.method], ['route', e.route], ['status', String(status)]);
        lines.push(`${this.requestsName}{${names}} ${count}`);
      }
    }
    lines.push(
      `# HELP ${this.latencyName} HTTP request latency by route template`,
      `# TYPE ${this.latencyName} histogram`,
    );
    for (const e of entries) {
      const common: Array<[string, string]> = [
        ['method', e.method],
        ['route', e.route],
      ];
      let cumulative = 0;
      LATENCY_BUCKETS_S.forEach((bound, i) => {
        cumulative += e.buckets[i] ?? 0;
        lines.push(`${this.latencyName}_bucket{${labels(['le', String(bound)], ...common)}} ${cumulative}`);
      });
      lines.push(`${this.latencyName}_bucket{${labels(['le', '+Inf'], ...common)}} ${e.count}`);
      lines.push(`${this.latencyName}_sum{${labels(...common)}} ${e.sum}`);
      lines.push(`${this.latencyName}_count{${labels(...common)}} ${e.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

function labels(...pairs: Array<[string, string]>): string {
  return pairs.map(([name, value]) => `${name}="${escapeLabel(value)}"`).join(',');
}

/** The text format's label escaping: backslash, double quote and line feed. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
