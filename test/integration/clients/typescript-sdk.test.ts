// @omnibook/client against the whole sandbox (the real server over the five simulators and the local chain), one
// server for every test here: the committed generated types equal what the running server's /openapi.json renders
// to; every operation of that document is called once through the client's named methods; cursor-paged lists
// iterate to their end; errors are typed and retries honour Retry-After, with POST /orders never repeated without
// its Idempotency-Key; and the WebSocket: one connection for books and wallets, unknown ids refused (never a hang),
// a venue stream drop (stale → resync → fresh), a message lost on the way (gap → resync → fresh), a cut connection
// (stale → reconnect → resubscribed), and a reader that stops reading holding one view, not a backlog.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GENERATED_FILE, renderTypes } from '../../../clients/typescript/scripts/generate-types.mjs';
import {
  type LiveBook,
  OmnibookClient,
  OmnibookError,
  OmnibookStream,
  OmnibookStreamError,
  type RetryEvent,
  type StaleEvent,
} from '../../../clients/typescript/src/index.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { type SandboxServer, startSandboxServer } from '../../support/sandbox.js';
import { waitFor } from '../../support/server.js';
import { startWsRelay, type WsRelay } from '../../support/ws-relay.js';

let sandbox: SandboxServer;
let client: OmnibookClient;
let relay: WsRelay;
const streams: OmnibookStream[] = [];
/** Every request the main client sent, as METHOD and URL path. */
const sent: Array<[string, string]> = [];
/** The same for the builder key's client. */
const builderSent: Array<[string, string]> = [];
function recordingFetch(request: Request): Promise<Response> {
  builderSent.push([request.method, new URL(request.url).pathname]);
  return fetch(request);
}

/**
 * The rate limiter's clock: real time, except while the rate-limit test holds it still, so a bucket refills only when
 * that test moves it (by exactly the Retry-After the client waits), never by the machine's timing.
 */
const limiterClock = {
  frozenAt: null as number | null,
  skew: 0,
  now(): number {
    return this.frozenAt ?? Date.now() + this.skew;
  },
  freeze() {
    this.frozenAt = this.now();
  },
  advance(ms: number) {
    if (this.frozenAt !== null) this.frozenAt += ms;
  },
  release() {
    if (this.frozenAt === null) return;
    this.skew = Math.max(this.skew, this.frozenAt - Date.now());
    this.frozenAt = null;
  },
};

before(async () => {
  sandbox = await startSandboxServer(40, {
    admissionClock: () => limiterClock.now(),
  });
  client = new OmnibookClient({
    baseUrl: sandbox.server.url,
    apiKey: sandbox.server.adminKey,
    fetch: (request) => {
      sent.push([request.method, new URL(request.url).pathname]);
      return fetch(request);
    },
  });
  relay = await startWsRelay(`${sandbox.server.url.replace(/^http/, 'ws')}/ws`);
});
after(async () => {
  for (const s of streams) s.close();
  await relay?.close();
  await sandbox?.stop();
});

function active(exchange: ExchangeId, n = 0): Market {
  const list = [...sandbox.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes.every((o) => o.token_id),
  );
  const m = list[n];
  assert.ok(m, `${exchange} has fewer than ${n + 1} active markets`);
  return m;
}

function account(exchange: ExchangeId) {
  const sim = sandbox.sims.get(exchange);
  assert.ok(sim);
  return sim.account;
}

async function simControl(exchange: ExchangeId, path: string, body?: unknown): Promise<void> {
  const sim = sandbox.sims.get(exchange);
  assert.ok(sim);
  const res = await fetch(`${sim.control}/__sim/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  assert.ok(res.ok, `POST /__sim/${path}: ${res.status} ${await res.text()}`);
}

/** A stream opened by a test (closed at the end). */
function stream(options: ConstructorParameters<typeof OmnibookStream>[0]): OmnibookStream {
  const s = new OmnibookStream(options);
  streams.push(s);
  return s;
}

/** Resolves with the first event for which `match` holds. */
function nextEvent<T>(
  on: (listener: (value: T) => void) => () => void,
  match: (value: T) => boolean,
): Promise<T> {
  return new Promise((resolve) => {
    const off = on((value) => {
      if (match(value)) {
        off();
        resolve(value);
      }
    });
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

describe('generated types', () => {
  test("the committed src/generated/openapi.ts is what the running server's /openapi.json renders to", async () => {
    const document = (await (await fetch(`${sandbox.server.url}/openapi.json`)).json()) as unknown;
    const rendered = await renderTypes(document);
    const committed = readFileSync(GENERATED_FILE, 'utf8');
    assert.ok(
      rendered === committed,
      'clients/typescript/src/generated/openapi.ts is out of date with the server: run `npm run generate:client`',
    );
  });
});

describe('REST: every operation', () => {
  test('each operation of /openapi.json is called once through a named method, and answers as documented', async () => {
    const kalshi = account('kalshi');
    const polymarket = account('polymarket');
    const pm = active('polymarket');
    const km = active('kalshi');
    const outcome = km.outcomes[0]?.name ?? 'Yes';
    const creds = { credentials: kalshi.credentials };
    const pmCreds = { credentials: polymarket.credentials };
    // Gasless CTF operations act from a contract wallet: the sandbox's deposit-wallet account.
    const deposit = sandbox.sims.get('polymarket')?.extraAccounts?.polymarket_deposit_wallet;
    assert.ok(deposit);
    const depositCreds = { credentials: deposit.credentials };
    const refused: Array<[string, string]> = [];
    /** A call the sandbox may refuse for its own reasons (no managed wallet, no funds): a documented 4xx. */
    const tolerate = async (name: string, call: Promise<unknown>) => {
      try {
        await call;
      } catch (error) {
        assert.ok(error instanceof OmnibookError, `${name}: ${String(error)}`);
        const documented =
          error.status !== null && error.status >= 400 && error.status <= 501 && error.status !== 500;
        assert.ok(documented, `${name}: ${error.status} ${error.message}`);
        refused.push([name, error.code]);
      }
    };

    assert.equal((await client.health()).status !== undefined, true);
    assert.ok((await client.exchanges()).some((e) => e.id === 'kalshi'));
    await client.ping({ exchange: 'kalshi' });
    assert.equal((await client.usage()).tier, 'admin');
    await client.wsUsage({ scope: 'self' });
    const key = await client.createKey({ tier: 'free', name: 'sdk test' });
    assert.ok((await client.listKeys()).some((k) => k.id === key.id));
    await client.revokeKey(key.id);

    const page = await client.searchMarkets(pm.question.split(' ').slice(0, 2).join(' '));
    assert.ok(page.markets.length > 0);
    assert.equal((await client.market(pm.svc_id)).svc_id, pm.svc_id);
    await client.events({ limit: 2 });
    const book = await client.orderbook({ svc_id: km.svc_id, outcome });
    assert.equal(book.svc_id, km.svc_id);
    const history = await client.orderbookHistory({
      svc_id: km.svc_id,
      start_ts: Math.floor(Date.now() / 1000) - 60,
    });
    assert.ok(Array.isArray(history.snapshots));
    await client.executionPrice({ svc_id: km.svc_id, outcome, side: 'buy', amount: '1' });
    await client.candles({ svc_id: pm.svc_id, interval: '1h' });
    await client.trades({ svc_id: pm.svc_id, limit: 5 });
    await client.userActivity({ address: polymarket.address ?? '', exchanges: 'polymarket' });
    await client.consolidatedOrderbook({ svc_id: pm.svc_id });
    await tolerate('routeQuote', client.routeQuote({ svc_id: pm.svc_id, side: 'buy', amount: '1' }));
    assert.ok(Array.isArray((await client.arbitrage({ exchanges: 'polymarket,kalshi' })).opportunities));
    // Acting across exchanges: the sandbox may refuse a route or a pair (no twin linked, a pair costing more than
    // it pays); either way the call went out with an Idempotency-Key made by the client.
    await tolerate(
      'placeRouteOrder',
      client.placeRouteOrder({
        svc_id: km.svc_id,
        outcome,
        side: 'buy',
        amount: '1',
        max_slippage: '0.5',
        credentials: { kalshi: kalshi.credentials },
      } as never),
    );
    const routes = await client.listRouteOrders();
    for await (const r of client.iterateRouteOrders({ limit: 1 })) {
      assert.equal((await client.getRouteOrder(r.id)).id, r.id);
      break;
    }
    if (routes.route_orders.length === 0) await tolerate('getRouteOrder', client.getRouteOrder('rt_unknown'));
    await tolerate(
      'executeArbitrage',
      client.executeArbitrage({
        legs: km.outcomes.map((o) => ({ svc_id: km.svc_id, outcome: o.name })),
        size: 1,
        credentials: { kalshi: kalshi.credentials },
      } as never),
    );
    const executions = await client.listArbitrageExecutions();
    for await (const e of client.iterateArbitrageExecutions({ limit: 1 })) {
      assert.equal((await client.getArbitrageExecution(e.id)).id, e.id);
      break;
    }
    if (executions.executions.length === 0)
      await tolerate('getArbitrageExecution', client.getArbitrageExecution('arb_unknown'));
    assert.equal(typeof (await client.selfKey()).id, 'string');

    // Trading on kalshi with the paper account's per-request credentials: a resting buy at the lowest tick.
    const tick = book.tick_size ?? 0.01;
    const order = await client.placeOrder(
      { exchange: 'kalshi' },
      {
        market_id: km.exchange_market_id,
        outcome,
        side: 'buy',
        price: tick,
        size: Math.max(1, book.min_order_size ?? 1),
      },
      creds,
    );
    assert.equal((await client.getOrder(order.id, { exchange: 'kalshi' }, creds)).id, order.id);
    assert.ok(
      (await client.listOrders({ exchange: 'kalshi', status: 'all' }, creds)).some((o) => o.id === order.id),
    );
    assert.equal((await client.cancelOrder(order.id, { exchange: 'kalshi' }, creds)).status, 'cancelled');
    await client.fills({ exchange: 'kalshi' }, creds);
    await client.positions({ exchange: 'kalshi' }, creds);
    await client.balance({ exchange: 'kalshi' }, creds);
    await client.onboard({ exchange: 'kalshi', mode: 'self', ...kalshi.credentials } as never);
    await client.wallet();
    await tolerate('exportWalletKey', client.exportWalletKey({ wallet_type: 'eoa' }));

    // The builder program, with a builder key of its own.
    const builderKey = await client.createKey({ tier: 'pro', name: 'sdk builder', builder: true });
    const builder = new OmnibookClient({
      baseUrl: sandbox.server.url,
      apiKey: builderKey.key,
      fetch: recordingFetch,
    });
    const user = await builder.createBuilderUser({ external_id: `sdk-${Date.now()}` });
    assert.ok((await builder.listBuilderUsers()).users.some((u) => u.customer_id === user.customer_id));
    await builder.getBuilderUser(user.customer_id);
    await builder.updateBuilderUser(user.customer_id, { qps_limit: 5 });
    await builder.builderOnboard({
      exchange: 'kalshi',
      mode: 'self',
      customer_id: user.customer_id,
      ...kalshi.credentials,
    } as never);
    await builder.builderPool();
    await tolerate('builderEscrowConfig', builder.builderEscrowConfig());
    await builder.deleteBuilderUser(user.customer_id);

    // On chain (polymarket), with the paper account.
    await client.approvals({ exchange: 'polymarket' }, pmCreds);
    await client.setApprovals({ exchange: 'polymarket' }, { all: true }, pmCreds);
    const condition = pm.condition_id ?? '';
    await tolerate('ctfSplit', client.ctfSplit({ condition_id: condition, amount: '1000000' }, depositCreds));
    await tolerate('ctfMerge', client.ctfMerge({ condition_id: condition, amount: '1000000' }, depositCreds));
    await tolerate('ctfRedeem', client.ctfRedeem({ condition_id: condition }, depositCreds));

    // Every operation the server documents was called through a named method (the builder's calls included).
    const document = (await (await fetch(`${sandbox.server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const called = new Set(
      [...sent, ...builderSent].map(([method, pathname]) => {
        const template = Object.keys(document.paths).find((p) =>
          new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname),
        );
        return `${method} ${template ?? pathname}`;
      }),
    );
    assert.deepEqual(
      operations.filter((op) => !called.has(op)),
      [],
      'operations with no named method exercised',
    );
  });
});

describe('REST: pagination', () => {
  test('iterateMarkets walks every page of a list once, in order, and stops early when asked', async () => {
    const first = await client.markets({ limit: 7 });
    const all: string[] = [];
    for await (const m of client.iterateMarkets({ limit: 7 })) all.push(m.svc_id);
    assert.equal(all.length, first.pagination.total);
    assert.equal(new Set(all).size, all.length, 'no market twice');
    assert.deepEqual(
      all.slice(0, 7),
      first.markets.map((m) => m.svc_id),
    );
    const requestsBefore = sent.length;
    let n = 0;
    for await (const _ of client.iterateMarkets({ limit: 7 })) if (++n === 3) break;
    assert.equal(sent.length - requestsBefore, 1, 'one page fetched for three items');
  });

  test('iterateEvents and iterateTrades reach the end of their lists', async () => {
    const events: string[] = [];
    for await (const e of client.iterateEvents({ limit: 3 })) events.push(e.event_id);
    assert.equal(events.length, (await client.events({ limit: 1 })).pagination.total);
    const m = active('kalshi');
    await simControl('kalshi', 'advance', { steps: 5 });
    const trades: string[] = [];
    for await (const t of client.iterateTrades({ svc_id: m.svc_id, limit: 2 })) trades.push(t.id);
    const once = await client.trades({ svc_id: m.svc_id, limit: 500 });
    assert.deepEqual(
      trades,
      once.trades.map((t) => t.id),
    );
  });
});

describe('REST: errors and retries', () => {
  test('an API refusal is an OmnibookError with the code, status, retryable flag and validation errors', async () => {
    const missing = await rejection(client.orderbook({ svc_id: 'kalshi:KXNOSUCHMARKET-99' }));
    assert.ok(missing instanceof OmnibookError);
    assert.equal(missing.status, 404);
    assert.equal(missing.code, 'market_not_found');
    assert.equal(missing.retryable, false);
    assert.equal(missing.path, '/api/v1/orderbook');
    const invalid = await rejection(client.markets({ limit: 1000 }));
    assert.ok(invalid instanceof OmnibookError);
    assert.equal(invalid.code, 'validation_error');
    assert.ok(invalid.validationErrors.length > 0);
    const secret = 'ob_definitely-not-a-key';
    const stranger = new OmnibookClient({ baseUrl: sandbox.server.url, apiKey: secret });
    const unauthorized = await rejection(stranger.exchanges());
    assert.ok(unauthorized instanceof OmnibookError);
    assert.equal(unauthorized.code, 'unauthorized');
    assert.ok(!JSON.stringify({ ...unauthorized, message: unauthorized.message }).includes(secret));
  });

  test('no answer at all is a retryable network_error, after the retries', async () => {
    const nowhere = new OmnibookClient({
      baseUrl: 'http://127.0.0.1:9',
      retry: { maxRetries: 2, baseDelayMs: 1 },
      onRetry: (e) => retries.push(e),
    });
    const retries: RetryEvent[] = [];
    const error = await rejection(nowhere.exchanges());
    assert.ok(error instanceof OmnibookError);
    assert.equal(error.code, 'network_error');
    assert.equal(error.status, null);
    assert.equal(error.retryable, true);
    assert.equal(retries.length, 2);
  });

  test("429s are retried after the server's Retry-After; POST /orders carries one Idempotency-Key across them", async () => {
    const free = await client.createKey({ tier: 'free', name: 'sdk rate limit' });
    const retries: RetryEvent[] = [];
    const limited = new OmnibookClient({
      baseUrl: sandbox.server.url,
      apiKey: free.key,
      onRetry: (e) => {
        retries.push(e);
        limiterClock.advance(e.delayMs);
      },
    });
    const km = active('kalshi', 1);
    const outcome = km.outcomes[0]?.name ?? 'Yes';
    const book = await client.orderbook({ svc_id: km.svc_id, outcome });
    const body = {
      market_id: km.exchange_market_id,
      outcome,
      side: 'buy' as const,
      price: book.tick_size ?? 0.01,
      size: 1,
    };
    const creds = { credentials: account('kalshi').credentials };
    limiterClock.freeze();
    try {
      // Burst 10 and a clock held still: ten calls spend the bucket, the eleventh is refused once and retried after
      // the server's Retry-After (the clock moved by exactly that), then answered.
      for (let i = 0; i < 10; i++) await limited.exchanges({ retry: false });
      assert.ok((await limited.exchanges()).length > 0);
      assert.equal(retries.length, 1);
      const [r] = retries;
      assert.equal(r?.error.status, 429);
      assert.equal(r?.error.code, 'rate_limit_exceeded');
      assert.ok(r?.error.retryAfterMs !== null && (r?.error.retryAfterMs ?? 0) > 0);
      assert.equal(r?.delayMs, r?.error.retryAfterMs, "the client waited the server's Retry-After");
      // Spend the bucket, then place an order: refused at admission, retried with the key the client made.
      retries.length = 0;
      for (let i = 0; i < 10; i++) await limited.usage({ retry: false }).catch(() => undefined);
      const order = await limited.placeOrder({ exchange: 'kalshi' }, body, creds);
      assert.equal(retries.length, 1);
      const [retried] = retries;
      assert.equal(retried?.path, '/api/v1/orders');
      assert.equal(retried?.error.status, 429);
      assert.ok(retried?.idempotencyKey, 'the order carried an Idempotency-Key the client made');
      // Idempotency-Keys are per customer: the same customer repeats the call with the reported key.
      limiterClock.advance(1_000);
      const replay = await limited.placeOrder({ exchange: 'kalshi' }, body, {
        ...creds,
        idempotencyKey: retried.idempotencyKey,
      });
      assert.equal(replay.id, order.id, 'the key the retry carried is that order');
      await client.cancelOrder(order.id, { exchange: 'kalshi' }, creds);
    } finally {
      limiterClock.release();
    }
  });
});

describe('WebSocket', () => {
  test('books and a wallet on one connection; unknown ids and outcomes are refused at once, never a hang', async () => {
    const own = await client.createKey({ tier: 'pro', name: 'sdk ws' });
    const s = stream({ url: client.wsUrl, apiKey: own.key, subscribeTimeoutMs: 60_000 });
    const a = active('polymarket', 0);
    const b = active('kalshi', 0);
    const [bookA, bookB] = await Promise.all([
      s.subscribeBook({ svc_id: a.svc_id, depth: 5 }),
      s.subscribeBook({ svc_id: b.svc_id }),
    ]);
    assert.equal(bookA.state, 'fresh');
    assert.ok(bookA.bids.length <= 5 && bookA.asks.length <= 5);
    assert.deepEqual(
      bookA.bids,
      [...bookA.bids].sort((x, y) => y[0] - x[0]),
      'bids best first',
    );
    assert.deepEqual(
      bookA.asks,
      [...bookA.asks].sort((x, y) => x[0] - y[0]),
      'asks best first',
    );
    const rest = await client.orderbook({ svc_id: a.svc_id, limit: 5 });
    assert.deepEqual([bookA.bids, bookA.asks], [rest.bids, rest.asks]);
    const wallet = await s.watchWallet({
      exchange: 'polymarket',
      address: account('polymarket').address ?? '',
    });
    assert.equal(wallet.state, 'live');
    assert.equal(await s.subscribeBook({ svc_id: a.svc_id, depth: 5 }), bookA, 'the same book twice is one');

    const unknown = await rejection(s.subscribeBook({ svc_id: 'polymarket:0xnope' }));
    assert.ok(unknown instanceof OmnibookStreamError);
    assert.equal(unknown.reason, 'market_not_found');
    const outcome = await rejection(s.subscribeBook({ svc_id: b.svc_id, outcome: 'maybe' }));
    assert.ok(outcome instanceof OmnibookStreamError);
    assert.equal(outcome.reason, 'invalid_outcome');
    const badAddress = await rejection(s.watchWallet({ exchange: 'polymarket', address: '0x123' }));
    assert.ok(badAddress instanceof OmnibookStreamError);
    assert.equal(badAddress.reason, 'invalid_market');
    assert.equal(s.state, 'open');

    const usage = await new OmnibookClient({ baseUrl: sandbox.server.url, apiKey: own.key }).usage();
    assert.equal(usage.usage.ws_active_connections, 1, 'one connection for everything');
    assert.equal(usage.usage.ws_active_subscriptions, 3);
    await bookB.unsubscribe();
    assert.equal(bookB.state, 'closed');
    await waitFor(async () => {
      const u = await new OmnibookClient({ baseUrl: sandbox.server.url, apiKey: own.key }).usage();
      return u.usage.ws_active_subscriptions === 2 ? true : undefined;
    });
  });

  test("a venue stream drop: the book goes stale, then the server's resync brings a fresh snapshot", async () => {
    const s = stream({ url: client.wsUrl, apiKey: sandbox.server.adminKey });
    const m = active('polymarket', 2);
    const book = await s.subscribeBook({ svc_id: m.svc_id });
    const staleEvents: StaleEvent[] = [];
    book.on('stale', (e) => staleEvents.push(e));
    const fresh = nextEvent<{ state: string }>(
      (l) => book.on('update', l),
      (v) => v.state === 'fresh' && staleEvents.length >= 2,
    );
    await simControl('polymarket', 'ws/drop');
    await fresh;
    assert.deepEqual(
      staleEvents.map((e) => e.reason),
      ['venue', 'resync_required'],
    );
    assert.equal(book.feedState, 'healthy');
  });

  test('a message lost on the way: the gap is seen, the book waits for the resync snapshot, then matches the venue', async () => {
    const s = stream({ url: relay.url, apiKey: sandbox.server.adminKey });
    const m = active('kalshi', 2);
    const outcome = m.outcomes[0]?.name ?? 'Yes';
    const book = await s.subscribeBook({ svc_id: m.svc_id, outcome, depth: 5 });
    const dropped = relay.dropNext((x) => x.type === 'orderbook_delta' && x.svc_id === m.svc_id);
    const gap = nextEvent<{ expected: number; received: number }>(
      (l) => book.on('gap', l),
      () => true,
    );
    const refreshed = nextEvent<{ state: string }>(
      (l) => book.on('update', l),
      (v) => v.state === 'needs_refresh',
    );
    await simControl('kalshi', 'advance', { steps: 3 });
    const lost = await dropped;
    const seen = await gap;
    assert.equal(seen.expected, lost.server_seq);
    await refreshed;
    await waitFor(async () => (book.state === 'fresh' ? true : undefined), 20_000, 'the resync snapshot');
    // The client's book, rebuilt from the resync snapshot and the deltas after it, is the server's.
    await waitFor(async () => {
      const now = await client.orderbook({ svc_id: m.svc_id, outcome, limit: 5 });
      return JSON.stringify([book.bids, book.asks]) === JSON.stringify([now.bids, now.asks])
        ? true
        : undefined;
    });
  });

  test('a cut connection: books go stale, the client reconnects and resubscribes everything, on one new connection', async () => {
    // A relay of its own: the shared one still carries the lost-message test's stream, which a cut would make
    // reconnect too, on its own schedule (the extra connection this count once saw under load).
    const own = await startWsRelay(`${sandbox.server.url.replace(/^http/, 'ws')}/ws`);
    after(() => own.close());
    const s = stream({
      url: own.url,
      apiKey: sandbox.server.adminKey,
      reconnect: { minDelayMs: 10, maxDelayMs: 50 },
    });
    const m1 = active('limitless', 0);
    const m2 = active('opinion', 0);
    const [b1, b2] = await Promise.all([
      s.subscribeBook({ svc_id: m1.svc_id }),
      s.subscribeBook({ svc_id: m2.svc_id }),
    ]);
    const before = own.connections;
    const stale = Promise.all(
      [b1, b2].map((b) =>
        nextEvent<StaleEvent>(
          (l) => b.on('stale', l),
          (e) => e.reason === 'disconnected',
        ),
      ),
    );
    const back = Promise.all(
      [b1, b2].map((b) =>
        nextEvent<{ state: string }>(
          (l) => b.on('update', l),
          (v) => v.state === 'fresh',
        ),
      ),
    );
    own.cutAll();
    await stale;
    assert.equal(b1.state, 'stale');
    await back;
    assert.equal(own.connections, before + 1, 'one new connection carries both books');
    assert.equal(s.state, 'open');
  });

  test('a reader that stops reading holds one book view, however many updates pass', async () => {
    const s = stream({ url: client.wsUrl, apiKey: sandbox.server.adminKey });
    const m = active('polymarket', 4);
    const book: LiveBook = await s.subscribeBook({ svc_id: m.svc_id, depth: 5 });
    const updates = book.updates();
    const activity = book.activity(2);
    let changes = 0;
    let lastView: number | null = null;
    book.on('update', (v) => {
      changes++;
      lastView = v.server_seq;
    });
    for (let i = 0; i < 4; i++) await simControl('polymarket', 'advance', { steps: 3 });
    await waitFor(
      async () => (changes >= 3 && activity.dropped > 0 ? true : undefined),
      20_000,
      'updates and trades',
    );
    assert.ok(updates.buffered <= 1, `${updates.buffered} views held`);
    assert.ok(updates.skipped >= 2);
    assert.equal(activity.buffered, 2, 'at most the queue capacity held');
    const latest = await updates.next();
    assert.equal(latest.done, false);
    assert.equal(latest.value?.server_seq, lastView, 'the reader gets the newest state');
    await updates.return?.();
  });

  test('a wrong key fails every subscription and closes the stream, without reconnecting', async () => {
    const s = stream({ url: client.wsUrl, apiKey: 'ob_wrong' });
    const error = await rejection(s.subscribeBook({ svc_id: active('kalshi').svc_id }));
    assert.ok(error instanceof OmnibookStreamError);
    assert.equal(error.reason, 'auth_failed');
    assert.equal(s.state, 'closed');
  });
});

describe('README examples', () => {
  const examples = fileURLToPath(new URL('../../../clients/typescript/examples/', import.meta.url));
  /** Runs an example as the README says, importing the package by its name (`@omnibook/client`, its build). */
  function runExample(file: string, args: string[], env: Record<string, string>) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(examples, file), ...args], {
        env: {
          ...process.env,
          OMNIBOOK_URL: sandbox.server.url,
          OMNIBOOK_API_KEY: sandbox.server.adminKey,
          ...env,
        },
        stdio: 'pipe',
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  test('trade.ts: search → book → quote → order → cancel; stream-book.ts: a live book, then unsubscribed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'omnibook-examples-'));
    try {
      const accounts = join(dir, 'sandbox-accounts.json');
      writeFileSync(accounts, JSON.stringify({ kalshi: account('kalshi') }), { mode: 0o600 });
      const km = active('kalshi', 3);
      const word = km.question.split(/\s+/).find((w) => /^[A-Za-z]{4,}$/.test(w));
      assert.ok(word, km.question);
      const [trade, live] = await Promise.all([
        runExample('trade.ts', [word], { OMNIBOOK_CREDENTIALS: accounts }),
        runExample('stream-book.ts', [active('polymarket', 5).svc_id], { UPDATES: '1' }),
      ]);
      assert.equal(trade.code, 0, trade.stderr);
      for (const step of ['market', 'book', 'quote', 'order', 'cancel', 'error']) {
        assert.match(trade.stdout, new RegExp(`^${step} `, 'm'), `${step}: ${trade.stdout}`);
      }
      assert.match(trade.stdout, /^cancel .* cancelled$/m);
      assert.match(trade.stdout, /^error {3}market_not_found \(retryable: false\)$/m);
      assert.equal(live.code, 0, live.stderr);
      assert.match(live.stdout, /^fresh seq 1 {2}best bid/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
