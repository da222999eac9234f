// `subscribe { markets: [{ svc_id, outcome, consolidated: true }] }` through the real server over the simulators, with
// links the matching engine published from a real sync pass: the snapshot and its deltas replay to the merge,
// recomputed here, of every venue's own book read from the simulators, before and after they move; levels carry
// their exchange; server_seq counts 1, 2, 3… with no gap; resync answers a fresh snapshot in the same sequence.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { BookLevel } from '../../../src/domain/book.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import {
  type CatalogueServer,
  simControl,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import { waitFor } from '../../support/server.js';
import { type WsMessage, WsTestClient } from '../../support/ws-client.js';

type Level = [number, number, ExchangeId];

let cat: CatalogueServer;
let wsUrl: string;
const clients: WsTestClient[] = [];

before(async () => {
  cat = await startCatalogueServer(40, {
    config: { catalogue: { sync: false }, websocket: { heartbeatMs: 200 } },
  });
  await cat.server.runtime.catalogSync.runAll();
  wsUrl = `${cat.server.url.replace(/^http/, 'ws')}/ws`;
});
after(async () => {
  for (const c of clients) c.close();
  await cat?.stop();
});

async function authed(): Promise<WsTestClient> {
  const client = await WsTestClient.open(wsUrl);
  clients.push(client);
  client.send({ type: 'auth', api_key: cat.server.adminKey });
  await client.next((m) => m.type === 'auth_ok');
  return client;
}

async function bet(): Promise<{ origin: Market; twins: Market[] }> {
  const links = new LinksRepo(cat.server.runtime.store.db);
  for (const m of [...cat.markets.values()].sort((a, b) => (a.svc_id < b.svc_id ? -1 : 1))) {
    if (m.status !== 'active' || m.outcomes.length !== 2 || !m.outcomes.every((o) => o.token_id)) continue;
    const twins = (await links.twins(m.svc_id)).filter(
      (l) => l.status === 'active' && l.confidence_tier === 'HIGH' && l.exchange !== m.exchange,
    );
    if (twins.length >= 2) return { origin: m, twins: twins.map((t) => cat.markets.get(t.svc_id) as Market) };
  }
  assert.fail('no proposition listed on three venues');
}

/** Each venue's own book of the yes outcome, straight from its simulator (through its adapter). */
async function venueBooks(
  markets: Market[],
): Promise<Array<{ exchange: ExchangeId; bids: BookLevel[]; asks: BookLevel[] }>> {
  return Promise.all(
    markets.map(async (m) => {
      const sim = cat.sims.get(m.exchange);
      assert.ok(sim?.adapter.marketData.fetchOrderBook);
      const yes = m.outcomes.find((o) => o.name.toLowerCase() === 'yes')?.name ?? 'Yes';
      const book = await sim.adapter.marketData.fetchOrderBook(venueContext(), m, yes);
      return { exchange: m.exchange, bids: book.bids, asks: book.asks };
    }),
  );
}

/** The merge recomputed here: by price (best first), a tie by exchange id; `depth` levels a side. */
function merge(books: Array<{ exchange: ExchangeId; bids: BookLevel[]; asks: BookLevel[] }>, depth: number) {
  const side = (which: 'bids' | 'asks') => {
    const all: Level[] = books.flatMap((b) =>
      b[which].filter(([, s]) => s > 0).map(([p, s]): Level => [p, s, b.exchange]),
    );
    all.sort((a, b) =>
      a[0] !== b[0] ? (which === 'asks' ? a[0] - b[0] : b[0] - a[0]) : a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0,
    );
    return all.slice(0, depth);
  };
  return { bids: side('bids'), asks: side('asks') };
}

/** What a client holds after replaying one consolidated subscription's messages, and their server_seq values. */
function replay(messages: readonly WsMessage[], svcId: string) {
  let bids: Level[] = [];
  let asks: Level[] = [];
  let venues: Array<{ book_state: string }> = [];
  const seqs: number[] = [];
  for (const m of messages) {
    if (m.svc_id !== svcId || m.consolidated !== true) continue;
    seqs.push(m.server_seq as number);
    if (m.type === 'orderbook') {
      bids = m.bids as Level[];
      asks = m.asks as Level[];
    }
    if (m.type === 'orderbook_delta') {
      for (const c of m.changes as Array<{
        side: 'bid' | 'ask';
        price: number;
        size: number;
        exchange: ExchangeId;
      }>) {
        const list = c.side === 'bid' ? bids : asks;
        const kept = list.filter((l) => !(l[0] === c.price && l[2] === c.exchange));
        if (c.size > 0) kept.push([c.price, c.size, c.exchange]);
        kept.sort((a, b) =>
          a[0] !== b[0] ? (c.side === 'ask' ? a[0] - b[0] : b[0] - a[0]) : a[2] < b[2] ? -1 : 1,
        );
        if (c.side === 'bid') bids = kept;
        else asks = kept;
      }
    }
    if (m.type === 'orderbook' || m.type === 'orderbook_delta') venues = m.venues as typeof venues;
  }
  return { bids, asks, venues, seqs };
}

test('a consolidated subscription replays to the merge of every venue’s book, before and after they move', async () => {
  const { origin, twins } = await bet();
  const all = [origin, ...twins];
  const depth = 8;
  const client = await authed();
  const from = client.mark;
  client.send({
    type: 'subscribe',
    markets: [{ svc_id: origin.svc_id, outcome: 'yes', consolidated: true, depth }],
  });
  const first = await client.next((m) => m.type === 'orderbook' && m.svc_id === origin.svc_id, from);
  assert.equal(first.server_seq, 1);
  assert.equal(first.consolidated, true);
  assert.equal(first.kind, 'snapshot');
  const listed = (first.venues as Array<{ svc_id: string; exchange: string }>).map((v) => v.svc_id);
  assert.deepEqual([...listed].sort(), all.map((m) => m.svc_id).sort());

  const check = async (what: string) => {
    const want = merge(await venueBooks(all), depth);
    await waitFor(
      async () => {
        const r = replay(client.messages.slice(from), origin.svc_id);
        return r.venues.every((v) => v.book_state === 'fresh') &&
          isDeepStrictEqual([r.bids, r.asks], [want.bids, want.asks])
          ? true
          : undefined;
      },
      10_000,
      what,
    );
    assert.ok(
      new Set([...want.bids, ...want.asks].map((l) => l[2])).size >= 2,
      'levels of several exchanges',
    );
  };
  await check('the merged snapshot');
  for (const m of all) await simControl(cat, m.exchange, 'POST', 'advance', { steps: 3 });
  await check('the merged book after the venues moved');
  const deltas = client.messages
    .slice(from)
    .filter((m) => m.type === 'orderbook_delta' && m.svc_id === origin.svc_id);
  assert.ok(deltas.length > 0, 'the move arrived as deltas');
  for (const d of deltas) for (const c of d.changes as Array<{ exchange: string }>) assert.ok(c.exchange);

  // resync: a fresh snapshot, next in the same sequence.
  const before = client.mark;
  client.send({ type: 'resync', svc_id: origin.svc_id, outcome: 'yes', consolidated: true });
  const again = await client.next((m) => m.type === 'orderbook' && m.svc_id === origin.svc_id, before);
  const { seqs } = replay(client.messages.slice(from), origin.svc_id);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    'server_seq counts 1, 2, 3… per subscription',
  );
  assert.equal(again.server_seq, seqs.at(-1));

  // Unsubscribing ends it; a plain subscription of the same market is its own, numbered from 1.
  client.send({
    type: 'unsubscribe',
    markets: [{ svc_id: origin.svc_id, outcome: 'yes', consolidated: true }],
  });
  const plainFrom = client.mark;
  client.send({ type: 'subscribe', markets: [{ svc_id: origin.svc_id, outcome: 'yes' }] });
  const plain = await client.next(
    (m) => m.type === 'orderbook' && m.svc_id === origin.svc_id && m.consolidated === undefined,
    plainFrom,
  );
  assert.equal(plain.server_seq, 1);
  assert.equal(plain.exchange, origin.exchange);
  assert.equal(client.messages.slice(plainFrom).filter((m) => m.consolidated === true).length, 0);
});

test('consolidated must be a boolean', async () => {
  const { origin } = await bet();
  const client = await authed();
  const from = client.mark;
  client.send({ type: 'subscribe', markets: [{ svc_id: origin.svc_id, consolidated: 'yes' }] });
  const err = await client.next((m) => m.type === 'error', from);
  assert.equal(err.code, 4000);
});

test('a venue whose stream drops: a snapshot without its levels and marked stale, then one with them back', async () => {
  // A bet with a polymarket leg (its simulator can drop its stream).
  const links = new LinksRepo(cat.server.runtime.store.db);
  let chosen: { origin: Market; all: Market[] } | null = null;
  for (const m of [...cat.markets.values()].sort((a, b) => (a.svc_id < b.svc_id ? -1 : 1))) {
    if (m.exchange !== 'polymarket' || m.status !== 'active' || !m.outcomes.every((o) => o.token_id))
      continue;
    const twins = (await links.twins(m.svc_id)).filter(
      (l) => l.status === 'active' && l.confidence_tier === 'HIGH',
    );
    if (twins.length >= 1) {
      chosen = { origin: m, all: [m, ...twins.map((t) => cat.markets.get(t.svc_id) as Market)] };
      break;
    }
  }
  assert.ok(chosen, 'a polymarket market with a twin');
  const { origin, all } = chosen;
  const depth = 5;
  const client = await authed();
  const from = client.mark;
  client.send({ type: 'subscribe', markets: [{ svc_id: origin.svc_id, consolidated: true, depth }] });
  const allFresh = (m: WsMessage) =>
    m.type === 'orderbook' &&
    m.svc_id === origin.svc_id &&
    (m.venues as Array<{ book_state: string }>).every((v) => v.book_state === 'fresh');
  await client.next(allFresh, from);
  const dropAt = client.mark;
  await simControl(cat, 'polymarket', 'POST', 'ws/drop');
  const stale = await client.next(
    (m) =>
      m.type === 'orderbook' &&
      m.svc_id === origin.svc_id &&
      (m.venues as Array<{ svc_id: string; book_state: string }>).some(
        (v) => v.svc_id === origin.svc_id && v.book_state === 'stale',
      ),
    dropAt,
  );
  assert.equal(stale.book_state, 'stale');
  for (const l of [...(stale.bids as Level[]), ...(stale.asks as Level[])])
    assert.notEqual(l[2], 'polymarket');
  // The stream comes back with a fresh snapshot of the venue: the merged book is whole again, and matches.
  await client.next(allFresh, dropAt);
  const want = merge(await venueBooks(all), depth);
  await waitFor(async () => {
    const r = replay(client.messages.slice(from), origin.svc_id);
    return isDeepStrictEqual([r.bids, r.asks], [want.bids, want.asks]) ? true : undefined;
  }, 10_000);
  const { seqs } = replay(client.messages.slice(from), origin.svc_id);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    'server_seq without a gap across the drop',
  );
});
