// Wallet address subscriptions and the caller's own fills on the WebSocket, through the real server over the
// simulators: a Polymarket paper wallet that trades on the simulator's book is seen in `wallet_activity` (a
// snapshot first, then each new item exactly once, matching the venue's own /activity), shared by two clients,
// stopped by unsubscribe, held to the tier's limit together with books, refused with contract codes for a bad
// address or an exchange without watch_address, and reported disconnected (then healthy, with what was missed)
// while the venue's activity endpoint fails. A resting order placed through POST /orders with stored credentials
// and filled by another account's crossing order reaches its owner as exactly one `activity` kind fill, and
// another customer subscribed to the same book sees none of it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import type { WalletActivityItem } from '../../../src/domain/wallet-activity.js';
import {
  type CatalogueServer,
  simControl,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import type { TestRequestInit, TestResponse } from '../../support/server.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

let cat: CatalogueServer;
let wsUrl: string;
const clients: WsTestClient[] = [];

before(async () => {
  cat = await startCatalogueServer(20, {
    config: { websocket: { heartbeatMs: 200, walletPollMs: 100 } },
  });
  wsUrl = `${cat.server.url.replace(/^http/, 'ws')}/ws`;
});
after(async () => {
  for (const c of clients) c.close();
  await cat?.stop();
});

interface PmAccount {
  credentials: Record<string, string>;
  address: string;
}

interface ApiOrder {
  id: string;
  status: string;
}

interface Book {
  bids: [number, number][];
  asks: [number, number][];
  tick_size: number;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const round = (n: number) => Math.round(n * 1e6) / 1e6;

async function authed(key = cat.server.adminKey): Promise<WsTestClient> {
  const client = await WsTestClient.open(wsUrl);
  clients.push(client);
  client.send({ type: 'auth', api_key: key });
  await client.next((m) => m.type === 'auth_ok');
  return client;
}

async function customer(tier: 'free' | 'pro' = 'pro'): Promise<string> {
  const { key } = await cat.server.runtime.keys.create({ name: 'ws wallet', tier });
  return key;
}

async function pmAccount(): Promise<PmAccount> {
  return (await simControl(cat, 'polymarket', 'POST', 'accounts', { kind: 'legacy' })) as PmAccount;
}

async function call(path: string, init: TestRequestInit): Promise<TestResponse> {
  const res = await cat.server.request(path, init);
  assert.ok(res.status < 500, `${init.method ?? 'GET'} ${path}: ${res.status} ${res.text}`);
  return res;
}

async function book(market: Market, outcome: string): Promise<Book> {
  const res = await call(
    `/api/v1/orderbook?exchange=${market.exchange}&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=${outcome}`,
    {},
  );
  assert.equal(res.status, 200, res.text);
  return res.body as Book;
}

function activeMarkets(exchange: ExchangeId = 'polymarket'): Market[] {
  return [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes.every((o) => o.token_id),
  );
}

/** An active market with room for a resting bid inside the spread and at least 5 shares at the ask. */
async function roomyMarket(
  exchange: ExchangeId = 'polymarket',
): Promise<{ market: Market; outcome: string; book: Book }> {
  for (const market of activeMarkets(exchange)) {
    const outcome = market.outcomes[0]?.name as string;
    const b = await book(market, outcome);
    const [bid] = b.bids[0] ?? [];
    const [ask, askSize] = b.asks[0] ?? [];
    if (
      bid !== undefined &&
      ask !== undefined &&
      askSize !== undefined &&
      askSize >= 5 &&
      // Polymarket takes a marketable buy of $1 or more only.
      (exchange !== 'polymarket' || ask * 5 >= 1) &&
      ask - bid >= 1.5 * b.tick_size
    )
      return { market, outcome, book: b };
  }
  assert.fail(`no ${exchange} market with a spread of at least 2 ticks`);
}

/** Buys 5 shares at the best ask of a market with per-request credentials: a trade of that wallet. */
async function buyAtAsk(
  account: { credentials: Record<string, string> },
  market: Market,
  outcome: string,
): Promise<ApiOrder> {
  const b = await book(market, outcome);
  const [ask] = b.asks[0] as [number, number];
  const res = await call(`/api/v1/orders?exchange=${market.exchange}`, {
    method: 'POST',
    headers: { 'x-exchange-credentials': b64(account.credentials) },
    body: { market_id: market.exchange_market_id, outcome, side: 'buy', price: ask, size: 5 },
  });
  assert.equal(res.status, 200, res.text);
  const order = res.body as ApiOrder;
  assert.equal(order.status, 'filled', res.text);
  return order;
}

/** The wallet's activity as the venue itself lists it (the adapter straight against the simulator). */
async function venueActivity(address: string): Promise<WalletActivityItem[]> {
  const adapter = cat.sims.get('polymarket')?.adapter;
  assert.ok(adapter?.marketData.fetchWalletActivity);
  return adapter.marketData.fetchWalletActivity(venueContext(), address, { sinceMs: 0, max: 500 });
}

const walletMessages = (client: WsTestClient, address: string) =>
  client.messages.filter((m) => m.type === 'wallet_activity' && m.address === address.toLowerCase());

const items = (messages: readonly WsMessage[]) =>
  messages.flatMap((m) => m.activity as WalletActivityItem[]).map((i) => i.id);

const isError = (code: number) => (m: WsMessage) => m.type === 'error' && m.code === code;

describe('wallet address subscriptions (polymarket)', () => {
  test('a snapshot first, then every trade of the wallet exactly once, as the venue lists it; a second client shares it', async () => {
    const wallet = await pmAccount();
    const client = await authed();
    client.send({ type: 'subscribe', addresses: [{ exchange: 'polymarket', address: wallet.address }] });
    const snapshot = await client.next((m) => m.type === 'wallet_activity');
    assert.equal(snapshot.snapshot, true);
    assert.equal(snapshot.server_seq, 1);
    assert.equal(snapshot.exchange, 'polymarket');
    assert.equal(snapshot.address, wallet.address.toLowerCase());
    assert.equal(snapshot.feed_state, 'healthy');
    assert.deepEqual(snapshot.activity, [], 'a new paper wallet has no history');

    const { market, outcome } = await roomyMarket();
    await buyAtAsk(wallet, market, outcome);
    const first = await client.next((m) => m.type === 'wallet_activity' && m.snapshot === false);
    const firstItems = first.activity as WalletActivityItem[];
    assert.ok(firstItems.length > 0);
    for (const item of firstItems) {
      assert.equal(item.raw.type, 'TRADE');
      assert.equal(item.raw.side, 'BUY');
      assert.equal(String(item.raw.proxyWallet).toLowerCase(), wallet.address.toLowerCase());
    }

    // A second trade: it arrives after the first, which is never repeated.
    const from = client.mark;
    await buyAtAsk(wallet, market, outcome);
    const venueNow = await venueActivity(wallet.address);
    await client.next(() => items(walletMessages(client, wallet.address)).length === venueNow.length, from);
    const received = walletMessages(client, wallet.address);
    assert.deepEqual(
      received.map((m) => m.server_seq),
      received.map((_, i) => i + 1),
      'server_seq gap-free',
    );
    const ids = items(received);
    assert.equal(new Set(ids).size, ids.length, 'an item sent twice');
    assert.deepEqual(new Set(ids), new Set(venueNow.map((i) => i.id)), 'what the venue lists, nothing more');

    // A client joining later gets the same history as its snapshot, from the same watcher.
    const second = await authed();
    second.send({ type: 'subscribe', addresses: [{ exchange: 'polymarket', address: wallet.address }] });
    const joined = await second.next((m) => m.type === 'wallet_activity');
    assert.equal(joined.snapshot, true);
    assert.deepEqual(new Set((joined.activity as WalletActivityItem[]).map((i) => i.id)), new Set(ids));
    client.close();
    second.close();
  });

  test('unsubscribe stops the messages: a later wallet message arrives while the unsubscribed one does not', async () => {
    const [x, y] = [await pmAccount(), await pmAccount()];
    const watcher = await authed();
    const other = await authed();
    watcher.send({
      type: 'subscribe',
      addresses: [
        { exchange: 'polymarket', address: x.address },
        { exchange: 'polymarket', address: y.address },
      ],
    });
    other.send({ type: 'subscribe', addresses: [{ exchange: 'polymarket', address: x.address }] });
    await watcher.next(() => walletMessages(watcher, x.address).length > 0);
    await watcher.next(() => walletMessages(watcher, y.address).length > 0);
    await other.next((m) => m.type === 'wallet_activity');
    watcher.send({
      type: 'unsubscribe',
      addresses: [{ exchange: 'polymarket', address: x.address.toUpperCase().replace('0X', '0x') }],
    });
    // The unsubscribe is handled before the next control message: a resync error answers after it.
    watcher.send({ type: 'resync', svc_id: 'polymarket:not-subscribed' });
    await watcher.next((m) => m.type === 'error');

    const { market, outcome } = await roomyMarket();
    await buyAtAsk(x, market, outcome);
    // The other client still watches x: the watcher of x ran and sent its item to every subscriber at once.
    await other.next((m) => m.type === 'wallet_activity' && m.snapshot === false);
    const mark = watcher.mark;
    await buyAtAsk(y, market, outcome);
    await watcher.next(
      (m) => m.type === 'wallet_activity' && m.address === y.address.toLowerCase() && m.snapshot === false,
      mark,
    );
    assert.ok(
      walletMessages(watcher, x.address).every((m) => m.snapshot === true),
      'a wallet message after unsubscribe',
    );
    watcher.close();
    other.close();
  });

  test('a bad address is 2001 without repeating it; an exchange without watch_address is 2003; unknown exchange 2001', async () => {
    const typo = '0x52908400098527886E0F7030069857D2E4169EE7'.replace('E7', 'e7');
    // A connection per case: at most 3 control messages a second.
    for (const [address, exchange, code] of [
      ['0x1234', 'polymarket', 2001],
      [typo, 'polymarket', 2001],
      ['0x0000000000000000000000000000000000000001', 'kalshi', 2003],
      ['0x0000000000000000000000000000000000000001', 'nope', 2001],
    ] as const) {
      const client = await authed();
      client.send({ type: 'subscribe', addresses: [{ exchange, address }] });
      const error = await client.next((m) => m.type === 'error');
      assert.equal(error.code, code, JSON.stringify(error));
      assert.equal(error.exchange, exchange);
      assert.ok(!String(error.message).includes(address), 'the address is not echoed');
      assert.ok(!client.messages.some((m) => m.type === 'wallet_activity'));
      client.close();
    }
    const client = await authed();
    client.send({ type: 'subscribe', addresses: [{ exchange: 'polymarket' }] });
    await client.next(isError(4000));
    client.close();
  });

  test('addresses count towards the tier limit together with books (free: 5)', async () => {
    const client = await authed(await customer('free'));
    const market = activeMarkets()[0] as Market;
    client.send({ type: 'subscribe', markets: [{ svc_id: market.svc_id }] });
    await client.next((m) => m.type === 'orderbook');
    const addresses = Array.from({ length: 5 }, (_, i) => ({
      exchange: 'polymarket',
      address: `0x${(i + 1).toString(16).padStart(40, '0')}`,
    }));
    client.send({ type: 'subscribe', addresses });
    const refused = await client.next(isError(3002));
    assert.equal(refused.address, addresses[4]?.address);
    for (const a of addresses.slice(0, 4)) {
      await client.next((m) => m.type === 'wallet_activity' && m.address === a.address);
    }
    assert.ok(
      !client.messages.some((m) => m.type === 'wallet_activity' && m.address === addresses[4]?.address),
    );
    client.close();
  });

  test("the venue's activity endpoint failing is said (disconnected), and what happened meanwhile follows on recovery", async () => {
    const wallet = await pmAccount();
    const client = await authed();
    client.send({ type: 'subscribe', addresses: [{ exchange: 'polymarket', address: wallet.address }] });
    await client.next((m) => m.type === 'wallet_activity' && m.snapshot === true);
    await simControl(cat, 'polymarket', 'POST', 'faults', {
      error_rate: 1,
      error_status: 503,
      only: ['GET /activity'],
    });
    try {
      const down = await client.next((m) => m.type === 'wallet_activity' && m.feed_state === 'disconnected');
      assert.deepEqual(down.activity, []);
      assert.equal(typeof down.error, 'string');
      const { market, outcome } = await roomyMarket();
      await buyAtAsk(wallet, market, outcome);
    } finally {
      await simControl(cat, 'polymarket', 'DELETE', 'faults');
    }
    const back = await client.next(
      (m) => m.type === 'wallet_activity' && m.feed_state === 'healthy' && m.snapshot === false,
    );
    const venueNow = await venueActivity(wallet.address);
    await client.next(
      () => items(walletMessages(client, wallet.address)).length >= venueNow.length,
      client.messages.indexOf(back),
    );
    assert.deepEqual(
      new Set(items(walletMessages(client, wallet.address))),
      new Set(venueNow.map((i) => i.id)),
    );
    client.close();
  });
});

/** A paper account usable with its own key: a legacy (EOA) account on polymarket. */
async function tradingAccount(exchange: ExchangeId): Promise<{ credentials: Record<string, string> }> {
  if (exchange === 'polymarket') return pmAccount();
  const sim = cat.sims.get(exchange);
  assert.ok(sim);
  return sim.createAccount();
}

describe("the caller's own fills", () => {
  for (const exchange of ['polymarket', 'kalshi'] as const)
    test(`${exchange}: a resting order filled by another account reaches its owner as exactly one fill, and no other customer`, async () => {
      const [ownerKey, otherKey] = [await customer(), await customer()];
      const [ownerAccount, otherAccount, counterparty] = [
        await tradingAccount(exchange),
        await tradingAccount(exchange),
        await tradingAccount(exchange),
      ];
      for (const [key, account] of [
        [ownerKey, ownerAccount],
        [otherKey, otherAccount],
      ] as const) {
        const res = await call('/api/v1/onboard', {
          method: 'POST',
          key,
          body: { exchange, mode: 'self', ...account.credentials },
        });
        assert.equal(res.status, 200, res.text);
      }
      const { market, outcome, book: b } = await roomyMarket(exchange);
      const owner = await authed(ownerKey);
      const other = await authed(otherKey);
      for (const client of [owner, other]) {
        client.send({ type: 'subscribe', markets: [{ svc_id: market.svc_id, outcome }] });
        await client.next((m) => m.type === 'orderbook');
        const feed = await client.next((m) => m.type === 'fill_feed');
        assert.equal(feed.exchange, exchange);
        assert.equal(feed.feed_state, 'healthy', JSON.stringify(feed));
      }

      const price = round((b.bids[0]?.[0] ?? 0) + b.tick_size);
      const rest = async (): Promise<ApiOrder> => {
        const res = await call(`/api/v1/orders?exchange=${exchange}`, {
          method: 'POST',
          key: ownerKey,
          body: { market_id: market.exchange_market_id, outcome, side: 'buy', price, size: 5 },
        });
        assert.equal(res.status, 200, res.text);
        assert.equal((res.body as ApiOrder).status, 'open', res.text);
        return res.body as ApiOrder;
      };
      const hit = async () => {
        await buyAtAsk(counterparty, market, outcome);
        const res = await call(`/api/v1/orders?exchange=${exchange}`, {
          method: 'POST',
          headers: { 'x-exchange-credentials': b64(counterparty.credentials) },
          body: { market_id: market.exchange_market_id, outcome, side: 'sell', price, size: 5 },
        });
        assert.equal(res.status, 200, res.text);
        assert.equal((res.body as ApiOrder).status, 'filled', res.text);
      };
      const fillsOf = (client: WsTestClient, orderId: string) =>
        client.messages.filter((m) => m.type === 'activity' && m.kind === 'fill' && m.order_id === orderId);

      const order = await rest();
      await hit();
      const fill = await owner.next(
        (m) => m.type === 'activity' && m.kind === 'fill' && m.order_id === order.id,
      );
      assert.equal(fill.svc_id, market.svc_id);
      assert.equal(fill.outcome, outcome);
      assert.equal(fill.liquidity_role, 'maker');
      assert.equal(fill.side, 'buy');
      assert.equal(fill.price, price);
      assert.equal(fill.size, 5);
      assert.equal(typeof fill.fill_id, 'string');
      assert.equal(fill.source_channel, `${exchange}_user_stream`);

      // Later signals on each customer's own user stream: the owner's second fill, the other customer's own fill.
      const marker = await rest();
      await hit();
      await owner.next((m) => m.type === 'activity' && m.kind === 'fill' && m.order_id === marker.id);
      assert.equal(fillsOf(owner, order.id).length, 1, 'the fill was sent once');
      const otherRes = await call(`/api/v1/orders?exchange=${exchange}`, {
        method: 'POST',
        key: otherKey,
        body: {
          market_id: market.exchange_market_id,
          outcome,
          side: 'buy',
          price: (await book(market, outcome)).asks[0]?.[0],
          size: 5,
        },
      });
      assert.equal(otherRes.status, 200, otherRes.text);
      const otherOrder = otherRes.body as ApiOrder;
      await other.next((m) => m.type === 'activity' && m.kind === 'fill' && m.order_id === otherOrder.id);
      assert.equal(
        fillsOf(other, order.id).length + fillsOf(other, marker.id).length,
        0,
        "another customer's fill",
      );
      assert.equal(fillsOf(owner, otherOrder.id).length, 0);
      owner.close();
      other.close();
    });
});
