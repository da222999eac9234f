// GET /exchanges is a promise: every exchange × flag is walked through the public API of the real server over
// the five sandbox simulators. A true flag is exercised through the route that serves it and must work; a false
// flag's route must answer 501 not_supported for that exchange. A true flag with no exerciser here fails the
// walk, so turning a flag on means proving it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Candle } from '../../../src/domain/book.js';
import { levelsFromBook, walkBook } from '../../../src/domain/book-walk.js';
import { intervalPeriod, rollUpSeries } from '../../../src/domain/candles.js';
import { CAPABILITIES, type Capability } from '../../../src/domain/capabilities.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import type { VenueSession } from '../../../src/venues/port.js';
import { type CatalogueServer, startCatalogueServer, venueContext } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import { feeModelOf } from '../../support/fee-models.js';
import type { TestRequestInit, TestResponse } from '../../support/server.js';
import { walletWithPositions } from '../../support/wallet-activity.js';
import { WsTestClient } from '../../support/ws-client.js';

let cat: CatalogueServer;
before(async () => {
  // Wallet subscriptions poll the venue: quickly here, so the watch_address walk does not wait out the default.
  // 22 propositions: the 22nd is listed on predictfun and polymarket, so an arbitrage direction there is priced.
  cat = await startCatalogueServer(22, { config: { websocket: { walletPollMs: 200 } } });
});
after(async () => {
  await cat?.stop();
});

type Walker = (exchange: ExchangeId) => Promise<void>;

function request(path: string, init?: TestRequestInit): Promise<TestResponse> {
  return cat.server.request(path, init);
}

function someMarket(exchange: ExchangeId): Market {
  const market = [...cat.markets.values()].find((m) => m.exchange === exchange);
  assert.ok(market, `the ${exchange} simulator lists no market`);
  return market;
}

/** An active market of the exchange whose first outcome has a token (a book to ask for). */
function tradedMarket(exchange: ExchangeId): Market {
  const market = [...cat.markets.values()].find(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes[0]?.token_id !== undefined,
  );
  assert.ok(market, `the ${exchange} simulator lists no active market with a token`);
  return market;
}

/** Moves an exchange's simulator on, so its tape has fresh trades. */
async function advance(exchange: ExchangeId, steps: number): Promise<void> {
  const sim = cat.sims.get(exchange);
  assert.ok(sim);
  const res = await fetch(`${sim.control}/__sim/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ steps }),
  });
  assert.ok(res.ok, `${exchange}: advance answered ${res.status}`);
}

/** How many positions a venue's wallet-activity document lists (each venue has its own shape). */
function positionRows(exchange: ExchangeId, doc: Record<string, unknown>): number {
  switch (exchange) {
    case 'opinion':
      return (doc.positions as { list: unknown[] }).list.length;
    case 'limitless':
      return (doc.positions as { clob: unknown[] }).clob.length;
    default:
      return (doc.positions as unknown[]).length;
  }
}

/** A fresh funded paper account of the exchange, as the X-Exchange-Credentials header carries it. */
async function paperAccount(exchange: ExchangeId): Promise<{ header: string; session: VenueSession }> {
  const sim = cat.sims.get(exchange);
  assert.ok(sim);
  const { credentials } = await sim.createAccount();
  return {
    header: Buffer.from(JSON.stringify(credentials)).toString('base64'),
    session: { exchange, credentials, source: 'per_request' },
  };
}

function withCredentials(header: string, init: TestRequestInit = {}): TestRequestInit {
  return { ...init, headers: { ...init.headers, 'x-exchange-credentials': header } };
}

/** The smallest order value an exchange takes, in USD (predictfun: "order must have a value of at least 0.9 USD"). */
const MIN_ORDER_VALUE: Partial<Record<ExchangeId, number>> = { predictfun: 0.9 };

/** Places an order through POST /orders: a resting buy at the lowest tick, or a buy at the best ask (a fill). */
async function placeOrder(
  exchange: ExchangeId,
  header: string,
  crossing: boolean,
): Promise<{ id: string; status: string }> {
  const market = tradedMarket(exchange);
  const outcome = market.outcomes[0]?.name as string;
  let price = market.tick_size ?? 0.01;
  if (crossing) {
    const book = await request(
      `/api/v1/orderbook?exchange=${exchange}&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=${outcome}`,
    );
    const ask = (book.body as { asks: [number, number][] }).asks[0];
    assert.ok(ask, `${exchange}: no ask to cross`);
    price = ask[0];
  }
  const res = await request(
    `/api/v1/orders?exchange=${exchange}`,
    withCredentials(header, {
      method: 'POST',
      body: {
        market_id: market.exchange_market_id,
        outcome,
        side: 'buy',
        price,
        size: Math.max(5, Math.ceil((MIN_ORDER_VALUE[exchange] ?? 0) / price)),
      },
    }),
  );
  assert.equal(res.status, 200, `${exchange}: ${res.text}`);
  const order = res.body as { id: string; status: string };
  assert.equal(order.status, crossing ? 'filled' : 'open', res.text);
  return order;
}

/** How each capability is proven to work through its public route. */
/** Opens /ws, authenticates with the admin key and returns the client. */
async function wsClient(path = '/ws'): Promise<WsTestClient> {
  const client = await WsTestClient.open(`${cat.server.url.replace(/^http/, 'ws')}${path}`);
  client.send({ type: 'auth', api_key: cat.server.adminKey });
  await client.next((m) => m.type === 'auth_ok');
  return client;
}

/** Contracts to buy on `market`'s outcome so the order is worth at least $2 at its best ask (venue minimums). */
async function worthTwoDollars(market: Market, outcome: string): Promise<number> {
  const book = await request(
    `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}&outcome=${encodeURIComponent(outcome)}`,
  );
  const ask = (book.body as { asks: [number, number][] }).asks[0];
  assert.ok(ask, `${market.svc_id}: no ask`);
  return Math.max(5, Math.ceil(2 / ask[0]));
}

/** Each leg of a routed order or paired execution is an order its exchange holds, as the answer reports it. */
async function legsAtVenue(
  exchange: ExchangeId,
  session: VenueSession,
  legs: Array<{ exchange: string; order: { id: string; filled: number } | null }>,
): Promise<void> {
  assert.ok(legs.length > 0, `${exchange}: no leg`);
  for (const leg of legs) {
    assert.equal(leg.exchange, exchange);
    assert.ok(leg.order, `${exchange}: a leg without its order`);
    const direct = await cat.sims
      .get(exchange)
      ?.adapter.trading.getOrder?.(venueContext(), session, leg.order.id);
    assert.equal(direct?.filled, leg.order.filled, `${exchange}: the exchange holds the leg as reported`);
  }
}

const EXERCISERS = new Map<Capability, Walker>([
  [
    'route_orders',
    async (exchange) => {
      const { session } = await paperAccount(exchange);
      const market = tradedMarket(exchange);
      const outcome = market.outcomes[0]?.name as string;
      const amount = await worthTwoDollars(market, outcome);
      const res = await request('/api/v1/route/orders', {
        method: 'POST',
        headers: { 'idempotency-key': `walk-route-${exchange}` },
        body: {
          svc_id: market.svc_id,
          outcome,
          side: 'buy',
          amount: String(amount),
          exchanges: [exchange],
          max_slippage: '1',
          credentials: { [exchange]: session.credentials },
        },
      });
      assert.equal(res.status, 200, `${exchange}: ${res.text}`);
      const route = res.body as {
        status: string;
        legs: Array<{ exchange: string; order: { id: string; filled: number } | null }>;
      };
      assert.ok(route.status === 'filled' || route.status === 'partially_filled', res.text);
      await legsAtVenue(exchange, session, route.legs);
    },
  ],
  [
    'arbitrage_execute',
    async (exchange) => {
      // Both outcomes of one market: a pair that pays 1, bought at what the books ask (max_cost above it).
      const { session } = await paperAccount(exchange);
      const market = tradedMarket(exchange);
      const [yes, no] = market.outcomes.map((o) => o.name) as [string, string];
      const size = Math.max(await worthTwoDollars(market, yes), await worthTwoDollars(market, no));
      const res = await request('/api/v1/arbitrage/execute', {
        method: 'POST',
        headers: { 'idempotency-key': `walk-arb-${exchange}` },
        body: {
          legs: [
            { svc_id: market.svc_id, outcome: yes },
            { svc_id: market.svc_id, outcome: no },
          ],
          size: String(size),
          max_cost: '2',
          credentials: { [exchange]: session.credentials },
        },
      });
      assert.equal(res.status, 200, `${exchange}: ${res.text}`);
      const execution = res.body as {
        status: string;
        legs: Array<{ exchange: string; role: string; order: { id: string; filled: number } | null }>;
      };
      assert.ok(
        execution.legs.some((l) => l.role === 'second'),
        res.text,
      );
      await legsAtVenue(exchange, session, execution.legs);
    },
  ],
  [
    'create_order',
    async (exchange) => {
      const { header, session } = await paperAccount(exchange);
      const order = await placeOrder(exchange, header, false);
      const direct = await cat.sims
        .get(exchange)
        ?.adapter.trading.getOrder?.(venueContext(), session, order.id);
      assert.equal(direct?.status, 'open', `${exchange}: the exchange holds the order`);
    },
  ],
  [
    'cancel_order',
    async (exchange) => {
      const { header, session } = await paperAccount(exchange);
      const order = await placeOrder(exchange, header, false);
      const res = await request(
        `/api/v1/orders/${order.id}?exchange=${exchange}`,
        withCredentials(header, { method: 'DELETE' }),
      );
      assert.equal(res.status, 200, res.text);
      assert.equal((res.body as { status: string }).status, 'cancelled');
      const open = await cat.sims
        .get(exchange)
        ?.adapter.trading.listOpenOrders?.(venueContext(), session, null);
      assert.ok(open && !open.some((o) => o.id === order.id), `${exchange}: the order still rests`);
    },
  ],
  [
    'fetch_order_history',
    async (exchange) => {
      const { header } = await paperAccount(exchange);
      const order = await placeOrder(exchange, header, true);
      const res = await request(`/api/v1/orders?exchange=${exchange}&status=closed`, withCredentials(header));
      assert.equal(res.status, 200, res.text);
      assert.ok(
        (res.body as Array<{ id: string; status: string }>).some(
          (o) => o.id === order.id && o.status === 'filled',
        ),
      );
    },
  ],
  [
    'fetch_fills',
    async (exchange) => {
      const { header, session } = await paperAccount(exchange);
      const order = await placeOrder(exchange, header, true);
      const res = await request(`/api/v1/fills?exchange=${exchange}`, withCredentials(header));
      assert.equal(res.status, 200, res.text);
      assert.ok(
        (res.body as Array<{ order_id: string }>).some((f) => f.order_id === order.id),
        res.text,
      );
      const direct = await cat.sims
        .get(exchange)
        ?.adapter.trading.fetchFills?.(venueContext(), session, null, 100);
      assert.deepEqual(res.body, direct);
    },
  ],
  [
    'fetch_positions',
    async (exchange) => {
      const { header, session } = await paperAccount(exchange);
      const adapter = cat.sims.get(exchange)?.adapter;
      assert.ok(adapter);
      if (adapter.descriptor.has.create_order !== 'unsupported') await placeOrder(exchange, header, true);
      const res = await request(`/api/v1/positions?exchange=${exchange}`, withCredentials(header));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, await adapter.trading.fetchPositions?.(venueContext(), session, null));
      if (adapter.descriptor.has.create_order !== 'unsupported')
        assert.ok((res.body as unknown[]).length > 0);
    },
  ],
  [
    'fetch_balance',
    async (exchange) => {
      const { header, session } = await paperAccount(exchange);
      const res = await request(`/api/v1/balance?exchange=${exchange}`, withCredentials(header));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body,
        await cat.sims.get(exchange)?.adapter.trading.fetchBalance?.(venueContext(), session),
      );
    },
  ],
  [
    'refresh_balance',
    async (exchange) => {
      const { header, session } = await paperAccount(exchange);
      await request(`/api/v1/balance?exchange=${exchange}`, withCredentials(header));
      // A fill after the cached read: only a refreshed read sees it.
      await placeOrder(exchange, header, true);
      const res = await request(`/api/v1/balance?exchange=${exchange}&refresh=true`, withCredentials(header));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body,
        await cat.sims.get(exchange)?.adapter.trading.fetchBalance?.(venueContext(), session),
      );
    },
  ],
  [
    'websocket',
    async (exchange) => {
      const market = tradedMarket(exchange);
      const client = await wsClient();
      try {
        client.send({
          type: 'subscribe',
          markets: [{ svc_id: market.svc_id, outcome: market.outcomes[0]?.name }],
        });
        const book = await client.next((m) => m.type === 'orderbook' && m.svc_id === market.svc_id);
        assert.equal(book.exchange, exchange);
        assert.equal(book.book_state, 'fresh');
        assert.equal(book.server_seq, 1);
        const bids = book.bids as [number, number][];
        const asks = book.asks as [number, number][];
        assert.ok(bids.length + asks.length > 0, `${exchange}: an empty book over the WebSocket`);
        assert.deepEqual(
          bids.map(([p]) => p),
          [...bids.map(([p]) => p)].sort((a, b) => b - a),
        );
        assert.deepEqual(
          asks.map(([p]) => p),
          [...asks.map(([p]) => p)].sort((a, b) => a - b),
        );
      } finally {
        client.close();
      }
    },
  ],
  [
    'watch_address',
    async (exchange) => {
      // A fresh paper wallet is watched, then trades on the exchange's book: the trade must reach the subscriber.
      // Where our API places orders, the trade goes through POST /orders; where it does not (data-only
      // exchanges), the wallet trades on the simulated exchange itself (POST /__sim/trade), as it would in the
      // exchange's own app.
      const sim = cat.sims.get(exchange);
      assert.ok(sim);
      const res = await fetch(`${sim.control}/__sim/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(res.status, 201, `${exchange}: POST /__sim/accounts answered ${res.status}`);
      const account = (await res.json()) as { address?: string; credentials: Record<string, string> };
      assert.ok(account.address, `${exchange}: the paper account has no address to watch`);
      const client = await wsClient();
      try {
        client.send({ type: 'subscribe', addresses: [{ exchange, address: account.address }] });
        const snapshot = await client.next((m) => m.type === 'wallet_activity');
        assert.equal(snapshot.snapshot, true, JSON.stringify(snapshot));
        assert.equal(snapshot.feed_state, 'healthy', JSON.stringify(snapshot));
        const before = Date.now() - 60_000;
        if (sim.adapter.descriptor.has.create_order !== 'unsupported') {
          await placeOrder(
            exchange,
            Buffer.from(JSON.stringify(account.credentials)).toString('base64'),
            true,
          );
        } else {
          const traded = await fetch(`${sim.control}/__sim/trade`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ address: account.address }),
          });
          assert.equal(traded.status, 201, `${exchange}: POST /__sim/trade answered ${traded.status}`);
        }
        const update = await client.next((m) => m.type === 'wallet_activity' && m.snapshot === false);
        const delivered = update.activity as Array<{ id: string; raw: unknown }>;
        assert.ok(delivered.length > 0, `${exchange}: the wallet's trade was not delivered`);
        // What arrived is the venue's own record of the trade, as the adapter reads it itself.
        const direct = await sim.adapter.marketData.fetchWalletActivity?.(venueContext(), account.address, {
          sinceMs: before,
          max: 500,
        });
        for (const item of delivered) {
          assert.deepEqual(
            direct?.find((d) => d.id === item.id)?.raw,
            item.raw,
            `${exchange}: ${item.id} as the venue lists it`,
          );
        }
      } finally {
        client.close();
      }
    },
  ],
  [
    'fetch_orderbook_history',
    async (exchange) => {
      // The server records what it is asked to: record one book the way the WebSocket gateway will, then read
      // its history through the route.
      const market = tradedMarket(exchange);
      const outcome = market.outcomes[0];
      const sim = cat.sims.get(exchange);
      const recorder = cat.server.runtime.bookRecorder;
      assert.ok(outcome?.token_id && sim && recorder);
      const release = recorder.recordWhileHeld({
        venue: sim.adapter,
        market,
        outcome: { ...outcome, token_id: outcome.token_id },
      });
      try {
        const path =
          `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}` +
          `&outcome=${encodeURIComponent(outcome.name)}&end_ts=${Math.floor(Date.now() / 1000) + 60}`;
        const deadline = Date.now() + 15_000;
        let snapshots: unknown[] = [];
        while (snapshots.length === 0) {
          const res = await request(path);
          assert.equal(res.status, 200, res.text);
          const body = res.body as { svc_id: string; token_id: string; snapshots: unknown[] };
          assert.equal(body.svc_id, market.svc_id);
          assert.equal(body.token_id, outcome.token_id);
          snapshots = body.snapshots;
          if (snapshots.length === 0) {
            assert.ok(Date.now() < deadline, `${exchange}: no snapshot recorded`);
            await new Promise((r) => setTimeout(r, 50));
          }
        }
      } finally {
        release();
      }
    },
  ],
  [
    'fetch_orderbook',
    async (exchange) => {
      const market = tradedMarket(exchange);
      const outcome = market.outcomes[0]?.name ?? 'Yes';
      const res = await request(
        `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}&outcome=${encodeURIComponent(outcome)}`,
      );
      assert.equal(res.status, 200, res.text);
      const book = res.body as { svc_id: string; bids: [number, number][]; asks: [number, number][] };
      assert.equal(book.svc_id, market.svc_id);
      const adapter = cat.sims.get(exchange)?.adapter;
      const direct = await adapter?.marketData.fetchOrderBook?.(venueContext(), market, outcome);
      assert.ok(direct, `${exchange}: the adapter fetches the same book`);
      assert.deepEqual(book.bids, direct.bids.slice(0, 50), `${exchange}: bids as the venue has them`);
      assert.deepEqual(book.asks, direct.asks.slice(0, 50), `${exchange}: asks as the venue has them`);
    },
  ],
  [
    'fetch_execution_price',
    async (exchange) => {
      const market = tradedMarket(exchange);
      const outcome = market.outcomes[0]?.name ?? 'Yes';
      const selector = `svc_id=${encodeURIComponent(market.svc_id)}&outcome=${encodeURIComponent(outcome)}`;
      const asksNow = async () => {
        const res = await request(`/api/v1/orderbook?${selector}&limit=100`);
        assert.equal(res.status, 200, res.text);
        return (res.body as { asks: [number, number][] }).asks;
      };
      // The estimate walks the book GET /orderbook answers (one short cache). An earlier exerciser may have moved
      // the venue while an older book was cached, so the estimate counts only between two equal book reads.
      for (let attempt = 0; ; attempt++) {
        const before = await asksNow();
        const res = await request(`/api/v1/execution-price?${selector}&side=buy&amount=3`);
        assert.equal(res.status, 200, res.text);
        const after = await asksNow();
        if (JSON.stringify(before) !== JSON.stringify(after)) {
          assert.ok(attempt < 5, `${exchange}: the book kept moving`);
          continue;
        }
        const estimate = res.body as {
          svc_id: string;
          filled_amount: number;
          total_cost: number;
          fee_info: { exchange: string };
        };
        assert.equal(estimate.svc_id, market.svc_id);
        assert.equal(estimate.fee_info.exchange, exchange);
        const walk = walkBook('buy', levelsFromBook(after), Decimal.fromInt(3));
        assert.equal(estimate.filled_amount, walk.filled.toNumber(), `${exchange}: filled as the asks allow`);
        assert.equal(estimate.total_cost, walk.notional.toNumber(), `${exchange}: cost of the asks`);
        return;
      }
    },
  ],
  [
    'fetch_arbitrage',
    async (exchange) => {
      // A published link between a yes/no market here and one on another exchange with the flag; near misses
      // included (min_edge_bps=-10000), so the figures of a direction that involves this exchange are checked
      // whether or not the sandbox's books happen to cross.
      const others = ['polymarket', 'kalshi', 'predictfun'].filter((e) => e !== exchange) as ExchangeId[];
      const links = new LinksRepo(cat.server.runtime.store.db);
      const found = async () => {
        const pairs = await links.sameMarketPairs([exchange, ...others], ['HIGH', 'MEDIUM', 'LOW'], 500);
        return pairs.some((p) => (p.a.exchange === exchange) !== (p.b.exchange === exchange)) || undefined;
      };
      if (!(await found())) {
        // The matcher has not linked one (yet, or in this small world): the simulators' ground truth names the
        // same proposition on two venues, and that link is published as the engine would.
        const manifest = async (ex: ExchangeId) => {
          const sim = cat.sims.get(ex);
          assert.ok(sim);
          return (await (await fetch(`${sim.control}/__sim/manifest`)).json()) as Record<string, string[]>;
        };
        const binary = (svcId: string) => {
          const m = cat.markets.get(svcId);
          return m?.status === 'active' && m.outcomes.length === 2 && m.outcomes.every((o) => o.token_id);
        };
        const mine = await manifest(exchange);
        let linked = false;
        for (const other of others) {
          const theirs = await manifest(other);
          for (const [key, ids] of Object.entries(mine)) {
            const a = ids.map((id) => `${exchange}:${id}`).find(binary);
            const b = (theirs[key] ?? []).map((id) => `${other}:${id}`).find(binary);
            if (!a || !b || linked) continue;
            const link = { kind: 'same_market' as const, confidence: 1, confidence_tier: 'HIGH' as const };
            await links.publish(
              [
                { ...link, svc_id: a, linked_svc_id: b, source: 'ground truth (capability walk)' },
                { ...link, svc_id: b, linked_svc_id: a, source: 'ground truth (capability walk)' },
              ],
              new Date().toISOString(),
            );
            linked = true;
          }
        }
        assert.ok(await found(), `${exchange}: no proposition listed here and on another arbitrage venue`);
      }
      for (const other of others) {
        const query = `exchanges=${exchange},${other}&min_edge_bps=-10000&min_tier=LOW&limit=200`;
        for (let attempt = 0; attempt < 10; attempt++) {
          const res = await request(`/api/v1/arbitrage?${query}`);
          assert.equal(res.status, 200, res.text);
          const listing = res.body as {
            opportunities: Array<{
              legs: Array<{ svc_id: string; exchange: ExchangeId; outcome: string; best_price: number }>;
              edge_curve: Array<{ size: number; total_cost: number }>;
            }>;
          };
          const o = listing.opportunities.find((x) => x.legs.some((l) => l.exchange === exchange));
          if (!o) break;
          const books = async () =>
            Promise.all(
              o.legs.map(async (l) => {
                const m = cat.markets.get(l.svc_id) as Market;
                const adapter = cat.sims.get(l.exchange)?.adapter;
                const book = await adapter?.marketData.fetchOrderBook?.(venueContext(), m, l.outcome);
                assert.ok(book, `${l.exchange}: the adapter fetches the same book`);
                return book.asks;
              }),
            );
          const before = await books();
          const point = o.edge_curve[0];
          assert.ok(point);
          const fees = await Promise.all(
            o.legs.map((l) => feeModelOf(cat, cat.markets.get(l.svc_id) as Market)),
          );
          let total = 0;
          for (const [i, asks] of before.entries()) {
            let left = point.size;
            const fills: Array<[number, number]> = [];
            for (const [p, q] of asks) {
              if (left <= 0) break;
              const take = Math.min(q, left);
              fills.push([p, take]);
              total += p * take;
              left -= take;
            }
            total += fees[i]?.(fills) ?? Number.NaN;
          }
          if (JSON.stringify(before) !== JSON.stringify(await books())) continue;
          if (o.legs.some((l, i) => l.best_price !== before[i]?.[0]?.[0])) continue;
          assert.ok(
            Math.abs(point.total_cost - total) < 1e-6,
            `${exchange}: ${point.size} pairs cost ${point.total_cost}, recomputed ${total}`,
          );
          return;
        }
      }
      assert.fail(`${exchange}: no arbitrage direction priced with a ${exchange} leg`);
    },
  ],
  [
    'fetch_price_history',
    async (exchange) => {
      const market = tradedMarket(exchange);
      const outcome = market.outcomes[0]?.name ?? 'Yes';
      // Two days of hourly candles that ended an hour ago: nothing in them is still moving.
      const endTs = Math.floor(Date.now() / 3_600_000) * 3_600 - 3_601;
      const startTs = endTs - 2 * 86_400;
      const res = await request(
        `/api/v1/price?svc_id=${encodeURIComponent(market.svc_id)}&outcome=${encodeURIComponent(outcome)}` +
          `&interval=1h&start_ts=${startTs}&end_ts=${endTs}`,
      );
      assert.equal(res.status, 200, res.text);
      const { candles } = res.body as { candles: Candle[] };
      assert.ok(candles.length > 0, `${exchange}: two days without a candle`);
      const adapter = cat.sims.get(exchange)?.adapter;
      const series = await adapter?.marketData.fetchPriceHistory?.(venueContext(), market, outcome, {
        interval: '1h',
        startTs,
        endTs,
      });
      assert.ok(series, `${exchange}: the adapter has the same history`);
      const own = rollUpSeries(series, intervalPeriod('1h')).filter(
        (c) => Date.parse(c.timestamp) / 1000 >= startTs,
      );
      assert.deepEqual(candles, own, `${exchange}: the venue's series, rolled up`);
    },
  ],
  [
    'fetch_trades',
    async (exchange) => {
      await advance(exchange, 10);
      const adapter = cat.sims.get(exchange)?.adapter;
      const query = { limit: 20, startTs: null, endTs: null, cursor: null };
      let found: { market: Market; ids: string[] } | null = null;
      for (const market of [...cat.markets.values()].filter(
        (m) => m.exchange === exchange && m.status === 'active',
      )) {
        const page = await adapter?.marketData.fetchTrades?.(
          venueContext(),
          market,
          market.outcomes[0]?.name ?? '',
          query,
        );
        if (page && page.trades.length > 0) {
          found = { market, ids: page.trades.map((t) => t.id) };
          break;
        }
      }
      assert.ok(found, `${exchange}: no active market has a trade`);
      const outcome = found.market.outcomes[0]?.name ?? '';
      const res = await request(
        `/api/v1/trades?svc_id=${encodeURIComponent(found.market.svc_id)}&outcome=${encodeURIComponent(outcome)}&limit=20`,
      );
      assert.equal(res.status, 200, res.text);
      const body = res.body as { trades: Array<{ id: string }> };
      assert.deepEqual(
        body.trades.map((t) => t.id),
        found.ids,
        `${exchange}: the venue's own tape`,
      );
    },
  ],
  [
    'fetch_user_activity',
    async (exchange) => {
      // A paper wallet holding positions there: the venue's document must carry them, exactly as the adapter
      // reads them itself.
      const wallet = await walletWithPositions(cat, exchange, 3);
      const res = await request(`/api/v1/user-activity?address=${wallet.address}&exchanges=${exchange}`);
      assert.equal(res.status, 200, res.text);
      const body = res.body as {
        exchanges: Record<string, Record<string, unknown>>;
        status: Record<string, { success: boolean; error?: string }>;
      };
      assert.deepEqual(body.status, { [exchange]: { success: true } }, res.text);
      const adapter = cat.sims.get(exchange)?.adapter;
      const direct = await adapter?.marketData.fetchUserActivity?.(venueContext(), wallet.address, 100);
      assert.ok(direct, `${exchange}: the adapter reads the same wallet`);
      assert.deepEqual(body.exchanges[exchange], direct, `${exchange}: the venue's own document`);
      assert.equal(positionRows(exchange, direct), wallet.positions, `${exchange}: the wallet's positions`);
    },
  ],
  [
    'fetch_markets',
    async (exchange) => {
      const listed = await request(`/api/v1/markets?exchanges=${exchange}&limit=100`);
      assert.equal(listed.status, 200, listed.text);
      const markets = (listed.body as { markets: Market[] }).markets;
      const expected = [...cat.markets.values()].filter(
        (m) => m.exchange === exchange && m.status === 'active',
      );
      assert.equal(markets.length, Math.min(100, expected.length), `${exchange}: active markets listed`);
      assert.ok(markets.length > 0, `${exchange}: no active market listed`);
      assert.ok(markets.every((m) => m.exchange === exchange));
      const one = someMarket(exchange);
      const found = await request(`/api/v1/markets?scope=market&svc_id=${encodeURIComponent(one.svc_id)}`);
      assert.equal(found.status, 200, found.text);
      assert.equal((found.body as { markets: Market[] }).markets[0]?.svc_id, one.svc_id);
    },
  ],
  [
    'fetch_events',
    async (exchange) => {
      const res = await request(`/api/v1/events?exchanges=${exchange}&status=active&limit=100`);
      assert.equal(res.status, 200, res.text);
      const events = (res.body as { events: Array<{ exchanges: string[] }> }).events;
      const expected = cat.events.filter((e) => e.exchange === exchange && e.status === 'active');
      assert.ok(expected.length > 0, `the ${exchange} simulator lists no active event`);
      assert.ok(events.length > 0, `${exchange}: no event listed`);
      assert.ok(events.every((e) => e.exchanges.includes(exchange)));
    },
  ],
]);

/** The request a client makes for each capability on one exchange: a false flag's answer is 501 not_supported. */
function probe(capability: Capability, exchange: ExchangeId): [string, TestRequestInit] {
  const market = encodeURIComponent(someMarket(exchange).exchange_market_id);
  const order = {
    market_id: someMarket(exchange).exchange_market_id,
    outcome: 'Yes',
    side: 'buy',
    price: 0.5,
  };
  const probes: Record<Capability, [string, TestRequestInit]> = {
    fetch_markets: [`/api/v1/markets?exchanges=${exchange}`, {}],
    fetch_events: [`/api/v1/events?exchanges=${exchange}`, {}],
    fetch_orderbook: [`/api/v1/orderbook?exchange=${exchange}&market_id=${market}`, {}],
    fetch_orderbook_history: [
      `/api/v1/orderbook?exchange=${exchange}&market_id=${market}&start_ts=1700000000`,
      {},
    ],
    fetch_price_history: [`/api/v1/price?exchange=${exchange}&market_id=${market}`, {}],
    fetch_trades: [`/api/v1/trades?exchange=${exchange}&market_id=${market}`, {}],
    fetch_user_activity: [
      `/api/v1/user-activity?address=0x0000000000000000000000000000000000000001&exchanges=${exchange}`,
      {},
    ],
    fetch_execution_price: [
      `/api/v1/execution-price?exchange=${exchange}&market_id=${market}&side=buy&amount=1`,
      {},
    ],
    fetch_arbitrage: [`/api/v1/arbitrage?exchanges=${exchange}`, {}],
    create_order: [`/api/v1/orders?exchange=${exchange}`, { method: 'POST', body: { ...order, size: 1 } }],
    cancel_order: [`/api/v1/orders/some-order?exchange=${exchange}`, { method: 'DELETE' }],
    fetch_order_history: [`/api/v1/orders?exchange=${exchange}&status=all`, {}],
    fetch_fills: [`/api/v1/fills?exchange=${exchange}`, {}],
    fetch_positions: [`/api/v1/positions?exchange=${exchange}`, {}],
    fetch_balance: [`/api/v1/balance?exchange=${exchange}`, {}],
    refresh_balance: [`/api/v1/balance?exchange=${exchange}&refresh=true`, {}],
    watch_address: ['/api/v1/ws', {}],
    websocket: ['/ws', {}],
    route_orders: [
      '/api/v1/route/orders',
      {
        method: 'POST',
        headers: { 'idempotency-key': `probe-route-${exchange}` },
        body: {
          svc_id: someMarket(exchange).svc_id,
          side: 'buy',
          amount: '1',
          exchanges: [exchange],
          max_slippage: '1',
        },
      },
    ],
    arbitrage_execute: [
      '/api/v1/arbitrage/execute',
      {
        method: 'POST',
        headers: { 'idempotency-key': `probe-arb-${exchange}` },
        body: {
          legs: [
            { svc_id: someMarket(exchange).svc_id, outcome: 'Yes' },
            { svc_id: someMarket(exchange).svc_id, outcome: 'No' },
          ],
          size: '1',
        },
      },
    ],
  };
  return probes[capability];
}

test('every flag of GET /exchanges is true exactly when its public route works for that exchange', async () => {
  const res = await request('/api/v1/exchanges');
  assert.equal(res.status, 200, res.text);
  const matrix = res.body as Array<{ id: ExchangeId; has: Record<Capability, boolean> }>;
  assert.deepEqual(
    matrix.map((e) => e.id),
    [...cat.sims.keys()],
    'every sandbox exchange is in the matrix',
  );
  const walked: string[] = [];
  for (const { id, has } of matrix) {
    assert.deepEqual(Object.keys(has), [...CAPABILITIES], `${id}: the flags are the contract's`);
    for (const capability of CAPABILITIES) {
      if (has[capability]) {
        const exercise = EXERCISERS.get(capability);
        assert.ok(exercise, `${id}.${capability} is true but nothing here proves it: add an exerciser`);
        await exercise(id);
        walked.push(`${id}.${capability}`);
      } else if (capability === 'watch_address') {
        // Wallet subscriptions are a WebSocket message: a venue without them refuses it there, by name.
        const client = await wsClient('/api/v1/ws');
        try {
          const from = client.mark;
          client.send({
            type: 'subscribe',
            addresses: [{ exchange: id, address: '0x0000000000000000000000000000000000000001' }],
          });
          const refused = await client.next((m) => m.type === 'error', from);
          assert.equal(refused.code, 2003, `${id}.watch_address: ${JSON.stringify(refused)}`);
          assert.match(String(refused.message), /watch_address/);
        } finally {
          client.close();
        }
      } else {
        const [path, init] = probe(capability, id);
        const answer = await request(path, init);
        assertError(answer, 501, 'not_supported');
        assert.match(
          (answer.body as { error: string }).error,
          new RegExp(`${capability}|not served`),
          `${id}.${capability}: the 501 says what is missing`,
        );
      }
    }
  }
  assert.ok(walked.length > 0, 'no flag is true: the walk proved nothing');
});

test('every capability route is served by this build; an unknown route is 404 not_found', async () => {
  // A capability route this build did not register would answer 501 naming its capability (the not-found
  // handler); today every route of CAPABILITY_ROUTES is registered.
  assertError(await request('/api/v1/orders-typo'), 404, 'not_found');
});
