// The server the HTTP fuzz runs against: what `omnibook sandbox` runs (the five exchange simulators over loopback
// with the real adapters, the local chain), on either storage backend, with its catalogue filled by a real sync
// pass first, so requests reach stored markets, live books, the exchanges' trading APIs and the chain. It also
// gathers the corpus of real values (markets, outcomes, events, accounts, an order per traded exchange, builder
// end-users) the generators mix into requests.
import assert from 'node:assert/strict';
import type { OnChain } from '../../../src/chain/chain.js';
import { type SandboxChain, startSandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
import {
  connectSandboxChain,
  type RunningSimVenue,
  SIM_VENUE_LAUNCHERS,
} from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import type { Market } from '../../../src/domain/market.js';
import { startTestServer, type TestServer } from '../server.js';
import { connectRedis, createPgSchema, TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../services.js';
import { BODY_LIMIT, type FuzzCorpus, type OpenApiOperation, type Route, routesOf } from './arbitraries.js';
import type { FuzzKeys } from './requests.js';

export type FuzzBackend = 'sqlite + memory' | 'postgres + redis';

export interface FuzzStack {
  backend: FuzzBackend;
  server: TestServer;
  keys: FuzzKeys;
  /** Ids the fuzz must never send as a path value as they are (its own keys, the admin key). */
  protectedIds: Set<string>;
  routes: Route[];
  corpus: FuzzCorpus;
  /** Markets the sync pass stored. */
  markets: number;
  stop(): Promise<void>;
}

export interface FuzzStackOptions {
  /** Propositions in the simulated world (each becomes a market on several exchanges). */
  size?: number;
}

const HTTP = { bodyLimitBytes: BODY_LIMIT, requestTimeoutMs: 30_000, trustProxy: false };

export async function startFuzzStack(
  backend: FuzzBackend,
  options: FuzzStackOptions = {},
): Promise<FuzzStack> {
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
  };
  try {
    const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
    const chain: SandboxChain = await startSandboxChain();
    cleanups.push(() => chain.close());
    const sims: RunningSimVenue[] = [];
    cleanups.push(async () => {
      await Promise.allSettled(sims.map((s) => s.close()));
    });
    for (const launch of Object.values(SIM_VENUE_LAUNCHERS)) {
      if (launch) sims.push(await launch(config, { size: options.size ?? 40, seed: 7, chain }));
    }
    const onChain: OnChain = connectSandboxChain(chain, config);
    const storage = backend === 'postgres + redis' ? await postgresAndRedis(cleanups) : null;
    const server = await startTestServer({
      venues: sims.map((s) => s.adapter),
      chain: onChain,
      ...(storage ? { pgSchema: storage.pgSchema, redisNamespace: storage.redisNamespace } : {}),
      config: {
        http: HTTP,
        // The fuzz runs the sync pass itself, and nothing may write the catalogue behind its back afterwards: a
        // rejected request must leave the store as it found it.
        catalogue: { sync: false },
        ...(storage ? { databaseUrl: TEST_DATABASE_URL, redisUrl: TEST_REDIS_URL } : {}),
      },
    });
    cleanups.push(() => server.stop());
    await server.runtime.catalogSync.runAll();
    const markets = await readMarkets(server);
    assert.ok(markets.length > 0, 'the sync pass stored no market');

    const keys: FuzzKeys = { scale: '', admin: '', builder: '' };
    const protectedIds = new Set<string>();
    for (const [choice, body] of [
      ['scale', { tier: 'scale' }],
      ['admin', { tier: 'admin' }],
      ['builder', { tier: 'scale', builder: true }],
    ] as const) {
      // Limits high enough that the fuzz exercises the routes rather than the rate limiter.
      const res = await server.request('/api/v1/keys', {
        method: 'POST',
        body: { ...body, name: `fuzz ${choice}`, qps_limit: 1e7, burst: 1e7 },
      });
      assert.equal(res.status, 201, res.text);
      const created = res.body as { id: string; key: string };
      keys[choice] = created.key;
      protectedIds.add(created.id);
    }
    const listed = (await server.request('/api/v1/keys')).body as Array<{ id: string; name: string }>;
    for (const k of listed) if (k.name === 'OMNIBOOK_ADMIN_KEY') protectedIds.add(k.id);

    const customerIds: string[] = [];
    for (const external of ['fuzz-a', 'fuzz-b']) {
      const res = await server.request('/api/v1/builder/users', {
        method: 'POST',
        key: keys.builder,
        body: { external_id: external },
      });
      assert.equal(res.status, 201, res.text);
      customerIds.push((res.body as { customer_id: string }).customer_id);
    }

    const accounts = sims.flatMap((s) => [s.account, ...Object.values(s.extraAccounts ?? {})]);
    const orderIds = await restingOrders(server, keys.scale, sims, markets);
    const doc = await server.request('/openapi.json', { key: null });
    assert.equal(doc.status, 200, doc.text);
    const routes = routesOf(doc.body as { paths: Record<string, Record<string, OpenApiOperation>> });
    const corpus = corpusOf(markets, {
      addresses: accounts.flatMap((a) => (a.address ? [a.address] : [])),
      orderIds,
      customerIds,
    });
    return {
      backend,
      server,
      keys,
      protectedIds,
      routes,
      corpus: {
        ...corpus,
        credentials: accounts.map((a) => a.credentials),
        accounts: Object.fromEntries(
          sims.map((s) => [
            s.adapter.descriptor.id,
            [s.account, ...Object.values(s.extraAccounts ?? {})].map((a) => a.credentials),
          ]),
        ),
      },
      markets: markets.length,
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

async function postgresAndRedis(cleanups: Array<() => Promise<void>>) {
  const { schema, drop } = await createPgSchema();
  const namespace = uniqueName('fuzz');
  cleanups.push(async () => {
    await drop();
    // The buckets and counters the fuzz left in Redis (they expire anyway; this keeps the db tidy).
    const redis = await connectRedis();
    try {
      const stale: string[] = [];
      for await (const batch of redis.scanStream({ match: `${namespace}:*`, count: 500 }))
        stale.push(...batch);
      if (stale.length > 0) await redis.del(...stale);
    } finally {
      redis.disconnect();
    }
  });
  return { pgSchema: schema, redisNamespace: namespace };
}

async function readMarkets(server: TestServer): Promise<Market[]> {
  const rows = await server.runtime.store.db.selectFrom('markets').select('doc').execute();
  return rows.map((r) => JSON.parse(Buffer.from(r.doc).toString('utf8')) as Market);
}

/**
 * One resting buy at the lowest tick on an active market of each exchange that trades in the sandbox with a plain
 * account, so GET and DELETE /orders/{id} meet real orders.
 */
async function restingOrders(
  server: TestServer,
  key: string,
  sims: RunningSimVenue[],
  markets: Market[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const exchange of ['polymarket', 'kalshi'] as const) {
    const sim = sims.find((s) => s.adapter.descriptor.id === exchange);
    const market = markets.find((m) => m.exchange === exchange && m.status === 'active' && m.outcomes[0]);
    assert.ok(sim && market, `no active ${exchange} market to rest an order on`);
    const res = await server.request(`/api/v1/orders?exchange=${exchange}`, {
      method: 'POST',
      key,
      headers: {
        'x-exchange-credentials': Buffer.from(JSON.stringify(sim.account.credentials)).toString('base64'),
      },
      body: {
        market_id: market.exchange_market_id,
        outcome: market.outcomes[0]?.name,
        side: 'buy',
        price: market.tick_size ?? 0.01,
        size: 5,
      },
    });
    assert.equal(res.status, 200, `resting ${exchange} order: ${res.text}`);
    ids.push((res.body as { id: string }).id);
  }
  return ids;
}

function corpusOf(
  markets: Market[],
  extra: { addresses: string[]; orderIds: string[]; customerIds: string[] },
): Omit<FuzzCorpus, 'credentials' | 'accounts'> {
  // A spread of markets (every exchange, every status) rather than all of them: the generators pick uniformly.
  const sample = markets.filter((_, i) => i % Math.max(1, Math.floor(markets.length / 200)) === 0);
  const uniq = (values: Array<string | undefined | null>) => [
    ...new Set(values.filter((v): v is string => typeof v === 'string' && v.length > 0)),
  ];
  const svcIds = uniq(sample.map((m) => m.svc_id));
  const marketIds = uniq(sample.map((m) => m.exchange_market_id));
  const groupIds = uniq(sample.map((m) => m.exchange_group_id));
  const eventIds = uniq(sample.map((m) => m.svc_group_id));
  const outcomes = uniq(sample.flatMap((m) => m.outcomes.map((o) => o.name)));
  const exchanges = uniq(markets.map((m) => m.exchange));
  const searches = uniq(sample.flatMap((m) => m.question.split(/\s+/).slice(0, 3)));
  const conditions = uniq(sample.map((m) => m.condition_id));
  const addresses = uniq(extra.addresses);
  const byName: Record<string, string[]> = {
    svc_id: svcIds,
    svc_ids: svcIds,
    exchange: exchanges,
    exchanges,
    market_id: marketIds,
    exchange_market_id: marketIds,
    external_market_keys: marketIds,
    outcome: outcomes,
    event_id: eventIds,
    exchange_group_id: groupIds,
    search: searches,
    condition_id: conditions,
    address: addresses,
    eoa_address: addresses,
    funder_address: addresses,
    payer_address: addresses,
    signer_address: addresses,
    order_id: extra.orderIds,
    customer_id: extra.customerIds,
    external_id: ['fuzz-a', 'fuzz-b'],
    side: ['buy', 'sell'],
    scope: ['list', 'search', 'all'],
    status: ['active', 'closed', 'resolved', 'archived', 'open', 'filled', 'cancelled'],
    interval: ['1m', '1h', '1d', '6h'],
    amount: ['1', '10', '1000', '0.5'],
    limit: ['1', '10', '100', '1000'],
    depth: ['1', '5', '100'],
  };
  const corpusMarkets = sample.map((m) => ({
    exchange: m.exchange,
    svc_id: m.svc_id,
    svc_group_id: m.svc_group_id,
    exchange_market_id: m.exchange_market_id,
    exchange_group_id: m.exchange_group_id,
    outcomes: m.outcomes.map((o) => o.name),
    condition_id: m.condition_id,
    tick_size: m.tick_size ?? null,
  }));
  return { byName, markets: corpusMarkets };
}
