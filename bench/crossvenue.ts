// `npm run bench:crossvenue`: what a GET /route/quote costs against GET /execution-price on the same books, in the
// same run, on `omnibook serve` over the five simulators (their own process), on 127.0.0.1. After the first sync
// pass has linked the sandbox's twins, BENCH_QUOTE_MARKETS (10) polymarket markets with a kalshi twin are asked
// BENCH_QUOTE_ROUNDS (30) times each, one request at a time (the server's own work, not a queue), alternating
// /execution-price on the polymarket market, /route/quote across polymarket and kalshi, and
// /orderbook/consolidated, for the same amount (the two best levels of both books). Prints p50 / p99 per route and
// the ratios of the medians. Figures are printed, never asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineFacts } from './machine.js';
import { startBenchStack } from './servers.js';
import type { ServerProcess } from './spawn-server.js';
import { envInt, fetchJson, percentile, progress } from './support.js';

const SETTINGS = {
  markets: envInt('BENCH_QUOTE_MARKETS', 10),
  rounds: envInt('BENCH_QUOTE_ROUNDS', 30),
  simSize: envInt('BENCH_SIM_SIZE', 120),
};

interface Listed {
  markets: Array<{
    svc_id: string;
    matched_markets?: Array<{ svc_id: string; exchange: string; confidence_tier: string }>;
  }>;
  pagination: { next_cursor?: string };
}

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'omnibook-bench-xv-'));
  const servers: ServerProcess[] = [];
  try {
    const { ours, apiKey } = await startBenchStack(tmp, servers, { simSize: SETTINGS.simSize });
    const headers = { 'x-api-key': apiKey };
    const chosen: string[] = [];
    for (let cursor: string | undefined; chosen.length < SETTINGS.markets; ) {
      const page = await fetchJson<Listed>(
        `${ours.url}/api/v1/markets?exchanges=polymarket&limit=100&include_matches=true${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { headers },
      );
      for (const m of page.markets) {
        if (m.matched_markets?.some((l) => l.exchange === 'kalshi' && l.confidence_tier === 'HIGH'))
          chosen.push(m.svc_id);
      }
      cursor = page.pagination.next_cursor;
      if (!cursor) break;
    }
    if (chosen.length === 0) throw new Error('no polymarket market with a kalshi twin');
    progress(`${chosen.length} polymarket markets with a kalshi twin`);
    const times = { execution: [] as number[], quote: [] as number[], consolidated: [] as number[] };
    for (const svc of chosen.slice(0, SETTINGS.markets)) {
      const q = `svc_id=${encodeURIComponent(svc)}`;
      const book = await fetchJson<{ asks: Array<[number, number]> }>(`${ours.url}/api/v1/orderbook?${q}`, {
        headers,
      });
      const amount = Math.max(
        1,
        Math.round(((book.asks[0]?.[1] ?? 1) + (book.asks[1]?.[1] ?? 0)) * 100) / 100,
      );
      for (let r = 0; r < SETTINGS.rounds; r++) {
        times.execution.push(
          await timed(`${ours.url}/api/v1/execution-price?${q}&side=buy&amount=${amount}`, headers),
        );
        times.quote.push(
          await timed(
            `${ours.url}/api/v1/route/quote?${q}&side=buy&amount=${amount}&exchanges=polymarket,kalshi`,
            headers,
          ),
        );
        times.consolidated.push(await timed(`${ours.url}/api/v1/orderbook/consolidated?${q}`, headers));
      }
    }
    const stats = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return { p50: percentile(s, 50), p99: percentile(s, 99) };
    };
    const e = stats(times.execution);
    const qt = stats(times.quote);
    const c = stats(times.consolidated);
    console.log(JSON.stringify({ machine: machineFacts(), settings: SETTINGS }, null, 2));
    console.log(`requests per route: ${times.execution.length}, one at a time`);
    console.log(`GET /execution-price          p50 ${e.p50.toFixed(2)} ms  p99 ${e.p99.toFixed(2)} ms`);
    console.log(`GET /route/quote (2 venues)   p50 ${qt.p50.toFixed(2)} ms  p99 ${qt.p99.toFixed(2)} ms`);
    console.log(`GET /orderbook/consolidated   p50 ${c.p50.toFixed(2)} ms  p99 ${c.p99.toFixed(2)} ms`);
    console.log(`ratio quote / execution-price (p50): ${(qt.p50 / e.p50).toFixed(2)}`);
    console.log(`ratio consolidated / execution-price (p50): ${(c.p50 / e.p50).toFixed(2)}`);
  } finally {
    for (const s of servers.reverse()) await s.stop().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
