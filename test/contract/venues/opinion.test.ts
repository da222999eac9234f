// Opinion-specific contract cases, adapter against simulator over loopback: data only (no order path at all),
// GET /exchanges equal to the README's capability row, a wallet's positions, trades and balance, categorical
// children grouped under their parent, and public data under the operator's key only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type OpinionSim, startOpinionSim } from '../../../sim/opinion/index.js';
import type { Candle } from '../../../src/domain/book.js';
import { intervalPeriod, rollUpSeries } from '../../../src/domain/candles.js';
import type { Market, MarketEvent, Page } from '../../../src/domain/market.js';
import { sessionFrom } from '../../../src/vault/per-request-credentials.js';
import { createOpinionAdapter } from '../../../src/venues/opinion/index.js';
import type { HistoryQuery, VenueAdapter, VenueContext, VenueSession } from '../../../src/venues/port.js';
import { allMarkets, rejectsWith, silentLogger, type VenueUnderTest } from './harness.js';
import { assertMarket, assertPosition } from './invariants.js';

const ctx = (): VenueContext => ({
  signal: AbortSignal.timeout(10_000),
  requestId: 'opinion-contract',
  logger: silentLogger,
  tenant: null,
});

describe('opinion: venue specifics', () => {
  let sim: OpinionSim;
  let adapter: VenueAdapter;
  const session = (apiKey: string): VenueSession =>
    sessionFrom({ api_key: apiKey }, 'opinion', adapter.descriptor.credentials, 'per_request');
  const build = () =>
    createOpinionAdapter({ restUrl: sim.url, apiKey: sim.apiKey, pollIntervalMs: 500, timeoutMs: 3_000 });

  before(async () => {
    sim = await startOpinionSim({ seed: 21, size: 60 });
    adapter = build();
  });
  after(async () => {
    await adapter?.close?.();
    await sim?.close();
  });

  test('trading: the order methods exist exactly as the flags declare; gtc and gtd only', () => {
    const { trading, descriptor } = adapter;
    for (const method of [
      'createOrder',
      'lookupOrder',
      'cancelOrder',
      'getOrder',
      'listOpenOrders',
      'fetchOrderHistory',
      'fetchFills',
    ]) {
      assert.equal(typeof (trading as Record<string, unknown>)[method], 'function', method);
    }
    for (const flag of ['create_order', 'cancel_order', 'fetch_order_history', 'fetch_fills'] as const) {
      assert.equal(descriptor.has[flag], 'supported', flag);
    }
    assert.deepEqual(descriptor.features.orderTypes, ['gtc', 'gtd']);
    assert.equal(descriptor.has.fetch_price_history, 'supported');
    assert.equal(descriptor.has.websocket, 'polling');
    assert.deepEqual(
      descriptor.credentials.map((c) => [c.name, c.required, c.secret]),
      [
        ['api_key', true, true],
        ['private_key', false, true],
        ['multisig_address', false, false],
      ],
    );
  });

  test("positions, balance and identity are the key's wallet's; wallet activity is Opinion's own documents", async () => {
    const { credentials, address } = await sim.createAccount({ positions: 3 });
    const mine = session(credentials.api_key);
    const positions = await adapter.trading.fetchPositions?.(ctx(), mine, null);
    assert.ok(positions);
    assert.equal(positions.length, 3);
    for (const p of positions) {
      assertPosition(p);
      assert.ok(p.current_price !== null && p.average_price !== null);
      assert.ok(p.outcome === 'Yes' || p.outcome === 'No');
    }
    const one = positions[0]?.market_id as string;
    assert.deepEqual(
      (await adapter.trading.fetchPositions?.(ctx(), mine, one))?.map((p) => p.market_id),
      [one],
    );
    assert.deepEqual(await adapter.trading.fetchPositions?.(ctx(), mine, 'not-an-id'), []);

    const balance = await adapter.trading.fetchBalance?.(ctx(), mine);
    const raw = balance?.raw as { walletAddress: string; balances: Array<{ totalBalance: string }> };
    assert.equal(raw.walletAddress, address);
    assert.equal(raw.balances[0]?.totalBalance, '10000');

    const activity = (await adapter.marketData.fetchUserActivity?.(ctx(), address, 2)) as {
      positions: { total: number; list: Array<{ marketId: number }> };
      trades: { total: number; list: Array<{ side: string }> };
    };
    assert.deepEqual(Object.keys(activity).sort(), ['positions', 'trades']);
    assert.equal(activity.positions.total, 3, "the venue's own total");
    assert.equal(activity.positions.list.length, 2, 'the limit is applied');
    assert.equal(activity.trades.list[0]?.side, 'Buy');

    const ping = await adapter.ping(ctx(), mine);
    assert.deepEqual(ping, { reachable: true, authenticated: true, message: `authenticated as ${address}` });
    const stranger = session('0123456789abcdef0123456789abcdef');
    await rejectsWith(
      adapter.trading.fetchBalance?.(ctx(), stranger) as Promise<unknown>,
      'authentication_failed',
    );
    await rejectsWith(
      adapter.trading.fetchPositions?.(ctx(), stranger, null) as Promise<unknown>,
      'authentication_failed',
    );
    assert.equal((await adapter.ping(ctx(), stranger)).authenticated, false);
  });

  test('wallet activity (/trade/user) is oldest first across pages, named by tradeNo, from the asked instant on', async () => {
    const fetchActivity = adapter.marketData.fetchWalletActivity;
    assert.ok(fetchActivity);
    const read = (address: string, sinceMs: number, max = 500) =>
      fetchActivity.call(adapter.marketData, ctx(), address, { sinceMs, max });
    const { address } = await sim.createAccount({ positions: 3 });
    const seeded = await read(address, 0);
    assert.equal(seeded.length, 3, 'the buys behind the seeded positions');
    // 25 more trades: two pages of 20 when read newest first.
    const made: string[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await fetch(`${sim.control}/__sim/trade`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address }),
      });
      assert.equal(res.status, 201);
      made.push(((await res.json()) as { tradeNo: string }).tradeNo);
    }
    const all = await read(address, 0);
    assert.equal(all.length, 28);
    assert.deepEqual(
      all.map((i) => i.id),
      [...seeded.map((i) => i.id), ...made],
      "Opinion's trade numbers, oldest first (later of one second after the earlier)",
    );
    for (const item of all) {
      assert.equal(item.id, item.raw.tradeNo);
      assert.equal(item.timestamp_ms, (item.raw.createdAt as number) * 1000, 'createdAt counts seconds');
    }
    const second = seeded[1]?.timestamp_ms as number;
    assert.deepEqual(
      (await read(address, second)).map((i) => i.id),
      all.filter((i) => i.timestamp_ms >= second).map((i) => i.id),
      'from the asked instant on, inclusive, with the same ids',
    );
    // The 25 trades may straddle a second boundary on a busy machine, so the last second holds a suffix of them
    // (at least the newest), not necessarily all.
    const newest = all.at(-1)?.timestamp_ms as number;
    const lastSecond = all.filter((i) => i.timestamp_ms >= newest).map((i) => i.id);
    assert.ok(lastSecond.length >= 1 && made.slice(-lastSecond.length).join() === lastSecond.join());
    assert.deepEqual(
      (await read(address, newest)).map((i) => i.id),
      lastSecond,
      'only the last second',
    );
    assert.deepEqual(
      (await read(address, 0, 2)).map((i) => i.id),
      all.slice(0, 2).map((i) => i.id),
    );
    assert.deepEqual(
      await read('0x000000000000000000000000000000000000dEaD', 0),
      [],
      'a wallet that never traded',
    );
    await rejectsWith(read('0x12', 0), 'validation_error');
  });

  test('a categorical child is grouped under its parent once a catalogue page showed it; the parent is an event', async () => {
    const fresh = build();
    try {
      const manifest = (await (await fetch(`${sim.control}/__sim/manifest`)).json()) as Record<
        string,
        string[]
      >;
      const childKey = Object.keys(manifest).find((k) => k.includes('/')) as string;
      const childId = manifest[childKey]?.[0] as string;
      const before = (await fresh.catalog.fetchMarket?.(ctx(), childId)) as Market;
      assertMarket(before, 'opinion');
      assert.equal(before.exchange_group_id, childId, 'no parent known yet: grouped under itself');

      const walked = await allMarkets({ adapter: fresh, ctx } as unknown as VenueUnderTest);
      const listed = walked.find((m) => m.exchange_market_id === childId) as Market;
      assert.notEqual(listed.exchange_group_id, childId);
      assert.ok(listed.question.startsWith(listed.group_title));
      const after = (await fresh.catalog.fetchMarket?.(ctx(), childId)) as Market;
      assert.equal(after.exchange_group_id, listed.exchange_group_id);
      assert.equal(after.question, listed.question);
      assert.equal(
        await fresh.catalog.fetchMarket?.(ctx(), listed.exchange_group_id),
        null,
        'a parent is no market',
      );
      const siblings = walked.filter((m) => m.exchange_group_id === listed.exchange_group_id);
      assert.equal(
        siblings.length,
        Object.keys(manifest).filter((k) => k.startsWith(`${childKey.split('/')[0]}/`)).length,
      );
    } finally {
      await fresh.close?.();
    }
  });

  const fetchHistory = async (market: Market, query: HistoryQuery): Promise<Candle[]> => {
    const series = await adapter.marketData.fetchPriceHistory?.(ctx(), market, 'Yes', query);
    assert.ok(series && query.interval !== 'max');
    return rollUpSeries(series, intervalPeriod(query.interval));
  };

  test('candles: hourly points roll up into 6h candles with the right open, close and high', async () => {
    const market = (await allMarkets({ adapter, ctx } as unknown as VenueUnderTest)).find(
      (m) => m.status === 'active',
    );
    assert.ok(market);
    const endTs = Math.floor(Date.now() / 1000);
    const hourly: Candle[] = await fetchHistory(market, {
      interval: '1h',
      startTs: endTs - 2 * 86_400,
      endTs,
    });
    const sixHourly: Candle[] = await fetchHistory(market, {
      interval: '6h',
      startTs: endTs - 2 * 86_400,
      endTs,
    });
    assert.ok(hourly.length >= 47 && sixHourly.length >= 8 && sixHourly.length <= 9);
    for (const c of sixHourly) {
      const inside = hourly.filter((h) => {
        const t = Date.parse(h.timestamp);
        return t >= Date.parse(c.timestamp) && t < Date.parse(c.timestamp) + 6 * 3_600_000;
      });
      assert.equal(c.open, inside[0]?.open);
      assert.equal(c.close, inside.at(-1)?.close);
      assert.equal(c.high, Math.max(...inside.map((h) => h.high)));
      assert.equal(c.volume, null, 'Opinion publishes prices without traded size');
    }
  });

  test('public data never goes out under a user key: without the operator key it is 503, user data still works', async () => {
    const keyless = createOpinionAdapter({
      restUrl: sim.url,
      apiKey: undefined,
      pollIntervalMs: 500,
      timeoutMs: 3_000,
    });
    try {
      const error = await rejectsWith(
        keyless.catalog.fetchMarketsPage?.(ctx(), null) as Promise<unknown>,
        'service_unavailable',
      );
      assert.equal(error.message, 'OPINION_API_KEY not configured');
      const { credentials } = await sim.createAccount();
      const balance = await keyless.trading.fetchBalance?.(ctx(), session(credentials.api_key));
      assert.ok(balance && Array.isArray(balance.raw.balances));
    } finally {
      await keyless.close?.();
    }
  });
});

// What GET /market's `marketType` number means is contested (docs/venues/opinion.md); the catalogue walk must list
// every binary and every categorical market whichever reading the venue has.
describe('opinion: the catalogue walk lists every market whatever marketType means', () => {
  for (const reading of ['sdk', 'openapi'] as const) {
    test(`marketType read as the ${reading} says: every binary and categorical market, each once`, async () => {
      const sim = await startOpinionSim({ seed: 34, size: 90, marketTypeReading: reading });
      const adapter = createOpinionAdapter({
        restUrl: sim.url,
        apiKey: sim.apiKey,
        pollIntervalMs: 500,
        timeoutMs: 3_000,
      });
      try {
        const manifest = (await (await fetch(`${sim.control}/__sim/manifest`)).json()) as Record<
          string,
          string[]
        >;
        const entries = Object.entries(manifest);
        const binary = entries.filter(([k]) => !k.includes('/')).flatMap(([, ids]) => ids);
        const children = entries.filter(([k]) => k.includes('/')).flatMap(([, ids]) => ids);
        assert.ok(binary.length > 0 && children.length > 0, 'the world has both kinds');

        const markets = await allMarkets({ adapter, ctx } as unknown as VenueUnderTest);
        const listed = markets.map((m) => m.exchange_market_id);
        assert.equal(new Set(listed).size, listed.length, 'no market twice');
        assert.deepEqual([...listed].sort(), [...binary, ...children].sort());
        const byId = new Map(markets.map((m) => [m.exchange_market_id, m]));
        for (const id of children) assert.notEqual(byId.get(id)?.exchange_group_id, id, `${id} has a parent`);
        for (const id of binary) assert.equal(byId.get(id)?.exchange_group_id, id, `${id} stands alone`);

        const events: string[] = [];
        let cursor: string | null = null;
        for (let i = 0; i < 1_000; i++) {
          const page: Page<MarketEvent> | undefined = await adapter.catalog.fetchEventsPage?.(ctx(), cursor);
          assert.ok(page);
          events.push(...page.items.map((e) => e.exchange_group_id));
          cursor = page.cursor;
          if (cursor === null) break;
        }
        assert.equal(new Set(events).size, events.length, 'no event twice');
        assert.deepEqual(events.sort(), [...new Set(markets.map((m) => m.exchange_group_id))].sort());

        // A cursor saved by the single walk of before (a bare page number) resumes the binary walk.
        const first = await adapter.catalog.fetchMarketsPage?.(ctx(), null);
        const legacy = await adapter.catalog.fetchMarketsPage?.(ctx(), '1');
        assert.deepEqual(legacy, first);
        await rejectsWith(
          adapter.catalog.fetchMarketsPage?.(ctx(), 'x1') as Promise<unknown>,
          'validation_error',
        );
      } finally {
        await adapter.close?.();
        await sim.close();
      }
    });
  }
});
