// `npm run bench:orders`: what POST /orders adds over signing and sending the same order straight to the exchange.
// One process holds the real server (sandbox simulators over loopback, SQLite journal), the simulators and the
// client, so all of their JavaScript shares one event loop. Two paths place resting orders on the same market,
// interleaved one for one so both see the same simulator state and machine load:
//  - direct: the adapter the server uses, called in-process (`trading.createOrder`: market lookup, signing, the
//    venue round trip over loopback through its undici keep-alive pool);
//  - API: `POST /orders` with per-request credentials (X-Exchange-Credentials) sent with `undici.request` over a
//    keep-alive connection, as a trading bot would hold one; the server then authenticates, validates, journals
//    (two SQLite commits around the send), makes the very same adapter call and answers.
// Both time from the call until the answer is read. Their difference is the latency our API adds: one more loopback
// HTTP exchange (the client's request and response handling included) and the server's own work (goal: p50 ≤ 1 ms,
// p99 ≤ 5 ms). WHATWG `fetch` is not used: on the same connection it cost 0.4 to 0.6 ms more per request here than
// undici's request API, client work a bot need not do, which this bench would count as ours. Also printed: the mean
// CPU time per order the API path adds (the process's, all threads), which other work on the machine distorts less
// than latency; it also holds whatever the process's other threads (V8's concurrent GC and compilers, the WAL
// checkpointer) did while the longer API call was under way. Every exchange's two paths are warmed up before any
// is measured (see main). Figures are printed, never asserted. BENCH_ORDERS (default 400 per path and exchange)
// tunes it.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { RunningSimVenue } from '../src/cli/sandbox-venues.js';
import type { ExchangeId } from '../src/domain/exchanges.js';
import type { Market } from '../src/domain/market.js';
import type { VenueSession } from '../src/venues/port.js';
import { type CatalogueServer, startCatalogueServer, venueContext } from '../test/support/catalogue.js';
import { percentile } from './support.js';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 400);
const WARMUP = 30;

const ms = (n: number) => `${n.toFixed(2)} ms`;

interface Run {
  exchange: ExchangeId;
  /** One order through POST /orders; its latency in ms. */
  viaApi(): Promise<number>;
  /** The same order through the adapter's direct signed call; its latency in ms. */
  direct(): Promise<number>;
  /** CPU time (the process's, every thread) spent during each path's calls. */
  cpuUs: { api: number; direct: number };
}

/** One exchange's two paths: an account, an active market and the resting order both place. */
async function prepare(
  cat: CatalogueServer,
  client: Agent,
  exchange: ExchangeId,
  sim: RunningSimVenue,
): Promise<Run> {
  const market = [...cat.markets.values()].find(
    (m: Market) => m.exchange === exchange && m.status === 'active' && m.outcomes[0]?.token_id,
  );
  if (!market) throw new Error(`${exchange}: no active market`);
  const { credentials } = await sim.createAccount();
  const session: VenueSession = { exchange, credentials, source: 'per_request' };
  const header = Buffer.from(JSON.stringify(credentials)).toString('base64');
  const outcome = market.outcomes[0]?.name as string;
  const price = market.tick_size ?? 0.01;
  const size = Math.max(5, market.min_order_size ?? 1);
  const body = JSON.stringify({
    market_id: market.exchange_market_id,
    outcome,
    side: 'buy',
    price,
    size,
  });
  const url = `${cat.server.url}/api/v1/orders?exchange=${exchange}`;
  const headers = {
    'x-api-key': cat.server.adminKey,
    'content-type': 'application/json',
    'x-exchange-credentials': header,
  };
  // CPU time (the process's, every thread) spent during each path's calls: on a machine shared with other work
  // it moves far less than wall time does.
  const cpuUs = { api: 0, direct: 0 };
  const viaApi = async () => {
    const c = process.cpuUsage();
    const t = performance.now();
    const res = await request(url, { method: 'POST', headers, body, dispatcher: client });
    const text = await res.body.text();
    const took = performance.now() - t;
    const used = process.cpuUsage(c);
    cpuUs.api += used.user + used.system;
    if (res.statusCode !== 200) throw new Error(`${exchange} POST /orders ${res.statusCode}: ${text}`);
    return took;
  };
  const createOrder = sim.adapter.trading.createOrder;
  if (!createOrder) throw new Error(`${exchange} has no createOrder`);
  const direct = async () => {
    const c = process.cpuUsage();
    const t = performance.now();
    await createOrder(venueContext(), session, {
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price,
      size,
      order_type: 'gtc',
      client_order_id: randomUUID(),
    });
    const took = performance.now() - t;
    const used = process.cpuUsage(c);
    cpuUs.direct += used.user + used.system;
    return took;
  };
  return { exchange, viaApi, direct, cpuUs };
}

async function main(): Promise<void> {
  const cat = await startCatalogueServer(20, { config: { logLevel: 'error', catalogue: { sync: false } } });
  const client = new Agent({ keepAliveTimeout: 60_000, connections: 1 });
  try {
    process.stdout.write(`bench:orders — ${ORDERS} resting orders per path and exchange, interleaved\n`);
    const runs: Run[] = [];
    for (const exchange of ['polymarket', 'kalshi'] as ExchangeId[]) {
      const sim = cat.sims.get(exchange);
      if (sim) runs.push(await prepare(cat, client, exchange, sim));
    }
    // Every exchange's two paths are warmed before any is measured: the server's own code (routes, journal, HTTP)
    // is shared by all exchanges, and an exchange measured first would otherwise meet it still being compiled and
    // pay for that in its added figures while the next exchange found it ready.
    for (const run of runs) {
      for (let i = 0; i < WARMUP; i++) {
        await run.viaApi();
        await run.direct();
      }
    }
    for (const run of runs) {
      run.cpuUs.api = 0;
      run.cpuUs.direct = 0;
      const api: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < ORDERS; i++) {
        // Alternate which goes first so neither always meets the other's after-effects.
        if (i % 2 === 0) {
          api.push(await run.viaApi());
          raw.push(await run.direct());
        } else {
          raw.push(await run.direct());
          api.push(await run.viaApi());
        }
      }
      api.sort((a, b) => a - b);
      raw.sort((a, b) => a - b);
      const [a50, a99, d50, d99] = [
        percentile(api, 50),
        percentile(api, 99),
        percentile(raw, 50),
        percentile(raw, 99),
      ];
      process.stdout.write(
        `${run.exchange.padEnd(10)} POST /orders p50 ${ms(a50)} p99 ${ms(a99)} | direct signed call p50 ${ms(d50)} ` +
          `p99 ${ms(d99)} | added p50 ${ms(a50 - d50)} p99 ${ms(a99 - d99)} | ` +
          `CPU per order added ${ms((run.cpuUs.api - run.cpuUs.direct) / 1000 / ORDERS)}\n`,
      );
    }
  } finally {
    await client.close();
    await cat.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`bench:orders: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
