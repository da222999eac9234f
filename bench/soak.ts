// `npm run soak`: SOAK_MINUTES (30) of mixed load on `omnibook serve` (embedded default, the five simulators in a
// process of their own, as bench/servers.ts starts them), all on 127.0.0.1, watching the server's memory.
//  - SOAK_WORKERS (4) HTTP loops, each picking by weight: catalogue search and list, an order book, an execution
//    price, and an order placed (a resting buy at the lowest tick, with a paper account's credentials) then
//    cancelled, on polymarket and kalshi.
//  - SOAK_WS_CLIENTS (40) WebSocket clients, each subscribed to one book; every SOAK_WS_CHURN_S (5) seconds a
//    quarter of them are closed and as many new ones open, authenticate and subscribe to other books.
//  - The streamed simulators are advanced (POST /__sim/advance) once a second, so the books move and stream.
// Every SOAK_SAMPLE_S (10) seconds: the server's RSS (/proc) and its V8 heap (its own /metrics). At the end: the
// trend of each (least-squares slope in MB/hour, over all samples and after the first two minutes of warm-up; mean
// of the first third against the last third), and every unexpected answer (any status but the one expected, a
// dropped connection, a WebSocket error) counted and the first ones shown. Writes bench/results/soak.json,
// soak.csv and soak-memory.png (src/replay/line-chart.ts). Figures are printed and written, never asserted.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { lineChart } from '../src/replay/line-chart.js';
import { machineFacts, processMemory } from './machine.js';
import { REPO_ROOT, startBenchStack } from './servers.js';
import type { ServerProcess } from './spawn-server.js';
import { envInt, fetchJson, progress } from './support.js';

const SETTINGS = {
  minutes: Number(process.env.SOAK_MINUTES ?? '30'),
  sampleS: envInt('SOAK_SAMPLE_S', 10),
  workers: envInt('SOAK_WORKERS', 4),
  wsClients: envInt('SOAK_WS_CLIENTS', 40),
  wsChurnS: envInt('SOAK_WS_CHURN_S', 5),
  simSize: envInt('BENCH_SIM_SIZE', 100),
};
if (!(SETTINGS.minutes > 0))
  throw new Error(`SOAK_MINUTES must be a positive number, got ${process.env.SOAK_MINUTES}`);

const STREAMED = ['polymarket', 'kalshi', 'limitless'];
const TRADED = ['polymarket', 'kalshi'] as const;

interface MarketRef {
  svc_id: string;
  exchange: string;
  exchange_market_id: string;
  question: string;
  outcomes: Array<{ name: string; token_id?: string }>;
  tick_size: number | null;
  status: string;
}

interface Sample {
  t_s: number;
  rss_mb: number;
  heap_used_mb: number;
  heap_total_mb: number;
  external_mb: number;
  requests: number;
  ws_open: number;
  ws_messages: number;
  /** The machine's 1-minute load average when the sample was taken (the machine is shared: it says how busy). */
  load_1m: number;
}

/**
 * Unexpected answers by kind, with the first few of each kind kept whole (per kind, so that a rare kind is not
 * crowded out by a frequent one such as timeouts on a busy machine).
 */
class Errors {
  readonly counts = new Map<string, number>();
  readonly examples: string[] = [];
  add(kind: string, detail: string): void {
    const seen = this.counts.get(kind) ?? 0;
    this.counts.set(kind, seen + 1);
    if (seen < 3 && this.examples.length < 40) this.examples.push(`${kind}: ${detail.slice(0, 500)}`);
  }
  total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }
}

/** Least-squares slope of y over x. */
function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

interface Trend {
  slopeMbPerHour: number;
  slopeAfterWarmupMbPerHour: number;
  firstThirdMb: number;
  lastThirdMb: number;
}

function trend(samples: Sample[], pick: (s: Sample) => number): Trend {
  const points = samples.map((s) => [s.t_s / 3600, pick(s)] as const);
  const third = Math.max(1, Math.floor(samples.length / 3));
  return {
    slopeMbPerHour: slope(points),
    slopeAfterWarmupMbPerHour: slope(points.filter(([h]) => h * 60 >= 2)),
    firstThirdMb: mean(samples.slice(0, third).map(pick)),
    lastThirdMb: mean(samples.slice(-third).map(pick)),
  };
}

/** The server's own V8 figures, from its Prometheus text (prom-client's default metrics, prefix omnibook_). */
async function heapOf(url: string): Promise<{ used: number; total: number; external: number }> {
  const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  const metric = (name: string) => {
    const match = new RegExp(`^omnibook_${name} (\\S+)$`, 'm').exec(text);
    return match?.[1] === undefined ? Number.NaN : Number(match[1]) / 1024 / 1024;
  };
  return {
    used: metric('nodejs_heap_size_used_bytes'),
    total: metric('nodejs_heap_size_total_bytes'),
    external: metric('nodejs_external_memory_bytes'),
  };
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'omnibook-soak-'));
  const servers: ServerProcess[] = [];
  const sockets = new Set<WebSocket>();
  const errors = new Errors();
  let running = true;
  try {
    const { ours, apiKey, sims, synced } = await startBenchStack(tmp, servers, { simSize: SETTINGS.simSize });
    const headers = { 'x-api-key': apiKey };
    progress(`catalogue: ${synced.markets} markets`);

    // What the load works on: active markets with their outcomes, per exchange.
    const markets: MarketRef[] = [];
    for (const exchange of [...STREAMED, 'opinion', 'predictfun']) {
      const page = await fetchJson<{ markets: MarketRef[] }>(
        `${ours.url}/api/v1/markets?exchanges=${exchange}&status=active&limit=100`,
        { headers },
      );
      markets.push(...page.markets.filter((m) => m.outcomes.length > 0));
    }
    const streamedBooks = markets.filter((m) => STREAMED.includes(m.exchange));
    const words = [
      ...new Set(markets.flatMap((m) => m.question.split(/\W+/).filter((w) => w.length > 3))),
    ].slice(0, 200);
    const accounts: Record<string, string> = {};
    const tradable: Record<string, MarketRef[]> = {};
    for (const exchange of TRADED) {
      const created = await fetchJson<{ credentials: Record<string, string> }>(
        `${sims.controls[exchange]}/__sim/accounts`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      );
      accounts[exchange] = Buffer.from(JSON.stringify(created.credentials)).toString('base64');
      tradable[exchange] = markets.filter((m) => m.exchange === exchange && m.tick_size);
      if ((tradable[exchange] ?? []).length === 0) throw new Error(`no tradable ${exchange} market`);
    }
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T;

    let requests = 0;
    let cancelRetries = 0;
    /** One request; anything but `expected` is an unexpected error. Resolves to the parsed body (or null). */
    const call = async (
      kind: string,
      path: string,
      expected: number,
      init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
    ): Promise<unknown> => {
      requests += 1;
      try {
        const res = await fetch(`${ours.url}${path}`, {
          method: init.method ?? 'GET',
          headers: {
            ...headers,
            ...init.headers,
            ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
          signal: AbortSignal.timeout(60_000),
        });
        const text = await res.text();
        if (res.status !== expected) {
          errors.add(`${kind} ${res.status}`, `${init.method ?? 'GET'} ${path} → ${text}`);
          return null;
        }
        return text ? JSON.parse(text) : null;
      } catch (error) {
        errors.add(`${kind} network`, `${path}: ${(error as Error).message}`);
        return null;
      }
    };

    const operations: Array<[number, () => Promise<unknown>]> = [
      [3, () => call('search', `/api/v1/markets?search=${encodeURIComponent(pick(words))}&limit=20`, 200)],
      [1, () => call('list', `/api/v1/markets?limit=100&status=active`, 200)],
      [
        3,
        () => {
          const m = pick(markets);
          const outcome = encodeURIComponent(pick(m.outcomes).name);
          return call(
            'orderbook',
            `/api/v1/orderbook?svc_id=${encodeURIComponent(m.svc_id)}&outcome=${outcome}`,
            200,
          );
        },
      ],
      [
        2,
        () => {
          const m = pick(streamedBooks);
          const outcome = encodeURIComponent(pick(m.outcomes).name);
          return call(
            'execution-price',
            `/api/v1/execution-price?svc_id=${encodeURIComponent(m.svc_id)}&outcome=${outcome}&side=buy&amount=1`,
            200,
          );
        },
      ],
      [
        1,
        async () => {
          const exchange = pick(TRADED);
          const m = pick(tradable[exchange] ?? []);
          const creds = { 'x-exchange-credentials': accounts[exchange] ?? '' };
          const order = (await call('order place', `/api/v1/orders?exchange=${exchange}`, 200, {
            method: 'POST',
            headers: creds,
            body: {
              market_id: m.exchange_market_id,
              outcome: m.outcomes[0]?.name,
              side: 'buy',
              price: m.tick_size,
              size: 5,
            },
          })) as { id?: string } | null;
          if (!order?.id) return;
          const path = `/api/v1/orders/${encodeURIComponent(order.id)}?exchange=${exchange}`;
          // An order the exchange has not confirmed yet (the send outlived its timeout on a busy machine) cannot be
          // cancelled: 503 retryable says to wait until GET shows it, as a client would (counted apart, not an error).
          for (let attempt = 0; attempt < 30; attempt++) {
            requests += 1;
            const res = await fetch(`${ours.url}${path}`, {
              method: 'DELETE',
              headers: { ...headers, ...creds },
              signal: AbortSignal.timeout(60_000),
            }).catch((error: Error) => error);
            if (res instanceof Error) {
              errors.add('order cancel network', res.message);
              return;
            }
            const text = await res.text();
            if (res.status === 200) return;
            if (res.status !== 503 || !text.includes('"retryable":true')) {
              errors.add(`order cancel ${res.status}`, `DELETE ${path} → ${text}`);
              return;
            }
            cancelRetries += 1;
            await new Promise((r) => setTimeout(r, 1_000));
            await call('order poll', path, 200, { headers: creds });
          }
          errors.add('order cancel', `DELETE ${path}: still unconfirmed after 30 tries`);
        },
      ],
    ];
    const totalWeight = operations.reduce((n, [w]) => n + w, 0);
    const operation = () => {
      let x = Math.random() * totalWeight;
      for (const [w, op] of operations) {
        x -= w;
        if (x < 0) return op;
      }
      return operations[0]?.[1] ?? (async () => undefined);
    };

    // WebSocket clients: each authenticates, subscribes to one book and counts what it is sent.
    let wsMessages = 0;
    const wsUrl = `${ours.url.replace(/^http/, 'ws')}/ws`;
    const openClient = () =>
      new Promise<void>((resolve) => {
        const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
        let closing = false;
        const settle = setTimeout(() => {
          errors.add('ws timeout', 'no snapshot within 30 s');
          resolve();
        }, 30_000);
        ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', api_key: apiKey })));
        ws.on('message', (data: Buffer) => {
          wsMessages += 1;
          const m = JSON.parse(data.toString()) as { type: string };
          if (m.type === 'auth_ok') {
            const book = pick(streamedBooks);
            ws.send(JSON.stringify({ type: 'subscribe', markets: [{ svc_id: book.svc_id, depth: 10 }] }));
          } else if (m.type === 'orderbook') {
            clearTimeout(settle);
            resolve();
          } else if (m.type === 'error' || m.type === 'auth_error') {
            errors.add(`ws ${m.type}`, data.toString());
          }
        });
        ws.on('error', (error) => {
          if (!closing) errors.add('ws error', error.message);
        });
        ws.on('close', (code) => {
          sockets.delete(ws);
          if (!closing && running) errors.add('ws closed by the server', `code ${code}`);
          clearTimeout(settle);
          resolve();
        });
        (ws as WebSocket & { closeCleanly?: () => void }).closeCleanly = () => {
          closing = true;
          // A socket still connecting cannot send a close frame: the client drops it (its own doing, not an error).
          if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
          else ws.close(1000);
        };
        sockets.add(ws);
      });
    const closeClient = (ws: WebSocket) => (ws as WebSocket & { closeCleanly?: () => void }).closeCleanly?.();

    progress(`opening ${SETTINGS.wsClients} WebSocket clients`);
    await Promise.all(Array.from({ length: SETTINGS.wsClients }, openClient));

    const loops: Array<Promise<void>> = [];
    // The simulators move once a second.
    loops.push(
      (async () => {
        while (running) {
          await Promise.all(
            STREAMED.map((e) =>
              fetch(`${sims.controls[e]}/__sim/advance`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ steps: 1 }),
              }).then((r) => r.text()),
            ),
          ).catch((error) => errors.add('simulator advance', (error as Error).message));
          await new Promise((r) => setTimeout(r, 1_000));
        }
      })(),
    );
    // WebSocket churn.
    loops.push(
      (async () => {
        while (running) {
          await new Promise((r) => setTimeout(r, SETTINGS.wsChurnS * 1_000));
          if (!running) break;
          const leaving = [...sockets]
            .sort(() => Math.random() - 0.5)
            .slice(0, Math.ceil(SETTINGS.wsClients / 4));
          for (const ws of leaving) closeClient(ws);
          await Promise.all(leaving.map(() => openClient()));
        }
      })(),
    );
    for (let w = 0; w < SETTINGS.workers; w++) {
      loops.push(
        (async () => {
          while (running) await operation()();
        })(),
      );
    }

    const samples: Sample[] = [];
    const started = performance.now();
    // SIGINT or SIGTERM ends the load early; the figures cover the samples taken so far.
    let stopEarly: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      stopEarly = resolve;
    });
    let interrupted = false;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        interrupted = true;
        progress(`${signal}: ending the soak early`);
        stopEarly();
      });
    }
    const durationMs = SETTINGS.minutes * 60_000;
    progress(`mixed load for ${SETTINGS.minutes} min, memory sampled every ${SETTINGS.sampleS} s`);
    for (;;) {
      const t_s = (performance.now() - started) / 1000;
      const rss = processMemory(ours.pid);
      const heap = await heapOf(ours.url).catch(() => ({
        used: Number.NaN,
        total: Number.NaN,
        external: Number.NaN,
      }));
      const sample: Sample = {
        t_s: Math.round(t_s),
        rss_mb: (rss?.rssKiB ?? Number.NaN) / 1024,
        heap_used_mb: heap.used,
        heap_total_mb: heap.total,
        external_mb: heap.external,
        requests,
        ws_open: sockets.size,
        ws_messages: wsMessages,
        load_1m: loadavg()[0] ?? Number.NaN,
      };
      samples.push(sample);
      if (samples.length % 6 === 1) {
        progress(
          `${(t_s / 60).toFixed(1)} min: RSS ${sample.rss_mb.toFixed(1)} MB, heap ${sample.heap_used_mb.toFixed(1)} MB, ` +
            `${requests} requests, ${wsMessages} WS messages, ${errors.total()} unexpected`,
        );
      }
      if (!ours.alive()) {
        errors.add('server died', ours.stderrTail());
        break;
      }
      const next = started + samples.length * SETTINGS.sampleS * 1000;
      if (next - started > durationMs) break;
      await Promise.race([stopped, new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())))]);
      if (interrupted) break;
    }
    running = false;
    for (const ws of sockets) closeClient(ws);
    await Promise.all(loops);

    const rssTrend = trend(samples, (s) => s.rss_mb);
    const heapTrend = trend(samples, (s) => s.heap_used_mb);
    const elapsedS = samples.at(-1)?.t_s ?? 0;
    const machine = machineFacts();
    const loads = samples.map((s) => s.load_1m);
    const loadLine = `load average (1 min) during the run: mean ${mean(loads).toFixed(2)}, min ${Math.min(...loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)} on ${machineFacts().cores} cores`;
    const line = (name: string, t: Trend) =>
      `${name.padEnd(10)} slope ${t.slopeMbPerHour.toFixed(2).padStart(8)} MB/h (after warm-up ${t.slopeAfterWarmupMbPerHour.toFixed(2)} MB/h); ` +
      `first third ${t.firstThirdMb.toFixed(1)} MB, last third ${t.lastThirdMb.toFixed(1)} MB ` +
      `(${(((t.lastThirdMb - t.firstThirdMb) / t.firstThirdMb) * 100).toFixed(1)} %)`;
    const report = [
      `soak: ${(elapsedS / 60).toFixed(1)} min of mixed load on omnibook serve (SQLite), ${samples.length} samples every ${SETTINGS.sampleS} s`,
      `machine: ${machine.cpuModel}, ${machine.cores} cores, node ${machine.node} (shared machine: other work was running)`,
      loadLine,
      ...(interrupted
        ? [`stopped early by a signal after ${(elapsedS / 60).toFixed(1)} of ${SETTINGS.minutes} min`]
        : []),
      `load: ${requests} HTTP requests (${(requests / Math.max(1, elapsedS)).toFixed(1)}/s over ${SETTINGS.workers} workers), ` +
        `${wsMessages} WebSocket messages to ${SETTINGS.wsClients} clients churned by a quarter every ${SETTINGS.wsChurnS} s`,
      line('RSS', rssTrend),
      line('heap used', heapTrend),
      `order cancels retried after 503 retryable (order not yet confirmed by the exchange): ${cancelRetries}`,
      `unexpected errors: ${errors.total()}${[...errors.counts].map(([k, n]) => `\n  ${k} × ${n}`).join('')}`,
      ...errors.examples.map((e) => `  e.g. ${e}`),
    ];
    process.stdout.write(`${report.join('\n')}\n`);

    const dir = join(REPO_ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'soak.json'),
      `${JSON.stringify(
        {
          at: new Date().toISOString(),
          machine,
          settings: SETTINGS,
          requests,
          wsMessages,
          cancelRetries,
          interrupted,
          loadAverage1m: { mean: mean(loads), min: Math.min(...loads), max: Math.max(...loads) },
          trend: { rss: rssTrend, heapUsed: heapTrend },
          unexpectedErrors: Object.fromEntries(errors.counts),
          examples: errors.examples,
          samples,
        },
        null,
        2,
      )}\n`,
    );
    const columns = Object.keys(samples[0] ?? {}) as Array<keyof Sample>;
    writeFileSync(
      join(dir, 'soak.csv'),
      `${[columns.join(','), ...samples.map((s) => columns.map((c) => (typeof s[c] === 'number' ? +s[c].toFixed(2) : s[c])).join(','))].join('\n')}\n`,
    );
    const minutes = (s: Sample) => s.t_s / 60;
    writeFileSync(
      join(dir, 'soak-memory.png'),
      lineChart(
        [
          {
            label: 'RSS',
            color: [31, 119, 180],
            points: samples.map((s) => [minutes(s), s.rss_mb] as const),
          },
          {
            label: 'heap total',
            color: [44, 160, 44],
            points: samples.map((s) => [minutes(s), s.heap_total_mb] as const),
          },
          {
            label: 'heap used',
            color: [255, 127, 14],
            points: samples.map((s) => [minutes(s), s.heap_used_mb] as const),
          },
        ],
        {
          title: `OMNIBOOK SERVE MEMORY UNDER MIXED LOAD (${SETTINGS.minutes} MIN SOAK)`,
          xLabel: 'MINUTES',
          yLabel: 'MB',
        },
      ),
    );
    progress(`wrote bench/results/soak.json, soak.csv and soak-memory.png`);
  } finally {
    running = false;
    for (const ws of sockets) ws.terminate();
    for (const s of servers.reverse()) await s.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`soak: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
