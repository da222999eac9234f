// The Opinion adapter's envelope and error handling against a loopback stand-in for the exchange that answers
// canned bodies: the documented {code, msg, result} form, refusals inside HTTP 200, a missing or refused
// operator key. (Behaviour against the full simulator is in test/contract/venues/opinion.test.ts.)
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Market } from '../../../../src/domain/market.js';
import { AppError } from '../../../../src/errors/app-error.js';
import { createOpinionAdapter } from '../../../../src/venues/opinion/index.js';
import type { VenueContext } from '../../../../src/venues/port.js';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
let reply: { status: number; body: unknown } = { status: 200, body: {} };

before(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, { 'content-type': 'application/json' });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ctx = (): VenueContext => ({
  signal: AbortSignal.timeout(5_000),
  requestId: 't',
  logger: { debug() {}, info() {}, warn() {}, error() {} },
  tenant: null,
});

const adapter = (apiKey?: string) =>
  createOpinionAdapter({ restUrl: base, apiKey, pollIntervalMs: 1_000, timeoutMs: 2_000 });

async function rejects(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

const market: Market = {
  svc_id: 'opinion:7',
  svc_group_id: 'opinion:7',
  exchange: 'opinion',
  exchange_market_id: '7',
  exchange_group_id: '7',
  question: 'q?',
  group_title: 'q?',
  status: 'active',
  market_type: 'binary',
  outcomes: [
    { name: 'Yes', token_id: '111' },
    { name: 'No', token_id: '222' },
  ],
  volume_total: null,
};

test('without an operator key, public data answers 503 "OPINION_API_KEY not configured" and nothing is sent', async () => {
  const venue = adapter(undefined);
  const before = seen.length;
  await rejects(
    venue.catalog.fetchMarketsPage?.(ctx(), null) as Promise<unknown>,
    'service_unavailable',
    /^OPINION_API_KEY not configured$/,
  );
  await rejects(
    venue.marketData.fetchOrderBook?.(ctx(), market, 'Yes') as Promise<unknown>,
    'service_unavailable',
    /OPINION_API_KEY/,
  );
  await rejects(
    venue.catalog.fetchMarket?.(ctx(), '7') as Promise<unknown>,
    'service_unavailable',
    /OPINION_API_KEY/,
  );
  await rejects(
    venue.marketData.fetchUserActivity?.(ctx(), `0x${'a'.repeat(40)}`, 10) as Promise<unknown>,
    'service_unavailable',
    /OPINION_API_KEY/,
  );
  assert.equal(seen.length, before);
  const ping = await venue.ping(ctx(), null);
  assert.deepEqual(ping, {
    reachable: false,
    authenticated: false,
    message: 'OPINION_API_KEY not configured; no credentials',
  });
  await venue.close?.();
});

test('the documented {code, msg, result} envelope reads like {errno, errmsg, result}; the key goes in `apikey`', async () => {
  const venue = adapter('operator-key');
  reply = {
    status: 200,
    body: {
      code: 0,
      msg: 'success',
      result: { tokenId: '111', timestamp: 1_700_000_000_000, bids: [{ price: '0.4', size: '3' }], asks: [] },
    },
  };
  const book = await venue.marketData.fetchOrderBook?.(ctx(), market, 'yes');
  assert.deepEqual(book?.bids, [[0.4, 3]]);
  assert.equal(book?.outcome, 'Yes');
  const last = seen.at(-1);
  assert.equal(last?.headers.apikey, 'operator-key');
  assert.equal(last?.path, '/openapi/token/orderbook?token_id=111');
  await venue.close?.();
});

test('refusals: errno inside HTTP 200 is the venue failing (503) unless the table knows it; not found → null', async () => {
  const venue = adapter('operator-key');
  reply = { status: 200, body: { errno: 10999, errmsg: 'something odd', result: null } };
  await rejects(
    venue.marketData.fetchOrderBook?.(ctx(), market, 'Yes') as Promise<unknown>,
    'service_unavailable',
    /something odd/,
  );
  reply = { status: 400, body: { errno: 10002, errmsg: 'token not found', result: null } };
  await rejects(
    venue.marketData.fetchOrderBook?.(ctx(), market, 'Yes') as Promise<unknown>,
    'market_not_found',
  );
  reply = { status: 200, body: { errno: 10002, errmsg: 'market not found', result: null } };
  assert.equal(await venue.catalog.fetchMarket?.(ctx(), '7'), null);
  assert.equal(
    await venue.catalog.fetchMarket?.(ctx(), 'not-a-number'),
    null,
    'no call for a non-integer id',
  );
  // An envelope without its status field is the venue's format changing (the drift alarm's code).
  reply = { status: 200, body: { result: {} } };
  await rejects(
    venue.catalog.fetchMarketsPage?.(ctx(), null) as Promise<unknown>,
    'exchange_format_changed',
    /format this build cannot read \(at \/errno\)/,
  );
  await venue.close?.();
});

test("a refused operator key is our configuration's fault (503); a refused user key is authentication_failed", async () => {
  const venue = adapter('operator-key');
  reply = { status: 401, body: { errno: 11002, errmsg: 'Invalid API key', result: null } };
  await rejects(
    venue.catalog.fetchMarketsPage?.(ctx(), null) as Promise<unknown>,
    'service_unavailable',
    /OPINION_API_KEY/,
  );
  const session = {
    exchange: 'opinion' as const,
    credentials: { api_key: 'user-key' },
    source: 'per_request' as const,
  };
  await rejects(
    venue.trading.fetchBalance?.(ctx(), session) as Promise<unknown>,
    'authentication_failed',
    /Invalid API key/,
  );
  assert.equal(seen.at(-1)?.headers.apikey, 'user-key');
  reply = {
    status: 400,
    body: { errno: 11001, errmsg: 'This API Key has no related Opinion Login Wallet yet', result: null },
  };
  await rejects(
    venue.trading.fetchPositions?.(ctx(), session, null) as Promise<unknown>,
    'authentication_failed',
    /no Opinion wallet/,
  );
  await venue.close?.();
});

test('candles only for the intervals Opinion serves; a malformed wallet address is the client’s error', async () => {
  const venue = adapter('operator-key');
  const query = { interval: '1m' as const, startTs: 0, endTs: 10 };
  await rejects(
    venue.marketData.fetchPriceHistory?.(ctx(), market, 'Yes', query) as Promise<unknown>,
    'validation_error',
  );
  await rejects(
    venue.marketData.fetchUserActivity?.(ctx(), 'bob', 10) as Promise<unknown>,
    'validation_error',
  );
  await rejects(
    venue.marketData.fetchOrderBook?.(ctx(), market, 'Maybe') as Promise<unknown>,
    'validation_error',
  );
  await venue.close?.();
});
