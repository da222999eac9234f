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
// asks, as most twins are). GET /arbitrage also prints the server's CPU time per answer (from /proc, summed over
// the rounds) and the venue requests each answer made (the simulators' request counters): books are read through
// the stream copy or the short REST cache, so the fan-out is at most one read per book per cache lifetime.
// Last, POST /route/orders (polymarket + kalshi, immediate legs on both) next to POST /orders (one immediate order,
// on each of the same two venues) with paper accounts, alternating, BENCH_ROUTE_ROUNDS (40) of each: p50 / p99,
// the server's CPU time per request, and the ratios. Figures are printed, never asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WalkLevel } from '../src/domain/book-walk.js';
import { type ArbitrageLeg, evaluateArbitrage, mayProfit } from '../src/domain/crossvenue/arbitrage.js';
import { Decimal } from '../src/domain/decimal.js';
import { takerFeeFunction } from '../src/domain/fees/fee-for.js';
import type { FeeSchedule } from '../src/domain/fees/schedule.js';
import { machineFacts, processCpuMs } from './machine.js';
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
  routeRounds: envInt('BENCH_ROUTE_ROUNDS', 40),
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

/** Wall ms of one call, and the server process's CPU ms during it (added to `cpu[kind]`). */
async function measured(
  pid: number,
  cpu: Record<string, number>,
  kind: string,
  call: () => Promise<void>,
): Promise<number> {
  const c0 = processCpuMs(pid) ?? 0;
  const t0 = performance.now();
  await call();
  const took = performance.now() - t0;
  cpu[kind] = (cpu[kind] ?? 0) + ((processCpuMs(pid) ?? 0) - c0);
  return took;
}

/** Venue requests the simulators have counted so far, all routes together. */
async function venueRequests(controls: Record<string, string>, exchanges: string[]): Promise<number> {
  let n = 0;
  for (const e of exchanges) {
    const got = await fetchJson<{ counts: Record<string, number> }>(`${controls[e]}/__sim/requests`);
    for (const v of Object.values(got.counts)) n += v;
  }
  return n;
}

interface Twin {
  poly: string;
  kalshi: string;
}

/**
 * POST /route/orders across polymarket and kalshi against POST /orders on each venue alone, alternating; immediate
 * orders (ioc) that take the best asks, so every request reaches the venues. Each order is worth about $2.
 */
async function routeOrders(
  url: string,
  apiKey: string,
  pid: number,
  controls: Record<string, string>,
  twins: Twin[],
): Promise<void> {
  const credentials: Record<string, Record<string, string>> = {};
  for (const e of ['polymarket', 'kalshi']) {
    const res = await fetch(`${controls[e]}/__sim/accounts`, { method: 'POST' });
    if (res.status !== 200 && res.status !== 201) throw new Error(`${e} POST /__sim/accounts ${res.status}`);
    credentials[e] = ((await res.json()) as { credentials: Record<string, string> }).credentials;
  }
  const json = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const times = { route: [] as number[], polymarket: [] as number[], kalshi: [] as number[] };
  const cpu: Record<string, number> = {};
  const statuses: Record<string, Record<number, number>> = { route: {}, polymarket: {}, kalshi: {} };
  const count = (kind: string, status: number) => {
    const m = statuses[kind] as Record<number, number>;
    m[status] = (m[status] ?? 0) + 1;
  };
  let n = 0;
  const seen = new Set<string>();
  // A twin whose kalshi market is not open for trading (409) is left out of the rotation from then on.
  const closed = new Set<Twin>();
  for (let r = 0, at = 0; r < SETTINGS.routeRounds && at < SETTINGS.routeRounds * 4; at++) {
    const twin = twins[at % twins.length] as Twin;
    if (closed.has(twin)) continue;
    let refused = false;
    for (const [exchange, svc] of [
      ['polymarket', twin.poly],
      ['kalshi', twin.kalshi],
    ] as const) {
      const book = await fetchJson<{ market_id: string; outcome: string; asks: Array<[number, number]> }>(
        `${url}/api/v1/orderbook?svc_id=${encodeURIComponent(svc)}&outcome=yes&limit=1`,
        { headers: json },
      );
      const ask = book.asks[0]?.[0] ?? 0.5;
      const body = JSON.stringify({
        market_id: book.market_id,
        outcome: book.outcome,
        side: 'buy',
        price: ask,
        size: Math.max(5, Math.ceil(2 / ask)),
        params: { order_type: 'ioc' },
      });
      // Only orders the venue took count (a 409 for a market not open is not the path measured).
      const c0 = processCpuMs(pid) ?? 0;
      const t0 = performance.now();
      const res = await fetch(`${url}/api/v1/orders?exchange=${exchange}`, {
        method: 'POST',
        headers: {
          ...json,
          'idempotency-key': `bench-order-${++n}`,
          'x-exchange-credentials': Buffer.from(JSON.stringify(credentials[exchange])).toString('base64'),
        },
        body,
      });
      const text = await res.text();
      const took = performance.now() - t0;
      const used = (processCpuMs(pid) ?? 0) - c0;
      count(exchange, res.status);
      if (res.status === 409) refused = true;
      if (res.status === 200) {
        times[exchange].push(took);
        cpu[exchange] = (cpu[exchange] ?? 0) + used;
      } else if (!seen.has(exchange)) {
        seen.add(exchange);
        progress(`POST /orders ${exchange} ${res.status}: ${text.slice(0, 300)}`);
      }
    }
    if (refused) {
      closed.add(twin);
      continue;
    }
    r += 1;
    const book = await fetchJson<{ asks: Array<[number, number]> }>(
      `${url}/api/v1/orderbook?svc_id=${encodeURIComponent(twin.poly)}&outcome=yes&limit=1`,
      { headers: json },
    );
    // Past the best polymarket level, so the split takes both venues where the books allow.
    const amount = Math.max(10, Math.ceil((book.asks[0]?.[1] ?? 5) * 1.5));
    times.route.push(
      await measured(pid, cpu, 'route', async () => {
        const res = await fetch(`${url}/api/v1/route/orders`, {
          method: 'POST',
          headers: { ...json, 'idempotency-key': `bench-route-${++n}` },
          body: JSON.stringify({
            svc_id: twin.poly,
            outcome: 'Yes',
            side: 'buy',
            amount: String(amount),
            exchanges: ['polymarket', 'kalshi'],
            max_slippage: '1',
            credentials,
          }),
        });
        const text = await res.text();
        count('route', res.status);
        if (res.status === 200) {
          const legs = (JSON.parse(text) as { legs: unknown[] }).legs.length;
          statuses.legs = { ...(statuses.legs ?? {}), [legs]: (statuses.legs?.[legs] ?? 0) + 1 };
        }
      }),
    );
  }
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { p50: percentile(s, 50), p99: percentile(s, 99) };
  };
  const per = (kind: keyof typeof times) => (cpu[kind] ?? 0) / Math.max(1, times[kind].length);
  const rt = stats(times.route);
  const pm = stats(times.polymarket);
  const ks = stats(times.kalshi);
  console.log(
    `requests per route: ${times.route.length}, one at a time; answers ${JSON.stringify(statuses)}`,
  );
  console.log(
    `POST /route/orders (2 venues)  p50 ${rt.p50.toFixed(2)} ms  p99 ${rt.p99.toFixed(2)} ms  CPU ${per('route').toFixed(2)} ms/request`,
  );
  console.log(
    `POST /orders polymarket        p50 ${pm.p50.toFixed(2)} ms  p99 ${pm.p99.toFixed(2)} ms  CPU ${per('polymarket').toFixed(2)} ms/request`,
  );
  console.log(
    `POST /orders kalshi            p50 ${ks.p50.toFixed(2)} ms  p99 ${ks.p99.toFixed(2)} ms  CPU ${per('kalshi').toFixed(2)} ms/request`,
  );
  const both = per('polymarket') + per('kalshi');
  console.log(
    `ratio route / (polymarket + kalshi orders): p50 ${(rt.p50 / (pm.p50 + ks.p50)).toFixed(2)}, CPU ${(per('route') / Math.max(both, 1e-9)).toFixed(2)}`,
  );
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'omnibook-bench-xv-'));
  const servers: ServerProcess[] = [];
  try {
    domainScan();
    const { ours, apiKey, sims } = await startBenchStack(tmp, servers, { simSize: SETTINGS.simSize });
    const headers = { 'x-api-key': apiKey };
    const chosen: string[] = [];
    const twins: Twin[] = [];
    for (let cursor: string | undefined; chosen.length < SETTINGS.markets; ) {
      const page = await fetchJson<Listed>(
        `${ours.url}/api/v1/markets?exchanges=polymarket&limit=100&include_matches=true${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { headers },
      );
      for (const m of page.markets) {
        const k = m.matched_markets?.find((l) => l.exchange === 'kalshi' && l.confidence_tier === 'HIGH');
        if (k) {
          chosen.push(m.svc_id);
          twins.push({ poly: m.svc_id, kalshi: k.svc_id });
        }
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
    const arbCpu: Record<string, number> = {};
    let venueReads = 0;
    for (let r = 0; r < SETTINGS.arbRounds; r++) {
      arb.execution.push(
        await measured(ours.pid, arbCpu, 'execution', async () => {
          await timed(`${ours.url}/api/v1/execution-price?svc_id=${first}&side=buy&amount=10`, headers);
        }),
      );
      const before = await venueRequests(sims.controls, ['polymarket', 'kalshi']);
      arb.arbitrage.push(
        await measured(ours.pid, arbCpu, 'arbitrage', async () => {
          const listing = await fetchJson<{ scan: { pairs: number; books: number } }>(
            `${ours.url}/api/v1/arbitrage?exchanges=polymarket,kalshi`,
            { headers },
          );
          scanned = listing.scan;
        }),
      );
      venueReads += (await venueRequests(sims.controls, ['polymarket', 'kalshi'])) - before;
    }
    const ae = stats(arb.execution);
    const aa = stats(arb.arbitrage);
    console.log(
      `GET /arbitrage (polymarket, kalshi: ${scanned.pairs} links, ${scanned.books} books)  p50 ${aa.p50.toFixed(2)} ms  p99 ${aa.p99.toFixed(2)} ms`,
    );
    console.log(`GET /execution-price (same run)  p50 ${ae.p50.toFixed(2)} ms  p99 ${ae.p99.toFixed(2)} ms`);
    console.log(`ratio arbitrage / execution-price (p50): ${(aa.p50 / ae.p50).toFixed(2)}`);
    const cpuPer = (k: string) => (arbCpu[k] ?? 0) / SETTINGS.arbRounds;
    console.log(
      `GET /arbitrage server CPU ${cpuPer('arbitrage').toFixed(2)} ms/answer (execution-price ${cpuPer('execution').toFixed(2)}); ` +
        `venue requests ${(venueReads / SETTINGS.arbRounds).toFixed(1)} per answer (${scanned.books} books)`,
    );
    await routeOrders(ours.url, apiKey, ours.pid, sims.controls, twins);
  } finally {
    for (const s of servers.reverse()) await s.stop().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
