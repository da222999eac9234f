// `npm run bench:orders`: what POST /orders adds over signing and sending the same order straight to the exchange.
// One process holds the real server (sandbox simulators over loopback, SQLite journal), the simulators and the
// client, so all of their JavaScript shares one event loop. Four paths (and a fifth, below) place resting orders on
// the same market, interleaved one for one so all see the same simulator state and machine load:
//  - direct: the adapter the server uses, called in-process (`trading.createOrder`: market lookup, signing, the
//    venue round trip over loopback through its undici keep-alive pool);
//  - API: `POST /orders` with per-request credentials (X-Exchange-Credentials) sent with `undici.request` over a
//    keep-alive connection, as a trading bot would hold one; the server then authenticates, validates, journals
//    (one append to the intent log before the send; the row and its acceptance are committed to SQLite behind),
//    makes the very same adapter call and answers;
//  - Fastify: the same request to a bare Fastify app (no logger, no hooks) whose POST route has the very schema of
//    ours (PLACE_ORDER_SCHEMA: query, headers, body, response) and whose handler does only what the relay's does:
//    what the framework and its validation and serialization add, so the rest of API minus direct is our own work;
//  - relay: the same request to a bare `node:http` server that only parses the body and the credentials header,
//    makes the same adapter call and answers with the order's JSON: the least any HTTP service in front of the
//    adapter adds on this machine, measured in the same run. This machine's speed moves by a third or more over an
//    hour, and the relay moves with it, so "ours / relay" compares runs taken at different times better than ms do.
// Each path times from the call until the answer is read. API minus direct is the latency our API adds: one more
// loopback HTTP exchange (the client's request and response handling included) and the server's own work (goal:
// p50 ≤ 1 ms, p99 ≤ 5 ms). WHATWG `fetch` is not used: on the same connection it cost 0.4 to 0.6 ms more per request
// here than undici's request API, client work a bot need not do, which this bench would count as ours. Also printed:
// the mean CPU time per order the API path adds (the process's, all threads), which other work on the machine
// distorts less than latency; it also holds whatever the process's other threads (V8's concurrent GC and compilers,
// the WAL checkpointer) did while the longer API call was under way. Every exchange's paths are warmed up before any
// is measured (see main). A last phase, with listeners on node:http's, undici's and Fastify's diagnostics channels
// (order-timeline.ts), splits each path's time into segments: where what we add goes. Figures are printed, never
// asserted. A fifth path, stored, is POST /orders for the same account onboarded (POST /onboard, self) and sent
// without credentials: the credentials row read and opened instead of the header decoded, and the parsed key kept
// (venues/shared/parsed-key-cache.ts); its p50/p99 and CPU per order are printed beside the per-request path's.
// BENCH_ORDERS (default 400 per path and exchange) tunes it.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { Agent, request } from 'undici';
import type { RunningSimVenue } from '../src/cli/sandbox-venues.js';
import type { ExchangeId } from '../src/domain/exchanges.js';
import type { Market } from '../src/domain/market.js';
import { PLACE_ORDER_SCHEMA } from '../src/http/routes/trading-routes.js';
import { ErrorBody } from '../src/http/schemas/common.js';
import type { VenueAdapter, VenueSession } from '../src/venues/port.js';
import { type CatalogueServer, startCatalogueServer, venueContext } from '../test/support/catalogue.js';
import { medianOf, span, type Timeline, TimelineRecorder } from './order-timeline.js';
import { percentile } from './support.js';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 400);
const WARMUP = 30;
/** Orders per path in the phase that finds where the time goes (order-timeline.ts). */
const BREAKDOWN = Math.min(200, ORDERS);
const PATHS = ['api', 'stored', 'fastify', 'relay', 'direct'] as const;
type PathName = (typeof PATHS)[number];
/** The paths the segment table splits (the stored path's segments are the API's, but for where the session is from). */
const SPLIT_PATHS = ['api', 'fastify', 'relay', 'direct'] as const satisfies readonly PathName[];
type SplitPath = (typeof SPLIT_PATHS)[number];

const ms = (n: number) => `${n.toFixed(2)} ms`;

interface Run {
  exchange: ExchangeId;
  /** One order through each path; its latency in ms. */
  paths: Record<PathName, () => Promise<number>>;
  /** CPU time (the process's, every thread) spent during each path's calls. */
  cpuUs: Record<PathName, number>;
}

/** What the relay and POST /orders are sent: the order's fields. */
interface OrderBody {
  market_id: string;
  outcome: string;
  side: 'buy';
  price: number;
  size: number;
}

/**
 * The relay: a bare node:http server that does only what any service in front of an adapter must (read the JSON
 * body and the credentials header, call the adapter, answer with JSON), for the exchange named in the query.
 */
/** The adapter call both baselines make for one order: what any service in front of an adapter must do. */
function placeVia(adapters: Map<string, VenueAdapter>) {
  return (exchange: ExchangeId, credentials: Record<string, string>, body: OrderBody) => {
    const createOrder = adapters.get(exchange)?.trading.createOrder;
    if (!createOrder) throw new Error(`no ${exchange} adapter`);
    return createOrder(
      venueContext(),
      { exchange, credentials, source: 'per_request' },
      { ...body, order_type: 'gtc', client_order_id: randomUUID() },
    );
  };
}

const credentialsOf = (header: unknown) =>
  JSON.parse(Buffer.from(String(header), 'base64').toString('utf8')) as Record<string, string>;

/**
 * The relay: a bare node:http server that does only what any service in front of an adapter must (read the JSON
 * body and the credentials header, call the adapter, answer with JSON), for the exchange named in the query.
 */
async function startRelay(adapters: Map<string, VenueAdapter>): Promise<{ url: string; server: Server }> {
  const place = placeVia(adapters);
  const relay = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OrderBody;
    const exchange = new URL(req.url ?? '/', 'http://relay').searchParams.get('exchange') as ExchangeId;
    const order = await place(exchange, credentialsOf(req.headers['x-exchange-credentials']), body);
    const text = JSON.stringify(order);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const server = createServer((req, res) => {
    relay(req, res).catch((error: Error) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The Fastify baseline: our route's schema, the relay's handler, nothing else (no logger, hooks or auth). */
async function startFastifyBaseline(
  adapters: Map<string, VenueAdapter>,
): Promise<{ url: string; close(): Promise<void> }> {
  const place = placeVia(adapters);
  const app = Fastify({ logger: false });
  app.addSchema(ErrorBody);
  app.post<{ Querystring: { exchange: ExchangeId }; Body: OrderBody }>(
    '/',
    { schema: PLACE_ORDER_SCHEMA },
    async (req) => place(req.query.exchange, credentialsOf(req.headers['x-exchange-credentials']), req.body),
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

/** One exchange's paths: an account, an active market and the resting order they all place. */
/** A Predict.fun paper account that can rest every order of the run ($0.9 each) at once. */
async function richPaperAccount(sim: RunningSimVenue): Promise<{ credentials: Record<string, string> }> {
  const res = await fetch(`${sim.control}/__sim/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ balance: (10n ** 24n).toString() }),
  });
  if (res.status !== 201) throw new Error(`predictfun POST /__sim/accounts ${res.status}`);
  return (await res.json()) as { credentials: Record<string, string> };
}

async function prepare(
  cat: CatalogueServer,
  client: Agent,
  relayUrl: string,
  fastifyUrl: string,
  exchange: ExchangeId,
  sim: RunningSimVenue,
): Promise<Run> {
  const market = [...cat.markets.values()].find(
    (m: Market) => m.exchange === exchange && m.status === 'active' && m.outcomes[0]?.token_id,
  );
  if (!market) throw new Error(`${exchange}: no active market`);
  const { credentials } = exchange === 'predictfun' ? await richPaperAccount(sim) : await sim.createAccount();
  const session: VenueSession = { exchange, credentials, source: 'per_request' };
  const price = market.tick_size ?? 0.01;
  const order: OrderBody = {
    market_id: market.exchange_market_id,
    outcome: market.outcomes[0]?.name as string,
    side: 'buy',
    price,
    // Predict.fun takes orders worth $0.9 or more.
    size: Math.max(5, market.min_order_size ?? 1, exchange === 'predictfun' ? Math.ceil(0.9 / price) : 0),
  };
  const body = JSON.stringify(order);
  const storedHeaders = { 'x-api-key': cat.server.adminKey, 'content-type': 'application/json' };
  const headers = {
    ...storedHeaders,
    'x-exchange-credentials': Buffer.from(JSON.stringify(credentials)).toString('base64'),
  };
  // The same account stored for the calling key (POST /onboard, self): the stored path sends no credentials.
  const onboard = await request(`${cat.server.url}/api/v1/onboard`, {
    method: 'POST',
    headers: storedHeaders,
    body: JSON.stringify({ exchange, mode: 'self', ...credentials }),
    dispatcher: client,
  });
  const onboarded = await onboard.body.text();
  if (onboard.statusCode !== 200)
    throw new Error(`${exchange} POST /onboard ${onboard.statusCode}: ${onboarded}`);
  // CPU time (the process's, every thread) spent during each path's calls: on a machine shared with other work
  // it moves far less than wall time does.
  const cpuUs: Record<PathName, number> = { api: 0, stored: 0, fastify: 0, relay: 0, direct: 0 };
  const timed = (path: PathName, call: () => Promise<void>) => async () => {
    const c = process.cpuUsage();
    const t = performance.now();
    await call();
    const took = performance.now() - t;
    const used = process.cpuUsage(c);
    cpuUs[path] += used.user + used.system;
    return took;
  };
  const post =
    (url: string, sent: Record<string, string> = headers) =>
    async () => {
      const res = await request(url, { method: 'POST', headers: sent, body, dispatcher: client });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${exchange} POST ${url} ${res.statusCode}: ${text}`);
    };
  const createOrder = sim.adapter.trading.createOrder;
  if (!createOrder) throw new Error(`${exchange} has no createOrder`);
  const direct = async () => {
    await createOrder(venueContext(), session, {
      ...order,
      order_type: 'gtc',
      client_order_id: randomUUID(),
    });
  };
  return {
    exchange,
    paths: {
      api: timed('api', post(`${cat.server.url}/api/v1/orders?exchange=${exchange}`)),
      stored: timed('stored', post(`${cat.server.url}/api/v1/orders?exchange=${exchange}`, storedHeaders)),
      fastify: timed('fastify', post(`${fastifyUrl}/?exchange=${exchange}`)),
      relay: timed('relay', post(`${relayUrl}/?exchange=${exchange}`)),
      direct: timed('direct', direct),
    },
    cpuUs,
  };
}

async function main(): Promise<void> {
  const cat = await startCatalogueServer(20, { config: { logLevel: 'error', catalogue: { sync: false } } });
  const client = new Agent({ keepAliveTimeout: 60_000, connections: 1 });
  const adapters = new Map([...cat.sims].map(([id, sim]) => [id as string, sim.adapter]));
  const relay = await startRelay(adapters);
  const fastify = await startFastifyBaseline(adapters);
  try {
    process.stdout.write(`bench:orders — ${ORDERS} resting orders per path and exchange, interleaved\n`);
    const runs: Run[] = [];
    for (const exchange of ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun'] as ExchangeId[]) {
      const sim = cat.sims.get(exchange);
      if (sim) runs.push(await prepare(cat, client, relay.url, fastify.url, exchange, sim));
    }
    // Every exchange's paths are warmed before any is measured: the server's own code (routes, journal, HTTP) is
    // shared by all exchanges, and an exchange measured first would otherwise meet it still being compiled and pay
    // for that in its added figures while the next exchange found it ready.
    for (const run of runs) {
      for (let i = 0; i < WARMUP; i++) for (const path of PATHS) await run.paths[path]();
    }
    for (const run of runs) {
      const took: Record<PathName, number[]> = { api: [], stored: [], fastify: [], relay: [], direct: [] };
      for (const path of PATHS) run.cpuUs[path] = 0;
      for (let i = 0; i < ORDERS; i++) {
        // Rotate which goes first so none always meets another's after-effects.
        for (let k = 0; k < PATHS.length; k++) {
          const path = PATHS[(i + k) % PATHS.length] as PathName;
          took[path].push(await run.paths[path]());
        }
      }
      const p = (path: PathName, q: number) =>
        percentile(
          took[path].sort((a, b) => a - b),
          q,
        );
      const [a50, a99, s50, s99, f50, r50, r99, d50, d99] = [
        p('api', 50),
        p('api', 99),
        p('stored', 50),
        p('stored', 99),
        p('fastify', 50),
        p('relay', 50),
        p('relay', 99),
        p('direct', 50),
        p('direct', 99),
      ];
      const cpu = (path: PathName) => ms((run.cpuUs[path] - run.cpuUs.direct) / 1000 / ORDERS);
      process.stdout.write(
        `${run.exchange.padEnd(10)} POST /orders p50 ${ms(a50)} p99 ${ms(a99)} | direct signed call p50 ${ms(d50)} ` +
          `p99 ${ms(d99)} | added p50 ${ms(a50 - d50)} p99 ${ms(a99 - d99)} | bare node:http relay added ` +
          `p50 ${ms(r50 - d50)} p99 ${ms(r99 - d99)} | ours / relay p50 ${((a50 - d50) / (r50 - d50)).toFixed(1)}x | ` +
          `bare Fastify, same schema, added p50 ${ms(f50 - d50)} | ` +
          `CPU per order added ${cpu('api')} (Fastify ${cpu('fastify')}, relay ${cpu('relay')}) | ` +
          `stored credentials: POST /orders p50 ${ms(s50)} p99 ${ms(s99)}, CPU per order ${ms(run.cpuUs.stored / 1000 / ORDERS)} ` +
          `(per-request ${ms(run.cpuUs.api / 1000 / ORDERS)})\n`,
      );
    }
    process.stdout.write(
      `where the time goes: median ms over ${BREAKDOWN} more orders per path, read from node:http, undici and ` +
        'Fastify diagnostics channels (their listeners cost each HTTP path a few µs, so this phase is apart)\n',
    );
    const port = (url: string) => Number(new URL(url).port);
    const recorder = new TimelineRecorder(
      [port(cat.server.url), port(fastify.url), port(relay.url)],
      [cat.server.url, fastify.url, relay.url],
    );
    try {
      for (const run of runs) {
        const timelines: Record<SplitPath, Timeline[]> = { api: [], fastify: [], relay: [], direct: [] };
        for (let i = 0; i < BREAKDOWN; i++) {
          for (let k = 0; k < SPLIT_PATHS.length; k++) {
            const path = SPLIT_PATHS[(i + k) % SPLIT_PATHS.length] as SplitPath;
            recorder.begin();
            await run.paths[path]();
            timelines[path].push(recorder.finish());
          }
        }
        process.stdout.write(breakdown(run.exchange, timelines));
      }
    } finally {
      recorder.close();
    }
  } finally {
    relay.server.close();
    await fastify.close();
    await client.close();
    await cat.stop();
  }
}

/** The breakdown table of one exchange: each segment's median for the paths it applies to. */
function breakdown(exchange: ExchangeId, t: Record<SplitPath, Timeline[]>): string {
  const m = (path: SplitPath, part: (x: Timeline) => number) => medianOf(t[path], part);
  const cell = (v: number | null) => (v === null ? '—' : v.toFixed(3)).padStart(8);
  const both = (part: (x: Timeline) => number): [number, number] => [m('api', part), m('fastify', part)];
  const rows: Array<[string, number | null, number | null, number | null, number | null]> = [
    [
      'client sends → the service sees the request',
      ...both(span('start', 'serverStart')),
      m('relay', span('start', 'serverStart')),
      null,
    ],
    [
      '→ the route runs (Fastify: hooks, body, schema)',
      ...both(span('serverStart', 'handlerStart')),
      null,
      null,
    ],
    [
      "→ the exchange's order request leaves (signing too)",
      ...both(span('handlerStart', 'exchangeSent')),
      m('relay', span('serverStart', 'exchangeSent')),
      m('direct', span('start', 'exchangeSent')),
    ],
    [
      'the exchange answers (simulator, same process)',
      ...both(span('exchangeSent', 'exchangeAnswered')),
      m('relay', span('exchangeSent', 'exchangeAnswered')),
      m('direct', span('exchangeSent', 'exchangeAnswered')),
    ],
    [
      '→ the answer is written (direct: the call returns)',
      ...both(span('exchangeAnswered', 'serverFinish')),
      m('relay', span('exchangeAnswered', 'serverFinish')),
      m('direct', span('exchangeAnswered', 'end')),
    ],
    [
      '→ the client has read it',
      ...both(span('serverFinish', 'end')),
      m('relay', span('serverFinish', 'end')),
      null,
    ],
  ];
  const columns = ['API', 'Fastify', 'relay', 'direct'].map((c) => c.padStart(8)).join('');
  return `  ${exchange.padEnd(52)}${columns}\n${rows.map(([name, ...cells]) => `  ${name.padEnd(52)}${cells.map(cell).join('')}\n`).join('')}`;
}

main().catch((error) => {
  process.stderr.write(`bench:orders: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
