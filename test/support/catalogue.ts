// A test server whose catalogue holds every market and event of the five sandbox simulators: the venues are
// real simulators over loopback, and the store is filled by walking each adapter's own pages into the real
// repositories (what a sync pass does), so HTTP tests know exactly which markets exist.

import assert from 'node:assert/strict';
import { type RunningSimVenue, SIM_VENUE_LAUNCHERS } from '../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../src/config/load.js';
import type { ExchangeId } from '../../src/domain/exchanges.js';
import type { Market, MarketEvent, Page } from '../../src/domain/market.js';
import { EventsRepo } from '../../src/store/events-repo.js';
import { MarketsRepo } from '../../src/store/markets-repo.js';
import type { VenueAdapter, VenueContext } from '../../src/venues/port.js';
import { assertError } from './error-shape.js';
import { type StartOptions, startTestServer, type TestServer } from './server.js';

export interface CatalogueServer {
  server: TestServer;
  sims: Map<ExchangeId, RunningSimVenue>;
  /** Every market the venues list, by svc_id. */
  markets: Map<string, Market>;
  events: MarketEvent[];
  stop(): Promise<void>;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Calls a simulator's control API (`/__sim/<path>`) of the catalogue server's exchange; fails the test on a non-2xx. */
export async function simControl(
  cat: CatalogueServer,
  exchange: ExchangeId,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const sim = cat.sims.get(exchange);
  if (!sim) throw new Error(`no ${exchange} simulator`);
  const res = await fetch(`${sim.control}/__sim/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} /__sim/${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * The market selector's error rules, the same on every market-data route: both forms or neither are 400s, an
 * unknown exchange or market 404, an outcome the market lacks a 400 naming it. `path` is the route with any other
 * query it needs (e.g. `/api/v1/execution-price?side=buy&amount=1`); `svcId` names a real market.
 */
export async function assertSelectorErrors(cat: CatalogueServer, path: string, svcId: string): Promise<void> {
  const url = (query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;
  const svc = encodeURIComponent(svcId);
  const cases: Array<[string, number, string]> = [
    [`svc_id=${svc}&exchange=kalshi&market_id=X`, 400, 'validation_error'],
    ['', 400, 'missing_parameter'],
    ['market_id=X', 400, 'missing_parameter'],
    ['exchange=kalshi', 400, 'missing_parameter'],
    ['svc_id=nocolon', 400, 'validation_error'],
    ['exchange=nowhere&market_id=X', 404, 'exchange_not_found'],
    ['exchange=kalshi&market_id=KXNOSUCHMARKET-99', 404, 'market_not_found'],
  ];
  for (const [query, status, code] of cases) {
    assertError(await cat.server.request(url(query)), status, code);
  }
  const outcome = assertError(
    await cat.server.request(url(`svc_id=${svc}&outcome=maybe`)),
    400,
    'validation_error',
  );
  assert.match(String(outcome.error), /no outcome 'maybe'/);
}

export function venueContext(): VenueContext {
  return { signal: AbortSignal.timeout(30_000), requestId: 'test', logger: silent, tenant: null };
}

export async function walkVenue(
  adapter: VenueAdapter,
): Promise<{ markets: Market[]; events: MarketEvent[] }> {
  const markets: Market[] = [];
  const events: MarketEvent[] = [];
  for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
    const page: Page<Market> | undefined = await adapter.catalog.fetchMarketsPage?.(venueContext(), cursor);
    if (!page) break;
    markets.push(...page.items);
    cursor = page.cursor;
  }
  for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
    const page: Page<MarketEvent> | undefined = await adapter.catalog.fetchEventsPage?.(
      venueContext(),
      cursor,
    );
    if (!page) break;
    events.push(...page.items);
    cursor = page.cursor;
  }
  return { markets, events };
}

export async function startCatalogueServer(
  size: number,
  options: StartOptions = {},
): Promise<CatalogueServer> {
  // The venues' adapters get the same settings as the server (e.g. a longer venues.timeoutMs).
  const config = loadConfig({ env: {}, overrides: { ...options.config, mode: 'sandbox' } });
  const sims = new Map<ExchangeId, RunningSimVenue>();
  try {
    for (const [id, launch] of Object.entries(SIM_VENUE_LAUNCHERS)) {
      if (launch) sims.set(id as ExchangeId, await launch(config, { size, seed: 7 }));
    }
  } catch (error) {
    await Promise.allSettled([...sims.values()].map((s) => s.close()));
    throw error;
  }
  const venues = [...sims.values()].map((s) => s.adapter);
  const server = await startTestServer({ ...options, venues });
  const markets = new Map<string, Market>();
  const events: MarketEvent[] = [];
  const marketsRepo = new MarketsRepo(server.runtime.store.db, server.runtime.store.dialect);
  const eventsRepo = new EventsRepo(server.runtime.store.db);
  const now = new Date().toISOString();
  for (const adapter of venues) {
    const walked = await walkVenue(adapter);
    await marketsRepo.upsertMany(walked.markets, now);
    await eventsRepo.upsertMany(walked.events, now);
    for (const m of walked.markets) markets.set(m.svc_id, m);
    events.push(...walked.events);
  }
  return {
    server,
    sims,
    markets,
    events,
    async stop() {
      await server.stop();
      await Promise.allSettled([...sims.values()].map((s) => s.close()));
    },
  };
}
