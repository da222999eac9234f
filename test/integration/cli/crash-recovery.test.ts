// `omnibook serve` killed with SIGKILL at the two moments the order-journal crash test
// (test/integration/cli/order-crash.test.ts, SIGKILL during order submission) does not cover: in the middle of a
// catalogue sync pass, and in the middle of a WebSocket burst. The server is a child process over the five simulators
// (which live in this test process and outlive it) on one SQLite data directory. After each restart nothing is lost
// or duplicated: the interrupted venue's catalogue equals its own walk, the pass continued from its saved cursor,
// every client's server_seq was gap-free up to the kill, and clients that reconnect get a fresh snapshot that
// replays to the venue's own book.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import type { BookLevel } from '../../../src/domain/book.js';
import { applyBookChanges } from '../../../src/domain/book-diff.js';
import type { Market } from '../../../src/domain/market.js';
import type { BookChange } from '../../../src/domain/stream.js';
import { createLimitlessAdapter } from '../../../src/venues/limitless/index.js';
import { createPolymarketAdapter } from '../../../src/venues/polymarket/index.js';
import type { VenueAdapter } from '../../../src/venues/port.js';
import { venueContext, walkVenue } from '../../support/catalogue.js';
import { runCli, type ServerProcess, startServerProcess } from '../../support/cli.js';
import { send, waitFor } from '../../support/server.js';
import { type SimSet, startSimSet } from '../../support/sim-set.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

const ADMIN_KEY = 'crash_recovery_admin_key_0123456789';

let sims: SimSet;
let dataDir: string;
let configFile: string;
let env: Record<string, string>;
let server: ServerProcess | null = null;
const clients: WsTestClient[] = [];
let limitless: VenueAdapter;
let polymarket: VenueAdapter;

before(async () => {
  // Enough Limitless markets for several catalogue pages (25 a page).
  sims = await startSimSet({ size: 300 });
  dataDir = mkdtempSync(join(tmpdir(), 'omnibook-crash-recovery-'));
  configFile = join(dataDir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      ...sims.host.config,
      // One pass at start, then none while the test runs.
      catalogue: { refreshIntervalMs: 3_600_000 },
      recorder: { enabled: false },
      websocket: { heartbeatMs: 500 },
    }),
  );
  env = {
    ...sims.host.env,
    DATABASE_URL: '',
    REDIS_URL: '',
    OMNIBOOK_CONFIG: '',
    OMNIBOOK_DATA_DIR: '',
    PORT: '',
    HOST: '',
    // The pass-complete line (info) says which venues resumed.
    LOG_LEVEL: 'info',
    OMNIBOOK_ADMIN_KEY: ADMIN_KEY,
  };
  const migrated = await runCli(['migrate', '--data-dir', dataDir], env);
  assert.equal(migrated.code, 0, migrated.stderr);
  const venues = sims.host.config.venues;
  limitless = createLimitlessAdapter({
    restUrl: venues.limitless?.restUrl as string,
    wsUrl: venues.limitless?.wsUrl as string,
    timeoutMs: 10_000,
    unpaced: true,
  });
  polymarket = createPolymarketAdapter({
    gammaUrl: venues.polymarket?.gammaUrl as string,
    clobUrl: venues.polymarket?.clobUrl as string,
    dataUrl: venues.polymarket?.dataUrl as string,
    wsMarketUrl: venues.polymarket?.wsMarketUrl as string,
    wsUserUrl: venues.polymarket?.wsUserUrl as string,
    timeoutMs: 10_000,
    unpaced: true,
  });
});

after(async () => {
  for (const c of clients) c.close();
  if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
  await Promise.allSettled([limitless?.close?.(), polymarket?.close?.()]);
  await sims?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const startServer = () =>
  startServerProcess(['serve', '--port', '0', '--data-dir', dataDir, '--config', configFile], env, 60_000);

async function kill(): Promise<void> {
  const child = server?.child;
  assert.ok(child && child.exitCode === null);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  server = null;
}

async function control(exchange: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const base = sims.host.controls[exchange];
  const res = await fetch(`${base}/__sim/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(res.ok, `${method} /__sim/${path}: ${res.status}`);
  return res.json();
}

const held = async (exchange: string) => ((await control(exchange, 'GET', 'held')) as { held: number }).held;

interface CatalogueExchange {
  markets_seen: number;
  last_full_at: string | null;
  cursor_pending: boolean;
}

async function catalogue(): Promise<Record<string, CatalogueExchange>> {
  assert.ok(server);
  const res = await send(server.url, ADMIN_KEY, '/healthz');
  return (
    (res.body as { catalogue?: { exchanges: Record<string, CatalogueExchange> } }).catalogue?.exchanges ?? {}
  );
}

/** Reads the stopped (or killed) server's SQLite file directly. */
function readDb<T>(read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'omnibook.sqlite'));
  try {
    return read(db);
  } finally {
    db.close();
  }
}

test('SIGKILL during a sync pass: after restart the pass resumes and the catalogue is whole, without duplicates', async () => {
  const truth = await walkVenue(limitless);
  assert.ok(truth.markets.length > 75, `limitless lists ${truth.markets.length} markets: too few pages`);
  // Limitless's requests are held until the faults are set again, so the pass moves only as the test lets it.
  const hold = { latency_ms: 120_000 };
  await control('limitless', 'POST', 'faults', hold);
  server = await startServer();
  try {
    await waitFor(async () => (await held('limitless')) > 0 || undefined, 30_000, 'the first page request');
    // Each new setting releases the held request and holds the next: two pages through, the third held.
    for (let page = 1; page <= 2; page++) {
      await control('limitless', 'POST', 'faults', hold);
      await waitFor(
        async () =>
          ((await catalogue()).limitless?.markets_seen ?? 0) >= page * 10 && (await held('limitless')) > 0,
        30_000,
        `page ${page} stored and the next request held`,
      );
    }
    await kill();
  } finally {
    await control('limitless', 'DELETE', 'faults');
  }
  const saved = readDb((db) =>
    db
      .prepare(
        "select cursor, pass_seen from sync_state where exchange = 'limitless' and resource = 'markets'",
      )
      .get(),
  ) as { cursor: string | null; pass_seen: number } | undefined;
  assert.ok(saved?.cursor, 'the killed pass left no cursor to resume from');
  assert.ok(saved.pass_seen >= 20 && saved.pass_seen < truth.markets.length, `saved at ${saved.pass_seen}`);

  server = await startServer();
  await waitFor(
    async () => {
      const c = await catalogue();
      return Object.keys(sims.host.controls).every((x) => c[x]?.last_full_at && !c[x]?.cursor_pending);
    },
    60_000,
    'every venue to finish its pass',
  );
  const running = server;
  // The job logs the pass after storing it: wait for the line rather than race the log stream.
  const complete = await waitFor(
    async () =>
      running
        .stderr()
        .split('\n')
        .find((l) => l.includes('catalogue sync pass complete')),
    30_000,
    'the pass-complete log line',
  );
  assert.ok((JSON.parse(complete) as { resumed: string[] }).resumed.includes('limitless'), complete);

  const stored = readDb((db) => ({
    ids: (
      db.prepare("select native_lc from markets where exchange = 'limitless'").all() as Array<{
        native_lc: string;
      }>
    ).map((r) => r.native_lc),
    dupes: db
      .prepare('select svc_id, count(*) as n from markets group by svc_id having count(*) > 1')
      .all() as unknown[],
  }));
  assert.deepEqual(stored.dupes, [], 'duplicated markets');
  assert.deepEqual(
    [...stored.ids].sort(),
    truth.markets.map((m) => m.exchange_market_id.toLowerCase()).sort(),
    'the catalogue after the crash is not exactly the venue’s',
  );
});

/** The book a client holds after replaying one subscription's snapshots and deltas, and its server_seq values. */
function replay(messages: readonly WsMessage[], svcId: string) {
  let bids: BookLevel[] = [];
  let asks: BookLevel[] = [];
  const seqs: number[] = [];
  for (const m of messages) {
    if (m.svc_id !== svcId || m.type === 'error') continue;
    seqs.push(m.server_seq as number);
    if (m.type === 'orderbook') {
      bids = m.bids as BookLevel[];
      asks = m.asks as BookLevel[];
    } else if (m.type === 'orderbook_delta' && Array.isArray(m.changes)) {
      const changes = m.changes as BookChange[];
      bids = applyBookChanges(bids, changes, 'bid');
      asks = applyBookChanges(asks, changes, 'ask');
    }
  }
  return { bids, asks, seqs };
}

async function subscribedClient(url: string, m: Market): Promise<WsTestClient> {
  const client = await WsTestClient.open(`${url.replace(/^http/, 'ws')}/ws`);
  clients.push(client);
  client.send({ type: 'auth', api_key: ADMIN_KEY });
  await client.next((x) => x.type === 'auth_ok');
  client.send({ type: 'subscribe', markets: [{ svc_id: m.svc_id }] });
  await client.next((x) => x.type === 'orderbook' && x.svc_id === m.svc_id);
  return client;
}

const gapFree = (seqs: number[]) =>
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    'server_seq counts 1, 2, 3… per subscription',
  );

test('SIGKILL during a WebSocket burst: each client saw a gap-free sequence, and resyncs to the venue book after', async () => {
  if (!server) server = await startServer();
  const { markets } = await walkVenue(polymarket);
  const m = markets.find((x) => x.status === 'active' && x.outcomes.every((o) => o.token_id));
  assert.ok(m);
  const outcome = m.outcomes[0]?.name as string;
  const killed = await Promise.all([1, 2, 3].map(() => subscribedClient(server?.url as string, m)));
  // The burst: the venue's books move step after step; the server is killed once every client has deltas.
  let bursting = true;
  const burst = (async () => {
    while (bursting) await control('polymarket', 'POST', 'advance', { steps: 1 });
  })();
  try {
    await waitFor(
      async () =>
        killed.every(
          (c) => c.messages.filter((x) => x.type === 'orderbook_delta' && x.svc_id === m.svc_id).length >= 3,
        ) || undefined,
      30_000,
      'deltas on every client',
    );
    await kill();
  } finally {
    bursting = false;
    await burst;
  }
  for (const c of killed) {
    await waitFor(async () => c.closed !== null || undefined, 10_000, 'the socket to close');
    gapFree(replay(c.messages, m.svc_id).seqs);
  }

  server = await startServer();
  const reconnected = await Promise.all(killed.map(() => subscribedClient(server?.url as string, m)));
  await control('polymarket', 'POST', 'advance', { steps: 5 });
  const want = await polymarket.marketData.fetchOrderBook?.(venueContext(), m, outcome);
  assert.ok(want);
  for (const c of reconnected) {
    await waitFor(
      async () => {
        const r = replay(c.messages, m.svc_id);
        return isDeepStrictEqual([r.bids, r.asks], [want.bids, want.asks]) || undefined;
      },
      30_000,
      'the client to replay the venue book',
    );
    const first: WsMessage | undefined = c.messages.find((x) => x.svc_id === m.svc_id);
    assert.equal(first?.type, 'orderbook', 'a reconnected client starts from a snapshot');
    gapFree(replay(c.messages, m.svc_id).seqs);
  }
});
