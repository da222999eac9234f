import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/errors/app-error.js';
import { CAPABILITIES, type StreamContext, type VenueAdapter } from '../../../src/venues/port.js';
import { RegistryError, VenueRegistry } from '../../../src/venues/registry.js';
import { mapVenueError, VenuePayloadError } from '../../../src/venues/shared/venue-errors.js';
import { silentLogger } from '../../contract/venues/harness.js';
import { descriptorFor } from '../../support/loopback-venue.js';

const noPing: VenueAdapter['ping'] = async () => ({ reachable: true, authenticated: false, message: 'ok' });

test('a declared capability without its facet method refuses to start', () => {
  const venue: VenueAdapter = {
    descriptor: descriptorFor('kalshi', { fetch_orderbook: 'supported' }),
    catalog: {},
    marketData: {},
    trading: {},
    ping: noPing,
  };
  assert.throws(
    () => new VenueRegistry([venue]),
    (e: Error) => e instanceof RegistryError && /fetch_orderbook is declared/.test(e.message),
  );
});

test('a facet method whose capability is not declared refuses to start', () => {
  const venue: VenueAdapter = {
    descriptor: descriptorFor('kalshi'),
    catalog: {},
    marketData: {},
    trading: { cancelOrder: async () => Promise.reject(new Error('unused')) },
    ping: noPing,
  };
  assert.throws(() => new VenueRegistry([venue]), /cancel_order is not declared/);
});

test('polling counts as declared, duplicates are refused, and consistent venues register', () => {
  const ok: VenueAdapter = {
    descriptor: descriptorFor('opinion', { fetch_positions: 'polling' }),
    catalog: {},
    marketData: {},
    trading: { fetchPositions: async () => [] },
    ping: noPing,
  };
  const registry = new VenueRegistry([ok]);
  assert.equal(registry.get('opinion'), ok);
  assert.throws(() => new VenueRegistry([ok, ok]), /registered twice/);
  // The wire contract's sixteen flags, fetch_execution_price and fetch_arbitrage (docs/architecture.md, Decisions).
  assert.equal(CAPABILITIES.length, 18);
});

test('fetch_arbitrage without a taker fee model, or a fee model without fee schedules, refuses to start', () => {
  const books = {
    fetchOrderBook: async () => Promise.reject(new Error('unused')),
    fetchFeeSchedule: async () => Promise.reject(new Error('unused')),
  };
  const arbitrage = descriptorFor('kalshi', {
    fetch_orderbook: 'supported',
    fetch_execution_price: 'supported',
    fetch_arbitrage: 'supported',
  });
  const venue = (descriptor: VenueAdapter['descriptor'], marketData: VenueAdapter['marketData']) => ({
    descriptor,
    catalog: {},
    marketData,
    trading: {},
    ping: noPing,
  });
  assert.throws(() => new VenueRegistry([venue(arbitrage, books)]), /fetch_arbitrage needs a takerFeeModel/);
  const modelled = {
    ...arbitrage,
    features: { ...arbitrage.features, takerFeeModel: 'kalshi_fee_multiplier' as const },
  };
  assert.equal(new VenueRegistry([venue(modelled, books)]).get('kalshi')?.descriptor, modelled);
  const noSchedule = { ...descriptorFor('kalshi'), features: modelled.features };
  assert.throws(
    () => new VenueRegistry([venue(noSchedule, {})]),
    /takerFeeModel kalshi_fee_multiplier needs fetch_execution_price/,
  );
});

test('with circuits, every request-shaped facet method passes its venue breaker; streams and ping do not', async () => {
  let now = 0;
  let calls = 0;
  let failing = true;
  class MarketData {
    // A class facet: its methods live on the prototype, and `this` must still be the facet.
    private readonly status = 'x';
    async fetchOrderBook() {
      calls += 1;
      if (failing) throw new AppError('service_unavailable', 'kalshi answered 502');
      return this.status;
    }
    openMarketStream() {
      return 'stream';
    }
  }
  const venue = {
    descriptor: descriptorFor('kalshi', { fetch_orderbook: 'supported', websocket: 'supported' }),
    catalog: {},
    marketData: new MarketData(),
    trading: {},
    ping: noPing,
  } as unknown as VenueAdapter;
  const registry = new VenueRegistry([venue], {
    policy: { failureThreshold: 2, openMs: 5_000 },
    now: () => now,
  });
  const guarded = registry.get('kalshi');
  const fetchOrderBook = guarded?.marketData.fetchOrderBook;
  assert.ok(guarded && fetchOrderBook);
  const ctx = { signal: new AbortController().signal } as never;
  const read = (): Promise<unknown> => fetchOrderBook(ctx, {} as never, 'Yes');
  await assert.rejects(read(), /answered 502/);
  // A 4xx is the venue answering: it resets the count.
  failing = false;
  assert.equal(await read(), 'x');
  failing = true;
  await assert.rejects(read(), /answered 502/);
  await assert.rejects(read(), /answered 502/);
  const [circuit] = registry.circuits();
  assert.equal(circuit?.breaker.state, 'open');
  const refused: AppError = await read().then(
    () => assert.fail('an open circuit must refuse'),
    (e: unknown) => e as AppError,
  );
  assert.equal(refused.code, 'service_unavailable');
  assert.equal(refused.retryable, true);
  assert.deepEqual(refused.headers, { 'retry-after': '5' });
  assert.match(refused.message, /circuit open.*last: kalshi answered 502/);
  assert.equal(calls, 4, 'the refused call never reached the adapter');
  assert.equal(guarded.marketData.openMarketStream?.({} as never), 'stream');
  assert.equal((await guarded.ping(ctx, null)).reachable, true);
  now += 5_000;
  failing = false;
  assert.equal(await read(), 'x');
  assert.equal(circuit?.breaker.state, 'closed');
});

test('a caller that went away leaves the breaker as it was; its deadline counts', async () => {
  const venue: VenueAdapter = {
    descriptor: descriptorFor('opinion', { fetch_orderbook: 'supported' }),
    catalog: {},
    marketData: {
      fetchOrderBook: async () => Promise.reject(new AppError('service_unavailable', 'gone')),
    },
    trading: {},
    ping: noPing,
  };
  const registry = new VenueRegistry([venue], { policy: { failureThreshold: 1, openMs: 5_000 } });
  const fetchOrderBook = registry.get('opinion')?.marketData.fetchOrderBook;
  assert.ok(fetchOrderBook);
  const gone = new AbortController();
  gone.abort();
  await assert.rejects(fetchOrderBook({ signal: gone.signal } as never, {} as never, 'Yes'));
  assert.equal(registry.circuits()[0]?.breaker.state, 'closed');
  const timedOut = AbortSignal.abort(new DOMException('deadline', 'TimeoutError'));
  await assert.rejects(fetchOrderBook({ signal: timedOut } as never, {} as never, 'Yes'));
  assert.equal(registry.circuits()[0]?.breaker.state, 'open');
});

test("a trading call's failure is remembered by method name only: another customer never reads its message", async () => {
  const venue: VenueAdapter = {
    descriptor: descriptorFor('kalshi', { fetch_balance: 'supported' }),
    catalog: {},
    marketData: {},
    trading: {
      fetchBalance: async () =>
        Promise.reject(new AppError('service_unavailable', 'account 42 of alice: 502')),
    },
    ping: noPing,
  };
  const registry = new VenueRegistry([venue], { policy: { failureThreshold: 1, openMs: 5_000 } });
  const fetchBalance = registry.get('kalshi')?.trading.fetchBalance;
  assert.ok(fetchBalance);
  const ctx = { signal: new AbortController().signal } as never;
  await assert.rejects(fetchBalance(ctx, {} as never), /alice/);
  assert.equal(registry.circuits()[0]?.breaker.lastError, 'fetchBalance failed upstream');
  await assert.rejects(fetchBalance(ctx, {} as never), (e: Error) => !/alice/.test(e.message));
});

test('the drift alarm hears every decoder failure: a request that failed on one, a stream frame that did', async () => {
  let streamCtx: StreamContext | null = null;
  const venue = {
    descriptor: descriptorFor('kalshi', { fetch_orderbook: 'supported', websocket: 'supported' }),
    catalog: {},
    marketData: {
      fetchOrderBook: async () => {
        throw mapVenueError(
          new VenuePayloadError(
            'kalshi',
            'orderbook',
            ['/orderbook/yes/3/0 must be string'],
            ['/orderbook/yes/3/0'],
          ),
          [],
        );
      },
      openMarketStream(ctx: StreamContext) {
        streamCtx = ctx;
        return 'stream';
      },
    },
    trading: {},
    ping: noPing,
  } as unknown as VenueAdapter;
  const registry = new VenueRegistry([venue], { policy: { failureThreshold: 5, openMs: 5_000 } });
  const guarded = registry.get('kalshi');
  const ctx = { signal: new AbortController().signal } as never;
  const refused: AppError = await (
    guarded?.marketData.fetchOrderBook?.(ctx, {} as never, 'Yes') ?? Promise.reject()
  ).then(
    () => assert.fail('a payload that did not decode is never served'),
    (e: unknown) => e as AppError,
  );
  assert.equal(refused.code, 'exchange_format_changed');
  assert.equal(refused.status, 503);
  assert.equal(refused.retryable, true);
  assert.match(refused.message, /kalshi answered orderbook in a format.*\/orderbook\/yes\/3\/0/);
  guarded?.marketData.openMarketStream?.({ signal: new AbortController().signal, logger: silentLogger });
  const sink = (streamCtx as StreamContext | null)?.drift;
  assert.ok(sink, 'the stream was opened with a drift sink');
  sink(new VenuePayloadError('kalshi', 'ws_orderbook_delta', ['/msg/price must be number'], ['/msg/price']));
  sink(new Error('not a payload error: ignored'));
  // A body that was not JSON at all says the venue is failing, not that its format changed.
  sink(new VenuePayloadError('kalshi', 'ws_frame', ['body is not JSON']));
  const counted = registry.drift.counts().map((e) => `${e.operation} ${e.path} ${e.count}`);
  assert.deepEqual(counted.sort(), ['orderbook /orderbook/yes/*/* 1', 'ws_orderbook_delta /msg/price 1']);
  assert.equal(registry.drift.total, 2);
});
