// The WebSocket gateway through the real server over the five simulators: auth (before anything, bad key, the
// deadline), every error code, the tier's limits, snapshot + deltas that replay to the venue's own book with a
// gap-free server_seq on a streamed and a polled exchange, an upstream disconnect seen as stale → resync_required →
// fresh, a subscribed book recorded for GET /orderbook history, and trades on a subscribed book as `activity`
// messages that match the exchange's public trade tape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { BookLevel, OrderBook } from '../../../src/domain/book.js';
import { applyBookChanges } from '../../../src/domain/book-diff.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import type { BookChange } from '../../../src/domain/stream.js';
import {
  type CatalogueServer,
  simControl,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import { waitFor } from '../../support/server.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

let cat: CatalogueServer;
let wsUrl: string;
const clients: WsTestClient[] = [];

before(async () => {
  cat = await startCatalogueServer(20, { config: { websocket: { heartbeatMs: 200, authTimeoutMs: 400 } } });
  wsUrl = `${cat.server.url.replace(/^http/, 'ws')}/ws`;
});
after(async () => {
  for (const c of clients) c.close();
  await cat?.stop();
});

async function connect(path = '/ws'): Promise<WsTestClient> {
  const client = await WsTestClient.open(wsUrl.replace(/\/ws$/, path));
  clients.push(client);
  return client;
}

async function authed(key = cat.server.adminKey): Promise<WsTestClient> {
  const client = await connect();
  client.send({ type: 'auth', api_key: key });
  await client.next((m) => m.type === 'auth_ok');
  return client;
}

/**
 * The error a control message is answered with. Three control messages a second: after a 3001 it is sent again once
 * the answer's retry_after_ms has passed (frames sent sooner are refused unanswered), rather than racing the bucket.
 */
async function answer(client: WsTestClient, message: unknown): Promise<WsMessage> {
  for (;;) {
    const from = client.mark;
    client.send(message);
    const reply = await client.next((m) => m.type === 'error', from);
    if (reply.code !== 3001) return reply;
    await new Promise((r) => setTimeout(r, reply.retry_after_ms as number));
  }
}

function activeMarkets(exchange: ExchangeId): Market[] {
  return [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes.every((o) => o.token_id),
  );
}

function market(exchange: ExchangeId, n = 0): Market {
  const m = activeMarkets(exchange)[n];
  assert.ok(m, `${exchange} has fewer than ${n + 1} active markets`);
  return m;
}

async function venueBook(exchange: ExchangeId, m: Market, outcome: string): Promise<OrderBook> {
  const sim = cat.sims.get(exchange);
  assert.ok(sim?.adapter.marketData.fetchOrderBook);
  return sim.adapter.marketData.fetchOrderBook(venueContext(), m, outcome);
}

const isError = (code: number) => (m: WsMessage) => m.type === 'error' && m.code === code;

/** The book a client holds after replaying every book message of one subscription, and their server_seq values. */
function replay(messages: readonly WsMessage[], svcId: string) {
  let bids: BookLevel[] = [];
  let asks: BookLevel[] = [];
  const seqs: number[] = [];
  let state: unknown = null;
  for (const m of messages) {
    if (m.svc_id !== svcId || m.type === 'error') continue;
    seqs.push(m.server_seq as number);
    if (m.type === 'orderbook') {
      bids = m.bids as BookLevel[];
      asks = m.asks as BookLevel[];
    } else if (m.type === 'orderbook_delta') {
      const changes = m.changes as BookChange[];
      bids = applyBookChanges(bids, changes, 'bid');
      asks = applyBookChanges(asks, changes, 'ask');
    }
    if (m.book_state !== undefined) state = m.book_state;
  }
  return { bids, asks, seqs, state };
}

describe('connection and auth', () => {
  test('GET /ws without an Upgrade is a 400 that says to upgrade', async () => {
    const res = await fetch(`${cat.server.url}/ws`);
    const body = (await res.json()) as { error: string };
    assert.equal(res.status, 400);
    assert.match(body.error, /WebSocket/);
  });

  test('anything before auth is 1001; a wrong key is auth_error 1002 and closes (4001); the right key auth_ok, on both paths', async () => {
    const wrong = await connect('/api/v1/ws');
    wrong.send({ type: 'subscribe', markets: [{ svc_id: market('polymarket').svc_id }] });
    await wrong.next(isError(1001));
    wrong.send({ type: 'auth', api_key: 'ob_not-a-key' });
    const refused = await wrong.next((m) => m.type === 'auth_error');
    assert.equal(refused.code, 1002);
    assert.equal((await wrong.waitClosed()).code, 4001);
    for (const path of ['/ws', '/api/v1/ws']) {
      const client = await connect(path);
      client.send({ type: 'auth', api_key: cat.server.adminKey });
      const ok = await client.next((m) => m.type === 'auth_ok');
      assert.equal(typeof ok.customer_id, 'string');
    }
  });

  test('a client that does not authenticate in time is told so and closed', async () => {
    const client = await connect();
    const closed = await client.waitClosed();
    assert.equal(closed.code, 4001);
    assert.ok(client.messages.some(isError(1001)));
  });

  test('heartbeats arrive once authenticated', async () => {
    const client = await authed();
    const beat = await client.next((m) => m.type === 'heartbeat', client.mark);
    assert.equal(typeof beat.ts_ms, 'number');
  });
});

describe('errors and limits', () => {
  test('malformed frames, unknown markets and outcomes each have their code; the socket stays open', async () => {
    const client = await authed();
    let from = client.mark;
    client.send('not json');
    await client.next(isError(4000), from);
    from = client.mark;
    client.send({ type: 'subscribe', markets: [{ svc_id: 'nonsense' }] });
    await client.next(isError(2001), from);
    assert.equal(
      (await answer(client, { type: 'subscribe', markets: [{ svc_id: 'polymarket:0xnope' }] })).code,
      2002,
    );
    const maybe = { type: 'subscribe', markets: [{ svc_id: market('kalshi').svc_id, outcome: 'maybe' }] };
    assert.equal((await answer(client, maybe)).code, 2005);
    assert.equal(client.closed, null);
  });

  test('a lone UTF-16 surrogate in a frame is refused as malformed (4000), as on REST, before any lookup', async () => {
    const client = await authed();
    // JSON's escape makes the half pair; sent as text, exactly as a client would.
    const raw = '{"type":"subscribe","markets":[{"svc_id":"kalshi:KX\\ud800"}]}';
    assert.ok(raw.includes('\\ud800'));
    const reply = await answer(client, raw);
    assert.equal(reply.code, 4000, JSON.stringify(reply));
    assert.match(String(reply.message), /lone surrogate/);
    assert.equal(client.closed, null);
  });

  test('more than 3 control messages at once: the extra ones are refused, with one 3001 for them all', async () => {
    const client = await authed();
    const from = client.mark;
    for (let i = 0; i < 30; i++) client.send({ type: 'unsubscribe', markets: [{ svc_id: 'nonsense' }] });
    await client.next(isError(3001), from);
    // The burst left after auth (2 of 3) is admitted and answered 2001; the 28 refused frames are one run of
    // refusals, so they got one answer (two if a token came back mid-run on a stalled machine), not one each.
    await waitFor(async () =>
      client.messages.slice(from).filter(isError(2001)).length >= 2 ? true : undefined,
    );
    const limited = client.messages.slice(from).filter(isError(3001)).length;
    assert.ok(limited >= 1 && limited <= 2, `28 refused: ${limited} rate_limited answers`);
    const handled = client.messages.slice(from).filter(isError(2001)).length;
    assert.ok(handled <= 3, `only the burst is handled: ${handled}`);
    assert.equal(client.closed, null, 'under websocket.floodCloseAfter the socket stays open');
  });

  test("a free key's subscriptions and depth are held to its tier (5, 10 levels)", async () => {
    const created = await cat.server.request('/api/v1/keys', { method: 'POST', body: { tier: 'free' } });
    assert.equal(created.status, 201, created.text);
    const client = await authed((created.body as { key: string }).key);
    const books = (['polymarket', 'limitless', 'opinion', 'kalshi', 'predictfun'] as const)
      .flatMap((e) => activeMarkets(e).slice(0, 2))
      .slice(0, 6);
    assert.equal(books.length, 6);
    const from = client.mark;
    client.send({ type: 'subscribe', markets: books.map((m) => ({ svc_id: m.svc_id, depth: 50 })) });
    const refused = await client.next(isError(3002), from);
    assert.equal(refused.svc_id, books[5]?.svc_id);
    for (const m of books.slice(0, 5)) {
      const snapshot = await client.next((x) => x.type === 'orderbook' && x.svc_id === m.svc_id, from);
      assert.ok((snapshot.bids as unknown[]).length <= 10 && (snapshot.asks as unknown[]).length <= 10);
    }
  });
});

describe('books', () => {
  for (const exchange of ['polymarket', 'opinion'] as const) {
    test(`${exchange}: the snapshot is the REST book, and deltas replay to the venue's moved book, seq without gaps`, async () => {
      const m = market(exchange, 1);
      const outcome = m.outcomes[0]?.name ?? 'Yes';
      const client = await authed();
      const from = client.mark;
      client.send({ type: 'subscribe', markets: [{ svc_id: m.svc_id, outcome, depth: 5 }] });
      const snapshot = await client.next((x) => x.type === 'orderbook' && x.svc_id === m.svc_id, from);
      assert.equal(snapshot.kind, 'snapshot');
      assert.equal(snapshot.book_state, 'fresh');
      assert.equal(snapshot.server_seq, 1);
      const rest = await cat.server.request(
        `/api/v1/orderbook?svc_id=${encodeURIComponent(m.svc_id)}&outcome=${outcome}&limit=5`,
      );
      const restBook = rest.body as { bids: BookLevel[]; asks: BookLevel[] };
      assert.deepEqual([snapshot.bids, snapshot.asks], [restBook.bids, restBook.asks]);

      await simControl(cat, exchange, 'POST', 'advance', { steps: 3 });
      const venue = await venueBook(exchange, m, outcome);
      const want = [venue.bids.slice(0, 5), venue.asks.slice(0, 5)];
      assert.notDeepEqual(want, [snapshot.bids, snapshot.asks], 'the venue moved');
      await waitFor(async () => {
        const r = replay(client.messages.slice(from), m.svc_id);
        return isDeepStrictEqual([r.bids, r.asks], want) ? true : undefined;
      });
      const { seqs } = replay(client.messages.slice(from), m.svc_id);
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => i + 1),
        'server_seq counts 1, 2, 3… per subscription',
      );
    });
  }

  test('an upstream disconnect: stale with feed_state disconnected, then resync_required and a fresh snapshot', async () => {
    const m = market('polymarket', 2);
    const client = await authed();
    const from = client.mark;
    client.send({ type: 'subscribe', markets: [{ svc_id: m.svc_id }] });
    await client.next((x) => x.type === 'orderbook' && x.svc_id === m.svc_id, from);
    const dropAt = client.mark;
    await simControl(cat, 'polymarket', 'POST', 'ws/drop');
    const stale = await client.next((x) => x.svc_id === m.svc_id && x.book_state === 'stale', dropAt);
    assert.equal(stale.feed_state, 'disconnected');
    const resync = await client.next((x) => x.type === 'resync_required' && x.svc_id === m.svc_id, dropAt);
    const fresh = await client.next(
      (x) => x.type === 'orderbook' && x.svc_id === m.svc_id && x.book_state === 'fresh',
      client.messages.indexOf(resync),
    );
    assert.equal(fresh.feed_state, 'healthy');
    const { seqs } = replay(client.messages.slice(from), m.svc_id);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
    );
  });

  test('resync sends a fresh snapshot; a book subscribed to is recorded for GET /orderbook history', async () => {
    const m = market('limitless', 0);
    const client = await authed();
    const from = client.mark;
    client.send({ type: 'subscribe', markets: [{ svc_id: m.svc_id }] });
    const first = await client.next((x) => x.type === 'orderbook' && x.svc_id === m.svc_id, from);
    const again = client.mark;
    client.send({ type: 'resync', svc_id: m.svc_id });
    const second = await client.next((x) => x.type === 'orderbook' && x.svc_id === m.svc_id, again);
    assert.equal(second.server_seq, (first.server_seq as number) + 1);
    assert.deepEqual([second.bids, second.asks], [first.bids, first.asks]);
    const history = await waitFor(async () => {
      const res = await cat.server.request(
        `/api/v1/orderbook?svc_id=${encodeURIComponent(m.svc_id)}&start_ts=${Math.floor(Date.now() / 1000) - 600}`,
      );
      assert.equal(res.status, 200, res.text);
      const body = res.body as { snapshots: unknown[] };
      return body.snapshots.length > 0 ? body : undefined;
    });
    assert.ok(history.snapshots.length >= 1);
  });

  test('an unsubscribed resync is refused with 2001', async () => {
    const client = await authed();
    const from = client.mark;
    client.send({ type: 'resync', svc_id: market('polymarket', 3).svc_id });
    await client.next(isError(2001), from);
  });
});

describe('activity', () => {
  for (const exchange of ['polymarket', 'kalshi'] as const) {
    test(`${exchange}: trades on a subscribed book arrive as activity messages, in the subscription's server_seq`, async () => {
      const m = market(exchange, exchange === 'polymarket' ? 3 : 0);
      const outcome = m.outcomes[0]?.name ?? 'Yes';
      const client = await authed();
      const from = client.mark;
      client.send({ type: 'subscribe', markets: [{ svc_id: m.svc_id, outcome, depth: 5 }] });
      await client.next((x) => x.type === 'orderbook' && x.svc_id === m.svc_id, from);
      await simControl(cat, exchange, 'POST', 'advance', { steps: 2 });
      const activity = await client.next((x) => x.type === 'activity' && x.svc_id === m.svc_id, from);
      assert.equal(activity.kind, 'trade');
      assert.equal(activity.exchange, exchange);
      assert.equal(activity.outcome, outcome);
      assert.equal(activity.token_id, m.outcomes[0]?.token_id);
      assert.equal(
        activity.source_channel,
        `${exchange}_ws_${exchange === 'polymarket' ? 'last_trade_price' : 'trade'}`,
      );
      assert.ok(activity.side === 'buy' || activity.side === 'sell');
      assert.equal(typeof activity.trade_id, 'string');
      assert.ok(
        (activity.size as number) > 0 && (activity.price as number) > 0 && (activity.price as number) < 1,
      );
      assert.equal(typeof activity.ingest_ts_ms, 'number');
      // The same trade is on the exchange's public tape, as GET /trades reports it (polymarket's tape names a
      // trade by its transaction, kalshi's by the trade id the stream carries too).
      const onTape = await waitFor(async () => {
        const res = await cat.server.request(
          `/api/v1/trades?svc_id=${encodeURIComponent(m.svc_id)}&outcome=${outcome}&limit=100`,
        );
        assert.equal(res.status, 200, res.text);
        const body = res.body as {
          trades: Array<{ id: string; tx_hash?: string | null; price: number; size: number; side: string }>;
        };
        return body.trades.find((t) => (exchange === 'kalshi' ? t.id : t.tx_hash) === activity.trade_id);
      });
      assert.deepEqual(
        [onTape.price, onTape.size, onTape.side],
        [activity.price, activity.size, activity.side],
      );
      const { seqs } = replay(client.messages.slice(from), m.svc_id);
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => i + 1),
        'books and trades share one server_seq',
      );
    });
  }
});
