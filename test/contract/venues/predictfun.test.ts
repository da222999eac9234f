// Predict.fun-specific contract cases, the adapter against its simulator over loopback: the operator API key
// (missing → 503 "PREDICTFUN_API_KEY not configured", refused → 503), data-only capabilities, positions and
// on-chain balances for EOAs, Predict accounts and bare JWTs, JWT refusal and expiry, one sign-in per signer
// reused across calls (counted by the simulator), outcome aliases on the YES-quoted book, wallet activity by
// address, and the polled stream on the complement outcome.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { type PredictfunSim, startPredictfunSim } from '../../../sim/predictfun/index.js';
import { LIVE_VENUE_FACTORIES } from '../../../src/cli/live-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import type { BookLevel } from '../../../src/domain/book.js';
import { applyBookChanges } from '../../../src/domain/book-diff.js';
import type { Market } from '../../../src/domain/market.js';
import { sessionFrom } from '../../../src/vault/per-request-credentials.js';
import type { VenueAdapter, VenueContext, VenueSession } from '../../../src/venues/port.js';
import { CAPABILITIES } from '../../../src/venues/port.js';
import {
  createPredictfunAdapter,
  type PredictfunAdapterOptions,
} from '../../../src/venues/predictfun/index.js';
import { VenueRegistry } from '../../../src/venues/registry.js';
import { waitFor } from '../../support/server.js';
import { rejectsWith, silentLogger } from './harness.js';

let sim: PredictfunSim;
let adapter: VenueAdapter;
let options: PredictfunAdapterOptions;
let markets: Market[] = [];

const ctx = (): VenueContext => ({
  signal: AbortSignal.timeout(10_000),
  requestId: 'predictfun-contract',
  logger: silentLogger,
  tenant: null,
});
const session = (credentials: Record<string, string>): VenueSession =>
  sessionFrom(credentials, 'predictfun', adapter.descriptor.credentials, 'per_request');
const control = async (path: string, body: unknown): Promise<unknown> => {
  const res = await fetch(`${sim.control}/__sim/${path}`, { method: 'POST', body: JSON.stringify(body) });
  assert.ok(res.ok, `control ${path}: ${res.status}`);
  return res.json();
};

/** Requests the simulator received per route since the last clear. */
const requests = async (): Promise<Map<string, number>> => {
  const res = await fetch(`${sim.control}/__sim/requests`);
  const { counts } = (await res.json()) as { counts: Record<string, number> };
  return new Map(Object.entries(counts));
};
const clearRequests = async (): Promise<void> => {
  assert.ok((await fetch(`${sim.control}/__sim/requests`, { method: 'DELETE' })).ok);
};
/** Sign-ins the simulator saw since the last clear: each is GET /v1/auth/message then POST /v1/auth. */
const signIns = async (): Promise<{ messages: number; tokens: number }> => {
  const counts = await requests();
  return { messages: counts.get('GET /v1/auth/message') ?? 0, tokens: counts.get('POST /v1/auth') ?? 0 };
};

/** Signs in to the simulator directly, as a client holding its own JWT would have done. */
async function jwtFor(privateKey: `0x${string}`): Promise<string> {
  const account = privateKeyToAccount(privateKey);
  const headers = { 'x-api-key': sim.apiKey, 'content-type': 'application/json' };
  const message = (
    (await (await fetch(`${sim.url}/v1/auth/message`, { headers })).json()) as { data: { message: string } }
  ).data.message;
  const signature = await account.signMessage({ message });
  const res = await fetch(`${sim.url}/v1/auth`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ signer: account.address, message, signature }),
  });
  return ((await res.json()) as { data: { token: string } }).data.token;
}

before(async () => {
  sim = await startPredictfunSim({ seed: 21, size: 50 });
  options = {
    restUrl: sim.url,
    rpcUrl: sim.rpcUrl,
    collateralToken: sim.collateralToken,
    apiKey: sim.apiKey,
    pollIntervalMs: 150,
    timeoutMs: 3_000,
    unpaced: true,
  };
  adapter = createPredictfunAdapter(options);
  const page = await adapter.catalog.fetchMarketsPage?.(ctx(), null);
  markets = (page?.items ?? []).filter((m) => m.status === 'active');
  assert.ok(markets.length >= 3);
});
after(async () => {
  await adapter?.close?.();
  await sim?.close();
});

describe('predictfun: operator API key', () => {
  test('live mode without PREDICTFUN_API_KEY: public calls answer 503 with that message, ping says so', async () => {
    const build = LIVE_VENUE_FACTORIES.predictfun;
    assert.ok(build, 'predictfun is registered for `omnibook serve`');
    const keyless = build(loadConfig({ env: {} }));
    try {
      const error = await rejectsWith(
        keyless.catalog.fetchMarketsPage?.(ctx(), null) ?? Promise.resolve(),
        'service_unavailable',
      );
      assert.equal(error.message, 'PREDICTFUN_API_KEY not configured');
      assert.equal(error.retryable, true);
      const ping = await keyless.ping(ctx(), null);
      assert.deepEqual(ping, {
        reachable: false,
        authenticated: false,
        message: 'PREDICTFUN_API_KEY not configured',
      });
    } finally {
      await keyless.close?.();
    }
    const configured = loadConfig({ env: { PREDICTFUN_API_KEY: 'k' } });
    assert.equal(configured.venues.predictfun.apiKey, 'k');
  });

  test('a key the venue refuses is our configuration problem: 503, never the client credentials', async () => {
    const wrong = createPredictfunAdapter({ ...options, apiKey: 'not-the-key' });
    try {
      const error = await rejectsWith(
        wrong.catalog.fetchMarket?.(ctx(), markets[0]?.exchange_market_id ?? '1') ?? Promise.resolve(),
        'service_unavailable',
      );
      assert.match(error.message, /refused our API key \(PREDICTFUN_API_KEY\): authorization error/);
      assert.equal((await wrong.ping(ctx(), null)).reachable, false);
    } finally {
      await wrong.close?.();
    }
  });
});

describe('predictfun: key-less testnet', () => {
  test('testnet needs no key: without PREDICTFUN_API_KEY calls go out key-less, sign-ins and balances work', async () => {
    const testnet = await startPredictfunSim({ seed: 21, size: 10, network: 'testnet' });
    const keyless = createPredictfunAdapter({
      restUrl: testnet.url,
      rpcUrl: testnet.rpcUrl,
      collateralToken: testnet.collateralToken,
      chainId: testnet.chainId,
      pollIntervalMs: 150,
      timeoutMs: 3_000,
      unpaced: true,
    });
    try {
      const page = await keyless.catalog.fetchMarketsPage?.(ctx(), null);
      assert.ok((page?.items.length ?? 0) > 0);
      assert.deepEqual(await keyless.ping(ctx(), null), {
        reachable: true,
        authenticated: false,
        message: 'reachable; no credentials',
      });
      const account = await testnet.createAccount({ predict_account: true, balance: '5000000000000000000' });
      const s = session(account.credentials);
      const balance = await keyless.trading.fetchBalance?.(ctx(), s);
      assert.deepEqual([balance?.raw.balance, balance?.raw.chain_id], ['5000000000000000000', 97]);
      assert.deepEqual(await keyless.trading.fetchPositions?.(ctx(), s, null), []);
    } finally {
      await keyless.close?.();
      await testnet.close();
    }
  });

  test('a host that turns out to demand a key answers 503 PREDICTFUN_API_KEY not configured', async () => {
    // The mainnet-mode simulator on a host the adapter does not know: the calls go out, the venue refuses them.
    const keyless = createPredictfunAdapter({ ...options, apiKey: undefined });
    try {
      const error = await rejectsWith(
        keyless.catalog.fetchMarketsPage?.(ctx(), null) ?? Promise.resolve(),
        'service_unavailable',
      );
      assert.equal(error.message, 'PREDICTFUN_API_KEY not configured');
      const account = (await control('accounts', {})) as { credentials: Record<string, string> };
      const signIn = await rejectsWith(
        keyless.trading.fetchPositions?.(ctx(), session(account.credentials), null) ?? Promise.resolve(),
        'service_unavailable',
      );
      assert.equal(signIn.message, 'PREDICTFUN_API_KEY not configured');
      assert.equal((await keyless.ping(ctx(), null)).reachable, false);
    } finally {
      await keyless.close?.();
    }
  });
});

describe('predictfun: capabilities', () => {
  test('order entry, no price history; every flag matches a facet method', () => {
    const { has } = adapter.descriptor;
    for (const flag of ['create_order', 'cancel_order', 'fetch_order_history', 'fetch_fills'] as const) {
      assert.equal(has[flag], 'supported', flag);
    }
    assert.equal(has.fetch_price_history, 'unsupported');
    assert.equal(typeof adapter.trading.createOrder, 'function');
    assert.equal(typeof adapter.trading.lookupOrder, 'function');
    assert.equal(typeof adapter.trading.cancelOrder, 'function');
    assert.equal(adapter.marketData.fetchPriceHistory, undefined);
    assert.equal(adapter.trading.openUserStream, undefined);
    assert.equal(has.fetch_positions, 'supported');

    assert.equal(has.websocket, 'polling');
    assert.deepEqual(Object.keys(has).sort(), [...CAPABILITIES].sort());
    assert.doesNotThrow(() => new VenueRegistry([adapter]));
  });
});

describe('predictfun: accounts', () => {
  test('an EOA paper wallet: balance is its USDT balanceOf in wei, fund moves it, positions are read by JWT', async () => {
    const ids = markets.slice(0, 2).map((m) => Number(m.exchange_market_id));
    const account = (await control('accounts', {
      positions: [
        { market_id: ids[0], outcome: 'Yes', shares: 12.5, average_price: 0.4 },
        { market_id: ids[1], outcome: 'No', shares: 3, average_price: 0.7 },
      ],
    })) as { credentials: Record<string, string>; address: string };
    const s = session(account.credentials);
    const trading = adapter.trading;
    assert.ok(trading.fetchBalance && trading.fetchPositions);
    const balance = await trading.fetchBalance(ctx(), s);
    assert.deepEqual(balance.raw, {
      balance: (1_000n * 10n ** 18n).toString(),
      decimals: 18,
      token: 'USDT',
      token_address: sim.collateralToken,
      chain_id: 56,
      address: account.address,
    });
    await control('fund', { address: account.address, amount: '250000000000000000' });
    assert.equal(
      (await trading.fetchBalance(ctx(), s)).raw.balance,
      (1_000n * 10n ** 18n + 25n * 10n ** 16n).toString(),
    );
    const positions = await trading.fetchPositions(ctx(), s, null);
    assert.deepEqual(
      positions.map((p) => [p.market_id, p.outcome, p.size, p.average_price]),
      [
        [String(ids[0]), 'Yes', 12.5, 0.4],
        [String(ids[1]), 'No', 3, 0.7],
      ],
    );
    for (const p of positions)
      assert.ok(p.current_price !== null && p.current_price > 0 && p.current_price < 1);
    const one = await trading.fetchPositions(ctx(), s, String(ids[1]));
    assert.deepEqual(
      one.map((p) => p.market_id),
      [String(ids[1])],
    );
  });

  test('a Predict account: the owner key signs in for the account, whose address holds the funds', async () => {
    const account = (await control('accounts', {
      predict_account: true,
      balance: '7000000000000000000',
    })) as {
      credentials: Record<string, string>;
      address: string;
    };
    assert.equal(account.address, account.credentials.predict_account);
    const balance = await adapter.trading.fetchBalance?.(ctx(), session(account.credentials));
    assert.equal(balance?.raw.balance, '7000000000000000000');
    assert.equal(balance?.raw.address, account.address);
    const ping = await adapter.ping(ctx(), session(account.credentials));
    assert.deepEqual([ping.authenticated, ping.message], [true, `authenticated as ${account.address}`]);
    // Another wallet's key cannot sign for the account: the venue refuses the signature.
    const stranger = (await control('accounts', {})) as { credentials: Record<string, string> };
    const forged = session({
      private_key: stranger.credentials.private_key as string,
      predict_account: account.address,
    });
    await rejectsWith(
      adapter.trading.fetchBalance?.(ctx(), forged) ?? Promise.resolve(),
      'authentication_failed',
    );
  });

  test('a bare JWT works until it expires (24 h on the venue clock); a JWT the venue never issued is refused', async () => {
    const account = (await control('accounts', {})) as {
      credentials: Record<string, string>;
      address: string;
    };
    const jwt = await jwtFor(account.credentials.private_key as `0x${string}`);
    const s = session({ jwt });
    const balance = await adapter.trading.fetchBalance?.(ctx(), s);
    assert.equal(balance?.raw.address, account.address, 'the address comes from GET /v1/account');
    assert.deepEqual(await adapter.trading.fetchPositions?.(ctx(), s, null), []);
    await control('clock', { advance_seconds: 86_401 });
    const expired = await rejectsWith(
      adapter.trading.fetchPositions?.(ctx(), s, null) ?? Promise.resolve(),
      'authentication_failed',
    );
    assert.match(expired.message, /predictfun rejected the credentials/);
    assert.ok(!expired.message.includes(jwt), 'the token never appears in an error');
    const [h, p] = jwt.split('.');
    await rejectsWith(
      adapter.trading.fetchBalance?.(ctx(), session({ jwt: `${h}.${p}.forged` })) ?? Promise.resolve(),
      'authentication_failed',
    );
  });
});

describe('predictfun: one sign-in per signer', () => {
  const newAccount = async (body: Record<string, unknown> = {}) =>
    (await control('accounts', body)) as { credentials: Record<string, string>; address: string };

  test('N private calls with a wallet key sign in once; the JWT is reused for every one of them', async () => {
    const account = await newAccount({
      positions: [
        { market_id: Number(markets[0]?.exchange_market_id), outcome: 'Yes', shares: 2, average_price: 0.5 },
      ],
    });
    await clearRequests();
    const s = session(account.credentials);
    for (let i = 0; i < 3; i++) {
      assert.equal((await adapter.trading.fetchPositions?.(ctx(), s, null))?.length, 1);
      assert.equal((await adapter.trading.fetchBalance?.(ctx(), s))?.raw.address, account.address);
    }
    assert.equal((await adapter.ping(ctx(), s)).authenticated, true);
    assert.deepEqual(await signIns(), { messages: 1, tokens: 1 });
    const counts = await requests();
    assert.equal(counts.get('GET /v1/positions'), 3, 'every positions call reached the venue with the JWT');
  });

  test('concurrent calls of one signer share a single sign-in; a Predict account is its own signer', async () => {
    const eoa = await newAccount();
    const smart = await newAccount({ predict_account: true });
    await clearRequests();
    const calls = [eoa, smart].flatMap((a) =>
      Array.from({ length: 4 }, () => adapter.trading.fetchPositions?.(ctx(), session(a.credentials), null)),
    );
    await Promise.all(calls);
    assert.deepEqual(await signIns(), { messages: 2, tokens: 2 });
  });

  test('a JWT the venue no longer accepts (expired on its clock) costs exactly one new sign-in', async () => {
    const account = await newAccount();
    const s = session(account.credentials);
    await adapter.trading.fetchPositions?.(ctx(), s, null);
    await clearRequests();
    await control('clock', { advance_seconds: 86_401 });
    assert.deepEqual(await adapter.trading.fetchPositions?.(ctx(), s, null), []);
    assert.deepEqual(await adapter.trading.fetchPositions?.(ctx(), s, null), []);
    assert.deepEqual(await signIns(), { messages: 1, tokens: 1 });
    const counts = await requests();
    assert.equal(counts.get('GET /v1/positions'), 3, 'refused once with the old JWT, then twice accepted');
  });

  test('a venue that keeps refusing the JWT gets one new sign-in, then the caller gets authentication_failed', async () => {
    const account = await newAccount();
    const s = session(account.credentials);
    await adapter.trading.fetchPositions?.(ctx(), s, null);
    await clearRequests();
    await control('faults', { error_rate: 1, error_status: 401, only: ['GET /v1/positions'] });
    try {
      await rejectsWith(
        adapter.trading.fetchPositions?.(ctx(), s, null) ?? Promise.resolve(),
        'authentication_failed',
      );
    } finally {
      assert.ok((await fetch(`${sim.control}/__sim/faults`, { method: 'DELETE' })).ok);
    }
    assert.deepEqual(await signIns(), { messages: 1, tokens: 1 });
    assert.equal((await requests()).get('GET /v1/positions'), 2);
  });

  test('a JWT the caller brought is never replaced by a sign-in', async () => {
    const account = await newAccount();
    const jwt = await jwtFor(account.credentials.private_key as `0x${string}`);
    await clearRequests();
    await control('clock', { advance_seconds: 86_401 });
    await rejectsWith(
      adapter.trading.fetchPositions?.(ctx(), session({ jwt }), null) ?? Promise.resolve(),
      'authentication_failed',
    );
    assert.deepEqual(await signIns(), { messages: 0, tokens: 0 });
  });

  test('a JWT issued for less than the refresh margin is used for its call but not kept', async () => {
    const shortLived = await startPredictfunSim({ seed: 21, size: 5, jwtLifetimeSeconds: 120 });
    const short = createPredictfunAdapter({
      ...options,
      restUrl: shortLived.url,
      rpcUrl: shortLived.rpcUrl,
      apiKey: shortLived.apiKey,
    });
    try {
      const account = await shortLived.createAccount();
      const s = session(account.credentials);
      assert.deepEqual(await short.trading.fetchPositions?.(ctx(), s, null), []);
      assert.deepEqual(await short.trading.fetchPositions?.(ctx(), s, null), []);
      const res = await fetch(`${shortLived.control}/__sim/requests`);
      const counts = new Map(
        Object.entries(((await res.json()) as { counts: Record<string, number> }).counts),
      );
      assert.equal(
        counts.get('POST /v1/auth'),
        2,
        'each call signed in: the token would lapse within 5 minutes',
      );
      assert.equal(counts.get('GET /v1/positions'), 2, 'and no call was refused');
    } finally {
      await short.close?.();
      await shortLived.close();
    }
  });
});

describe('predictfun: market data', () => {
  test('books answer to the outcome names and to yes/no; unknown markets are market_not_found', async () => {
    const market = markets[0] as Market;
    const yes = await adapter.marketData.fetchOrderBook?.(ctx(), market, 'yes');
    const no = await adapter.marketData.fetchOrderBook?.(ctx(), market, 'NO');
    assert.ok(yes && no);
    assert.deepEqual(
      no.bids.map(([p, s]) => [Number((1 - p).toFixed(9)), s]),
      yes.asks,
    );
    assert.notEqual(yes.token_id, no.token_id);
    const ghost: Market = { ...market, exchange_market_id: '999999999', svc_id: 'predictfun:999999999' };
    await rejectsWith(
      adapter.marketData.fetchOrderBook?.(ctx(), ghost, 'Yes') ?? Promise.resolve(),
      'market_not_found',
    );
  });

  test('wallet activity by address returns the venue documents under stable keys; a bad address is a 400', async () => {
    await control('advance', { steps: 3 });
    const page = await adapter.marketData.fetchTrades?.(ctx(), markets[0] as Market, 'Yes', {
      limit: 5,
      startTs: null,
      endTs: null,
      cursor: null,
    });
    const trader = page?.trades[0]?.taker_address;
    assert.ok(trader, 'the tape has a taker');
    const doc = (await adapter.marketData.fetchUserActivity?.(ctx(), trader, 10)) as {
      positions: unknown[];
      matches: Array<Record<string, unknown>>;
    };
    assert.deepEqual(Object.keys(doc), ['positions', 'matches']);
    assert.ok(doc.matches.length > 0 && doc.matches.length <= 10);
    assert.ok('settlementId' in (doc.matches[0] as object) && 'taker' in (doc.matches[0] as object));
    await rejectsWith(
      adapter.marketData.fetchUserActivity?.(ctx(), 'not-an-address', 10) ?? Promise.resolve(),
      'validation_error',
    );
  });

  test("wallet activity (/v1/orders/matches?signerAddress=) is a wallet's settled matches, oldest first, named by settlementId", async () => {
    const fetchActivity = adapter.marketData.fetchWalletActivity;
    assert.ok(fetchActivity);
    const read = (address: string, sinceMs: number, max = 500) =>
      fetchActivity.call(adapter.marketData, ctx(), address, { sinceMs, max });

    // A paper wallet that trades on the exchange itself.
    const { address } = (await control('accounts', {})) as { address: string };
    assert.deepEqual(await read(address, 0), [], 'no match yet');
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push(((await control('trade', { address })) as { settlementId: string }).settlementId);
    }
    const mine = await read(address, 0);
    assert.deepEqual(
      mine.map((i) => i.id),
      made,
    );
    for (const item of mine) {
      assert.equal(item.id, item.raw.settlementId);
      assert.equal((item.raw.taker as { signer: string }).signer.toLowerCase(), address.toLowerCase());
      assert.equal(item.timestamp_ms, Date.parse(item.raw.executedAt as string));
    }
    assert.deepEqual(
      (await read(address, 0, 2)).map((i) => i.id),
      made.slice(0, 2),
    );

    // A busy tape wallet: more than one page of 100 matches, and a read that stops at the first older match.
    await control('advance', { steps: 60 });
    const page = await adapter.marketData.fetchTrades?.(ctx(), markets[0] as Market, 'Yes', {
      limit: 1,
      startTs: null,
      endTs: null,
      cursor: null,
    });
    const trader = page?.trades[0]?.taker_address;
    assert.ok(trader);
    const clock = (await control('clock', { advance_seconds: 60 })) as { now_ms: number };
    await control('advance', { steps: 2 });
    const all = await read(trader, 0);
    assert.ok(all.length > 100, `${all.length} matches: more than one page`);
    assert.equal(new Set(all.map((i) => i.id)).size, all.length, 'ids are unique');
    assert.deepEqual(
      all.map((i) => i.timestamp_ms),
      [...all.map((i) => i.timestamp_ms)].sort((a, b) => a - b),
    );
    await clearRequests();
    const recent = await read(trader, clock.now_ms);
    assert.ok(recent.length > 0, 'the last two steps have matches of this wallet');
    assert.deepEqual(
      recent.map((i) => i.id),
      all.filter((i) => i.timestamp_ms >= clock.now_ms).map((i) => i.id),
      'from the asked instant on, with the same ids',
    );
    assert.equal((await requests()).get('GET /v1/orders/matches'), 1, 'one page: it reached older matches');
    await rejectsWith(read('not-an-address', 0), 'validation_error');
  });

  test('the polled stream keeps a local copy of the NO book equal to REST across advances', async () => {
    const market = markets[1] as Market;
    const open = adapter.marketData.openMarketStream;
    assert.ok(open);
    const stream = open({ signal: new AbortController().signal, logger: silentLogger });
    let local: { bids: BookLevel[]; asks: BookLevel[] } | null = null;
    const reading = (async () => {
      for await (const e of stream) {
        if (e.type === 'book_snapshot') local = { bids: e.book.bids, asks: e.book.asks };
        else if (e.type === 'book_delta' && local) {
          local = {
            bids: applyBookChanges(local.bids, e.changes, 'bid'),
            asks: applyBookChanges(local.asks, e.changes, 'ask'),
          };
        }
      }
    })();
    try {
      stream.subscribe([{ market, outcome: 'No' }]);
      for (let round = 0; round < 2; round++) {
        await control('advance', { steps: 1 });
        const rest = await adapter.marketData.fetchOrderBook?.(ctx(), market, 'No');
        await waitFor(
          async () =>
            JSON.stringify(local) === JSON.stringify({ bids: rest?.bids, asks: rest?.asks })
              ? true
              : undefined,
          10_000,
          'the polled NO book to match REST',
        );
      }
    } finally {
      await stream.close();
      await reading;
    }
  });
});
