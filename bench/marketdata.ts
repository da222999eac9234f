// `npm run bench:marketdata`: live order books on `omnibook serve` (embedded default, the five simulators in a
// process of their own), on 127.0.0.1.
//  1. Cold bursts: BENCH_BURST_CLIENTS (200) concurrent requests for one book nobody asked for yet, repeated on
//     BENCH_BURSTS (10) different Polymarket books; the simulator's request counter tells how many upstream calls
//     each burst made (the goal is one), with the burst's p50/p99.
//  2. Warm books: autocannon with 200 connections rotating over 100 books already asked once, against a bare
//     node:http serving a book of the same size on every path, in the same run (ratio, goal ≥ 0.5; p99 goal
//     ≤ 10 ms). A warm book is served as in production: from the venue's stream once it has been asked for (venues
//     with a native stream), else re-fetched from the venue once its 500 ms reuse ends.
//  3. Latency at light load: the same rotation with BENCH_LIGHT_CONNECTIONS (10) connections, where the time is
//     the server's own work rather than queueing behind 200 connections on the same cores (Little's law: at
//     200 connections even the bare server's p99 is its queue).
// Figures are printed, never asserted. BENCH_PROFILE_DIR=dir runs our server under --cpu-prof.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoadSummary, runLoad } from './load.js';
import { machineFacts } from './machine.js';
import { startBaseline, startBenchStack } from './servers.js';
import type { ServerProcess } from './spawn-server.js';
import { envInt, fetchJson, percentile } from './support.js';

const SETTINGS = {
  burstClients: envInt('BENCH_BURST_CLIENTS', 200),
  bursts: envInt('BENCH_BURSTS', 10),
  warmBooks: envInt('BENCH_WARM_BOOKS', 100),
  connections: envInt('BENCH_CONNECTIONS', 200),
  lightConnections: envInt('BENCH_LIGHT_CONNECTIONS', 10),
  durationS: envInt('BENCH_DURATION', 10),
  rounds: envInt('BENCH_ROUNDS', 3),
  simSize: envInt('BENCH_SIM_SIZE', 300),
};

interface Listed {
  markets: Array<{ svc_id: string; exchange: string; outcomes: Array<{ token_id?: string }> }>;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'omnibook-bench-md-'));
  const servers: ServerProcess[] = [];
  try {
    const { ours, apiKey, sims } = await startBenchStack(tmp, servers, {
      simSize: SETTINGS.simSize,
      profileDir: process.env.BENCH_PROFILE_DIR,
    });
    const headers = { 'x-api-key': apiKey };

    const books: string[] = [];
    for (const exchange of ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun']) {
      const listed = await fetchJson<Listed>(`${ours.url}/api/v1/markets?exchanges=${exchange}&limit=100`, {
        headers,
      });
      for (const m of listed.markets) {
        if (m.outcomes.every((o) => o.token_id))
          books.push(`/api/v1/orderbook?svc_id=${encodeURIComponent(m.svc_id)}`);
      }
    }
    const polymarketBooks = books.filter((b) => b.includes('polymarket'));
    if (polymarketBooks.length < SETTINGS.bursts + 1)
      throw new Error('too few Polymarket books for the bursts');

    // 1. Cold bursts.
    const polymarketControl = sims.config.venues.polymarket?.clobUrl;
    if (!polymarketControl) throw new Error('no Polymarket simulator URL');
    const burstLines: string[] = [];
    const allCalls: number[] = [];
    for (let i = 0; i < SETTINGS.bursts; i++) {
      const path = `${polymarketBooks[i]}&outcome=no`;
      // Resolve the market (its Yes book) first, so the burst measures the cold book alone.
      await fetchJson(`${ours.url}${polymarketBooks[i]}`, { headers });
      await fetch(`${polymarketControl}/__sim/requests`, { method: 'DELETE' });
      const latencies: number[] = [];
      const statuses = new Map<number, number>();
      await Promise.all(
        Array.from({ length: SETTINGS.burstClients }, async () => {
          const started = performance.now();
          const res = await fetch(`${ours.url}${path}`, { headers });
          await res.arrayBuffer();
          latencies.push(performance.now() - started);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }),
      );
      const counts = (
        await fetchJson<{ counts: Record<string, number> }>(`${polymarketControl}/__sim/requests`)
      ).counts;
      const calls = Object.entries(counts)
        .filter(([route]) => route.endsWith('/book'))
        .reduce((n, [, c]) => n + c, 0);
      allCalls.push(calls);
      latencies.sort((a, b) => a - b);
      burstLines.push(
        `${String(i + 1).padStart(5)}   ${String(calls).padStart(14)}   ${percentile(latencies, 50).toFixed(2).padStart(6)}   ` +
          `${percentile(latencies, 99).toFixed(2).padStart(6)}   ${[...statuses].map(([s, n]) => `${s}×${n}`).join(' ')}`,
      );
    }

    // 2. Warm books.
    const warm = books.slice(0, SETTINGS.warmBooks);
    for (const path of warm) await fetchJson(`${ours.url}${path}`, { headers });
    const sample = await fetch(`${ours.url}${warm[0]}`, { headers });
    const bodyFile = join(tmp, 'baseline-body.json');
    writeFileSync(bodyFile, Buffer.from(await sample.arrayBuffer()));
    const contentType = sample.headers.get('content-type') ?? 'application/json';
    const baseline = await startBaseline({ bodyFile, contentType, anyPath: true });
    servers.push(baseline);
    const rows: string[] = [];
    const ratios: number[] = [];
    const lightRows: string[] = [];
    const row = (round: number, r: LoadSummary) =>
      `${String(round).padStart(5)}   ${r.title.split('#')[0]?.padEnd(8)}   ${r.reqPerSec.toFixed(1).padStart(10)}   ` +
      `${r.p50Ms.toFixed(2).padStart(6)}   ${r.p99Ms.toFixed(2).padStart(6)}   ${String(r.non2xx).padStart(7)}   ${r.errors}`;
    for (let round = 1; round <= SETTINGS.rounds; round++) {
      const load = (title: string, url: string, connections: number) =>
        runLoad({ title, url, headers, connections, durationS: SETTINGS.durationS, paths: warm });
      const b = await load(`baseline#${round}`, `${baseline.url}${warm[0]}`, SETTINGS.connections);
      const o = await load(`omnibook#${round}`, `${ours.url}${warm[0]}`, SETTINGS.connections);
      ratios.push(o.reqPerSec / b.reqPerSec);
      rows.push(row(round, b), row(round, o));
      const lb = await load(`baseline#${round}`, `${baseline.url}${warm[0]}`, SETTINGS.lightConnections);
      const lo = await load(`omnibook#${round}`, `${ours.url}${warm[0]}`, SETTINGS.lightConnections);
      lightRows.push(row(round, lb), row(round, lo));
    }

    const m = machineFacts();
    const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
    process.stdout.write(
      [
        'Omnibook market-data benchmark: GET /api/v1/orderbook (live)',
        '',
        `machine   node ${m.node} | ${m.cpuModel} | ${m.cores} cores | ${m.platform} | ${m.totalMemMiB} MiB RAM`,
        'ours      node bin/omnibook.js serve (embedded default), venues = the five simulators in another process',
        `setup     ${books.length} books listed; world size ${SETTINGS.simSize}`,
        '',
        `cold bursts: ${SETTINGS.burstClients} concurrent requests for one cold Polymarket book, ${SETTINGS.bursts} books`,
        'burst   upstream calls   p50 ms   p99 ms   statuses',
        ...burstLines,
        `upstream calls per cold burst: ${allCalls.join(', ')} (goal: 1 each)`,
        '',
        `warm books: autocannon, ${SETTINGS.connections} connections rotating over ${warm.length} books, ${SETTINGS.durationS} s per server and round; baseline = bare node:http answering a ${sample.headers.get('content-length')}-byte book on every path`,
        'round   server       req/s (mean)   p50 ms   p99 ms   non-2xx   errors',
        ...rows,
        `ratio ours/bare req/s per round: ${ratios.map((r) => r.toFixed(3)).join(', ')}; mean ${mean.toFixed(3)} (goal ≥ 0.5)`,
        '',
        `light load: the same rotation with ${SETTINGS.lightConnections} connections (p99 goal ≤ 10 ms)`,
        'round   server       req/s (mean)   p50 ms   p99 ms   non-2xx   errors',
        ...lightRows,
        '',
      ].join('\n'),
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
