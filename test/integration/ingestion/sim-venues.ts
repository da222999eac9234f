// The five sandbox simulators on loopback for the ingestion suites, with their /__sim controls and a way to walk a
// venue's catalogue directly (the ground truth a sync is compared against).
import assert from 'node:assert/strict';
import { type RunningSimVenue, SIM_VENUE_LAUNCHERS } from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market, MarketEvent, Page } from '../../../src/domain/market.js';
import type { LoggerLike, VenueAdapter, VenueContext } from '../../../src/venues/port.js';

export const quietLogger: LoggerLike = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export interface SimVenues {
  ids: ExchangeId[];
  adapters: VenueAdapter[];
  get(id: ExchangeId): RunningSimVenue;
  control(id: ExchangeId, method: string, path: string, body?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

export async function launchSimVenues(size: number, seed = 11): Promise<SimVenues> {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox', venues: { timeoutMs: 5_000 } } });
  const running = new Map<ExchangeId, RunningSimVenue>();
  try {
    for (const [id, launch] of Object.entries(SIM_VENUE_LAUNCHERS)) {
      if (launch) running.set(id as ExchangeId, await launch(config, { size, seed }));
    }
  } catch (error) {
    await Promise.allSettled([...running.values()].map((r) => r.close()));
    throw error;
  }
  const get = (id: ExchangeId) => {
    const r = running.get(id);
    assert.ok(r, `no simulator for ${id}`);
    return r;
  };
  return {
    ids: [...running.keys()],
    adapters: [...running.values()].map((r) => r.adapter),
    get,
    async control(id, method, path, body) {
      const res = await fetch(`${get(id).control}/__sim/${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      assert.ok(res.ok, `simulator control ${method} ${path} answered ${res.status}: ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
    async close() {
      await Promise.allSettled([...running.values()].map((r) => r.close()));
    },
  };
}

export function ctx(): VenueContext {
  return {
    signal: AbortSignal.timeout(20_000),
    requestId: 'ingestion-test',
    logger: quietLogger,
    tenant: null,
  };
}

export interface Walked {
  markets: Market[];
  events: MarketEvent[];
  marketPages: number;
}

/** Every market and event a venue lists right now, page by page. */
export async function walkVenue(adapter: VenueAdapter): Promise<Walked> {
  const markets: Market[] = [];
  const events: MarketEvent[] = [];
  let marketPages = 0;
  const fetchMarkets = adapter.catalog.fetchMarketsPage;
  assert.ok(fetchMarkets);
  let cursor: string | null = null;
  do {
    const page: Page<Market> = await fetchMarkets.call(adapter.catalog, ctx(), cursor);
    markets.push(...page.items);
    marketPages++;
    cursor = page.cursor;
  } while (cursor !== null);
  const fetchEvents = adapter.catalog.fetchEventsPage;
  if (fetchEvents) {
    do {
      const page: Page<MarketEvent> = await fetchEvents.call(adapter.catalog, ctx(), cursor);
      events.push(...page.items);
      cursor = page.cursor;
    } while (cursor !== null);
  }
  return { markets, events, marketPages };
}

/** The adapter with its catalogue calls recorded: each requested cursor, per resource, in order. */
export function recording(adapter: VenueAdapter): {
  adapter: VenueAdapter;
  requested: Record<string, Array<string | null>>;
} {
  const requested: Record<string, Array<string | null>> = { markets: [], events: [] };
  const catalog = adapter.catalog;
  const wrapped: VenueAdapter = {
    descriptor: adapter.descriptor,
    marketData: adapter.marketData,
    trading: adapter.trading,
    ping: (c, s) => adapter.ping(c, s),
    catalog: {
      ...(catalog.fetchMarketsPage
        ? {
            fetchMarketsPage: (c: VenueContext, cursor: string | null) => {
              requested.markets?.push(cursor);
              return catalog.fetchMarketsPage?.call(catalog, c, cursor) as Promise<Page<Market>>;
            },
          }
        : {}),
      ...(catalog.fetchEventsPage
        ? {
            fetchEventsPage: (c: VenueContext, cursor: string | null) => {
              requested.events?.push(cursor);
              return catalog.fetchEventsPage?.call(catalog, c, cursor) as Promise<Page<MarketEvent>>;
            },
          }
        : {}),
    },
  };
  return { adapter: wrapped, requested };
}
