// Starts a venue the way `omnibook sandbox` does (its simulator on loopback, its adapter pointed at it) and gives
// the contract suites what they need: the adapter, fresh funded sessions, a request context and the simulator's
// /__sim controls. Every venue registered in SIM_VENUE_LAUNCHERS runs through the same suites.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { generatePrivateKey } from 'viem/accounts';
import {
  type RunningSimVenue,
  SIM_VENUE_LAUNCHERS,
  type SimWorldOptions,
} from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market, Page } from '../../../src/domain/market.js';
import { AppError } from '../../../src/errors/app-error.js';
import type { ErrorCode } from '../../../src/errors/codes.js';
import { sessionFrom } from '../../../src/vault/per-request-credentials.js';
import type { LoggerLike, VenueAdapter, VenueContext, VenueSession } from '../../../src/venues/port.js';

export const silentLogger: LoggerLike = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export interface VenueUnderTest {
  id: ExchangeId;
  adapter: VenueAdapter;
  /** The paper account the launcher wrote to sandbox-accounts.json. */
  sandboxSession: VenueSession;
  sandboxAddress: string | undefined;
  /** A fresh funded paper account. */
  newSession(): Promise<{ session: VenueSession; address: string | undefined }>;
  /** A request context with its own deadline. */
  ctx(timeoutMs?: number): VenueContext;
  sim: SimControls;
  /** Base URL of the simulator's /__sim/* surface, for venue-specific controls. */
  controlUrl: string;
  close(): Promise<void>;
}

export interface SimControls {
  manifest(): Promise<Record<string, string[]>>;
  faults(settings: Record<string, unknown>): Promise<void>;
  clearFaults(): Promise<void>;
  advance(steps?: number): Promise<void>;
  advanceClock(seconds: number): Promise<void>;
  dropStreams(): Promise<number>;
  /** Venue requests the simulator received per route (`[service ]METHOD /path`), from /__sim/requests. */
  requests(): Promise<Map<string, number>>;
  clearRequests(): Promise<void>;
}

/** Venues whose simulator and adapter are registered for the sandbox, in the spec's order. */
export function registeredVenues(): ExchangeId[] {
  return Object.keys(SIM_VENUE_LAUNCHERS) as ExchangeId[];
}

export async function startVenue(
  id: ExchangeId,
  world: SimWorldOptions = { size: 40 },
  timeoutMs = 3_000,
): Promise<VenueUnderTest> {
  const launch = SIM_VENUE_LAUNCHERS[id];
  if (!launch) throw new Error(`no simulator launcher registered for ${id}`);
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox', venues: { timeoutMs } } });
  const running: RunningSimVenue = await launch(config, world);
  const fields = running.adapter.descriptor.credentials;
  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${running.control}/__sim/${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await res.text();
    assert.ok(res.ok, `simulator control ${method} ${path} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    id,
    adapter: running.adapter,
    sandboxSession: sessionFrom(running.account.credentials, id, fields, 'per_request'),
    sandboxAddress: running.account.address,
    async newSession() {
      const account = await running.createAccount();
      return {
        session: sessionFrom(account.credentials, id, fields, 'per_request'),
        address: account.address,
      };
    },
    ctx: (ms = 10_000) => ({
      signal: AbortSignal.timeout(ms),
      requestId: 'contract-test',
      logger: silentLogger,
      tenant: null,
    }),
    sim: {
      manifest: async () => (await control('GET', 'manifest')) as Record<string, string[]>,
      faults: async (settings) => void (await control('POST', 'faults', settings)),
      clearFaults: async () => void (await control('DELETE', 'faults')),
      advance: async (steps = 1) => void (await control('POST', 'advance', { steps })),
      advanceClock: async (seconds) => void (await control('POST', 'clock', { advance_seconds: seconds })),
      dropStreams: async () => ((await control('POST', 'ws/drop', {})) as { dropped: number }).dropped,
      requests: async () => {
        const { counts } = (await control('GET', 'requests')) as { counts: Record<string, number> };
        return new Map(Object.entries(counts));
      },
      clearRequests: async () => void (await control('DELETE', 'requests')),
    },
    controlUrl: running.control,
    close: () => running.close(),
  };
}

/** Asserts that a promise rejects with an AppError of the given code, and returns it. */
export async function rejectsWith(promise: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AppError, `expected AppError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected a rejection with ${code}`);
}

/** Walks the adapter's catalogue to the end (bounded), for venues small enough to list in a test. */
export async function allMarkets(venue: VenueUnderTest, maxPages = 2_000): Promise<Market[]> {
  const { catalog } = venue.adapter;
  assert.ok(catalog.fetchMarketsPage, 'fetch_markets is not declared');
  const markets: Market[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const result: Page<Market> = await catalog.fetchMarketsPage(venue.ctx(), cursor);
    markets.push(...result.items);
    cursor = result.cursor;
    if (cursor === null) return markets;
  }
  assert.fail(`catalogue did not end within ${maxPages} pages`);
}

/** Active markets whose books have both sides, best first by the number of levels, for trading tests. */
export async function liquidMarkets(venue: VenueUnderTest, count = 3): Promise<Market[]> {
  const { marketData } = venue.adapter;
  assert.ok(marketData.fetchOrderBook, 'fetch_orderbook is not declared');
  const found: Market[] = [];
  for (const market of (await allMarkets(venue)).filter((m) => m.status === 'active')) {
    const outcome = market.outcomes[0]?.name;
    if (!outcome) continue;
    const book = await marketData.fetchOrderBook(venue.ctx(), market, outcome);
    if (book.bids.length > 0 && book.asks.length > 0) found.push(market);
    if (found.length >= count) break;
  }
  assert.ok(found.length > 0, `${venue.id}: no active market with a two-sided book`);
  return found;
}

/** Asserts that a promise rejects with an AppError of the given HTTP status, and returns it. */
export async function rejectsWithStatus(promise: Promise<unknown>, status: number): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AppError, `expected AppError ${status}, got ${String(error)}`);
    assert.equal(error.status, status, `${error.code}: ${error.message}`);
    return error;
  }
  assert.fail(`expected a rejection with status ${status}`);
}

/** What the generic suites cannot know about a venue; each venue issue adds its entry. */
export interface VenueTestHints {
  /** Well-formed credentials of an account the venue never registered: it must refuse them. */
  strangerCredentials(): Promise<Record<string, string>>;
  /** A well-formed order id no order has. */
  unknownOrderId: string;
  /** The smallest order value the venue takes, in USD (a smaller order is refused). */
  minOrderValue?: number;
  /** The venue takes a buying taker's fee in shares: it holds the fee's worth fewer than it bought. */
  feeInShares?: boolean;
}

export const VENUE_TEST_HINTS: Partial<Record<ExchangeId, VenueTestHints>> = {
  polymarket: {
    // A wallet with CLOB credentials the exchange never issued.
    strangerCredentials: async () => ({
      private_key: generatePrivateKey(),
      clob_api_key: randomUUID(),
      clob_api_secret: randomBytes(32).toString('base64url'),
      clob_api_passphrase: randomBytes(16).toString('hex'),
    }),
    unknownOrderId: `0x${'ab'.repeat(32)}`,
  },
  kalshi: {
    // A real RSA key under a key id the exchange never issued.
    strangerCredentials: async () => ({
      api_key_id: randomUUID(),
      private_key: generateKeyPairSync('rsa', {
        modulusLength: 2048,
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      }).privateKey,
    }),
    unknownOrderId: '00000000-0000-0000-0000-000000000000',
  },
  limitless: {
    // A scoped API token Limitless never issued (token ids are UUIDs, secrets base64).
    strangerCredentials: async () => ({
      token_id: randomUUID(),
      secret: randomBytes(32).toString('base64'),
      private_key: `0x${randomBytes(32).toString('hex')}`,
    }),
    // Limitless order ids are UUIDv4 (the API answers 400 "must be a UUIDv4" otherwise).
    unknownOrderId: '5b0e0f6c-8f2d-4e8e-9a55-1c2d3e4f5a6b',
    feeInShares: true,
  },
  // A well-formed OpenAPI key (32 hex digits) the simulator never issued; Opinion order ids are UUIDs.
  opinion: {
    // An OpenAPI key the exchange never issued, with a wallet key to sign for it.
    strangerCredentials: async () => ({
      api_key: '0123456789abcdef0123456789abcdef',
      private_key: `0x${randomBytes(32).toString('hex')}`,
    }),
    unknownOrderId: '00000000-0000-4000-8000-000000000000',
  },
  predictfun: {
    // Any wallet can sign in to Predict.fun, so a stranger is a well-formed JWT the venue never issued.
    strangerCredentials: async () => {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const payload = { address: `0x${'12'.repeat(20)}`, iat: 1_700_000_000, exp: 4_100_000_000 };
      return { jwt: `${part({ alg: 'HS256', typ: 'JWT' })}.${part(payload)}.${'x'.repeat(43)}` };
    },
    // Orders are addressed by their EIP-712 hash.
    unknownOrderId: `0x${'0'.repeat(64)}`,
    // "order must have a value of at least 0.9 USD"; the taker fee of a buy is paid in shares.
    minOrderValue: 0.9,
    feeInShares: true,
  },
};

export function hintsFor(id: ExchangeId): VenueTestHints {
  const hints = VENUE_TEST_HINTS[id];
  assert.ok(hints, `${id}: add its VENUE_TEST_HINTS entry to test/contract/venues/harness.ts`);
  return hints;
}

export async function strangerSession(venue: VenueUnderTest): Promise<VenueSession> {
  const credentials = await hintsFor(venue.id).strangerCredentials();
  return sessionFrom(credentials, venue.id, venue.adapter.descriptor.credentials, 'per_request');
}
