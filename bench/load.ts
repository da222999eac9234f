// One autocannon run against one URL, summarised: mean req/s as autocannon reports it, exact p50/p99 of the
// 2xx latencies (taken per response at sub-millisecond resolution), and every non-2xx or socket failure.
import autocannon from 'autocannon';

export interface LoadOptions {
  title: string;
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationS: number;
  /** Request paths sent in turn (e.g. different search words); the URL's own path when absent. */
  paths?: readonly string[];
}

export interface LoadSummary {
  title: string;
  /** Mean of autocannon's per-second request samples. */
  reqPerSec: number;
  totalRequests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** Count per HTTP status code, e.g. { '200': 91234 }. */
  statusCodes: Record<string, number>;
  /** Socket errors, timeouts included. */
  errors: number;
  timeouts: number;
  durationS: number;
}

export function runLoad(options: LoadOptions): Promise<LoadSummary> {
  const latencies = new LatencyRecorder();
  return new Promise<LoadSummary>((resolve, reject) => {
    const instance = autocannon(
      {
        title: options.title,
        url: options.url,
        method: 'GET',
        headers: options.headers,
        connections: options.connections,
        duration: options.durationS,
        timeout: 10,
        ...(options.paths && options.paths.length > 0 ? { requests: [rotatingPaths(options.paths)] } : {}),
      },

      (error: Error | null, result: autocannon.Result) => {
        if (error) {
          reject(error);
          return;
        }
        resolve(summarise(options.title, result, latencies));
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      if (statusCode >= 200 && statusCode < 300) latencies.add(responseTimeMs);
    });
  });
}

function rotatingPaths(paths: readonly string[]): autocannon.Request {
  let next = 0;
  return {
    setupRequest: (request) => {
      const path = paths[next++ % paths.length] as string;
      return { ...request, path };
    },
  };
}

/** Total non-2xx responses plus socket errors (timeouts included): anything but a clean 2xx. */

export function failuresOf(summary: LoadSummary): number {
  return summary.non2xx + summary.errors;
}

function summarise(title: string, result: autocannon.Result, latencies: LatencyRecorder): LoadSummary {
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {}))
    statusCodes[code] = stat.count ?? 0;
  return {
    title,
    reqPerSec: result.requests.mean,
    totalRequests: result.requests.total,
    p50Ms: latencies.percentile(50),
    p99Ms: latencies.percentile(99),
    non2xx: result.non2xx,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    durationS: result.duration,
  };
}

class LatencyRecorder {
  private values = new Float64Array(1 << 16);
  private size = 0;

  add(ms: number): void {
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.size++] = ms;
  }

  /** Nearest-rank percentile; NaN when nothing was recorded. */
  percentile(p: number): number {
    if (this.size === 0) return Number.NaN;
    const sorted = this.values.slice(0, this.size).sort();
    const rank = Math.min(this.size, Math.max(1, Math.ceil((p / 100) * this.size)));
    return sorted[rank - 1] ?? Number.NaN;
  }
}
