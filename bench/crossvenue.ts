// `npm run bench:crossvenue`: what a GET /route/quote costs against GET /execution-price on the same books, in the
// same run, on `omnibook serve` over the five simulators (their own process), on 127.0.0.1. After the first sync
// pass has linked the sandbox's twins, BENCH_QUOTE_MARKETS (10) polymarket markets with a kalshi twin are asked
// BENCH_QUOTE_ROUNDS (30) times each, one request at a time (the server's own work, not a queue), alternating
// /execution-price on the polymarket market, /route/quote across polymarket and kalshi, and
// /orderbook/consolidated, for the same amount (the two best levels of both books). Prints p50 / p99 per route and
// the ratios of the medians; then GET /arbitrage across polymarket and kalshi (every linked pair's books, priced)
// against /execution-price, alternating, BENCH_ARB_ROUNDS (100) each. Before the servers start, the arbitrage scan
// alone: BENCH_ARB_PAIRS (10,000) linked pairs over in-memory books of BENCH_ARB_LEVELS (20) levels (Polymarket's
// fee on one leg, Kalshi's on the other), CPU time per pair and per full scan, once with every pair crossing (each
// walked to its largest profitable size) and once with one pair in ten crossing (the rest rejected at the best
// asks, as most twins are). Figures are printed, never asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WalkLevel } from '../src/domain/book-walk.js';
import { type ArbitrageLeg, evaluateArbitrage, mayProfit } from '../src/domain/crossvenue/arbitrage.js';
import { Decimal } from '../src/domain/decimal.js';
import { takerFeeFunction } from '../src/domain/fees/fee-for.js';
import type { FeeSchedule } from '../src/domain/fees/schedule.js';
import { machineFacts } from './machine.js';
import { startBenchStack } from './servers.js';
import type { ServerProcess } from './spawn-server.js';
import { envInt, fetchJson, percentile, progress } from './support.js';

const SETTINGS = {
  markets: envInt('BENCH_QUOTE_MARKETS', 10),
  rounds: envInt('BENCH_QUOTE_ROUNDS', 30),
  simSize: envInt('BENCH_SIM_SIZE', 120),
  arbPairs: envInt('BENCH_ARB_PAIRS', 10_000),
  arbLevels: envInt('BENCH_ARB_LEVELS', 20),
  arbRounds: envInt('BENCH_ARB_ROUNDS', 100),
};

/** A deterministic stream of numbers in [0, 1) (the books must be the same on every run). */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return x / 2 ** 32;
  };
}

const POLY: FeeSchedule = { venue: 'polymarket', rate: '0.03', exponent: 1 };
const KALSHI: FeeSchedule = { venue: 'kalshi', feeType: 'quadratic', multiplier: '1' };

/** Asks from `best` up a cent a level, `levels` of them, sizes 5..500. */
function asks(next: () => number, best: number, levels: number): WalkLevel[] {
  return Array.from({ length: levels }, (_, i) => ({
    price: Decimal.fromNumber(Math.min(0.99, Math.round((best + i * 0.01) * 100) / 100)),
    size: Decimal.fromInt(5 + Math.floor(next() * 495)),
  }));
}

function legOf(levels: WalkLevel[], schedule: FeeSchedule): ArbitrageLeg {
  return { asks: levels, fee: takerFeeFunction(schedule, 'buy') ?? (() => Decimal.ZERO) };
}

/** `pairs` linked pairs; a share `crossing` of them with best asks summing to 0.90..0.97, the rest to 1.01..1.10. */
function linkedPairs(pairs: number, levels: number, crossing: number): Array<[ArbitrageLeg, ArbitrageLeg]> {
  const next = rng(34);
  return Array.from({ length: pairs }, (_, i) => {
    const a = 0.2 + Math.round(next() * 50) / 100;
    const sum =
      i % Math.round(1 / crossing) === 0
        ? 0.9 + Math.round(next() * 7) / 100
        : 1.01 + Math.round(next() * 9) / 100;
    const b = Math.round((sum - a) * 100) / 100;
    return [legOf(asks(next, a, levels), POLY), legOf(asks(next, b, levels), KALSHI)];
  });
}

/** CPU milliseconds (user + system) of one full scan of `pairs`, and how many were profitable. */
function scanCpu(pairs: ReadonlyArray<[ArbitrageLeg, ArbitrageLeg]>): { ms: number; found: number } {
  const t0 = process.cpuUsage();
  let found = 0;
  for (const legs of pairs) {
    if (!mayProfit(legs)) continue;
    if (evaluateArbitrage(legs, 1)?.maxProfitable) found += 1;
  }
  const used = process.cpuUsage(t0);
  return { ms: (used.user + used.system) / 1000, found };
}

function domainScan(): void {
  for (const [label, crossing] of [
    ['every pair crossing', 1],
    ['one pair in ten crossing', 0.1],
  ] as const) {
    const pairs = linkedPairs(SETTINGS.arbPairs, SETTINGS.arbLevels, crossing);
    scanCpu(pairs.slice(0, 200)); // warm-up
    const runs = [scanCpu(pairs), scanCpu(pairs), scanCpu(pairs)].sort((x, y) => x.ms - y.ms);
    const median = runs[1] as { ms: number; found: number };
    console.log(
      `arbitrage scan, ${label}: ${SETTINGS.arbPairs} pairs × ${SETTINGS.arbLevels} levels, ${median.found} profitable: ` +
        `${median.ms.toFixed(0)} ms CPU per full scan (median of 3), ${((median.ms * 1000) / SETTINGS.arbPairs).toFixed(1)} µs per pair`,
    );
  }
}

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
    domainScan();
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
    // GET /arbitrage prices every linked pair's books in one answer: against one execution estimate.
    const arb = { execution: [] as number[], arbitrage: [] as number[] };
    const first = encodeURIComponent(chosen[0] as string);
    let scanned = { pairs: 0, books: 0 };
    for (let r = 0; r < SETTINGS.arbRounds; r++) {
      arb.execution.push(
        await timed(`${ours.url}/api/v1/execution-price?svc_id=${first}&side=buy&amount=10`, headers),
      );
      const t0 = performance.now();
      const listing = await fetchJson<{ scan: { pairs: number; books: number } }>(
        `${ours.url}/api/v1/arbitrage?exchanges=polymarket,kalshi`,
        { headers },
      );
      arb.arbitrage.push(performance.now() - t0);
      scanned = listing.scan;
    }
    const ae = stats(arb.execution);
    const aa = stats(arb.arbitrage);
    console.log(
      `GET /arbitrage (polymarket, kalshi: ${scanned.pairs} links, ${scanned.books} books)  p50 ${aa.p50.toFixed(2)} ms  p99 ${aa.p99.toFixed(2)} ms`,
    );
    console.log(`GET /execution-price (same run)  p50 ${ae.p50.toFixed(2)} ms  p99 ${ae.p99.toFixed(2)} ms`);
    console.log(`ratio arbitrage / execution-price (p50): ${(aa.p50 / ae.p50).toFixed(2)}`);
  } finally {
    for (const s of servers.reverse()) await s.stop().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
