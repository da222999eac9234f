// BookHub's fan-out rules, with the venue side played by a stand-in for LiveBooks that the test drives (each new
// book state, a stale signal) and a transport whose congestion the test sets: snapshot first, deltas cut to each
// subscription's depth, server_seq without gaps, stale → resync_required → snapshot, a slow reader conflated and
// caught up, a hopeless one dropped, and the upstream hold released with the last subscription.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BookLevel, OrderBook } from '../../../src/domain/book.js';
import { applyBookChanges } from '../../../src/domain/book-diff.js';
import type { BookChange } from '../../../src/domain/stream.js';
import { BookHub, type BookTransport } from '../../../src/realtime/book-hub.js';
import type { BookObserver, LiveBooks } from '../../../src/services/market-data/live-books.js';
import type { MarketTarget } from '../../../src/services/market-data/market-target.js';

class Upstream {
  observer: BookObserver | null = null;
  book: OrderBook | null = null;
  released = 0;
  hold(_v: unknown, _m: unknown, _o: unknown, observer: BookObserver) {
    this.observer = observer;
    return { current: () => this.book, release: () => (this.released += 1) };
  }
  move(bids: BookLevel[], asks: BookLevel[]): void {
    this.book = { ...BOOK, bids, asks, timestamp: new Date(1_700_000_000_000 + this.n++).toISOString() };
    this.observer?.change?.(this.book);
  }
  private n = 0;
}

const BOOK: OrderBook = {
  exchange: 'polymarket',
  market_id: '0xabc',
  outcome: 'Yes',
  token_id: 't1',
  bids: [],
  asks: [],
  timestamp: new Date(1_700_000_000_000).toISOString(),
  tick_size: 0.01,
};

const target = {
  venue: { descriptor: { id: 'polymarket' } },
  market: { svc_id: 'polymarket:0xabc', exchange_market_id: '0xabc', question: 'Q?' },
  outcome: { name: 'Yes', token_id: 't1' },
} as unknown as MarketTarget;

class Client implements BookTransport {
  frames: Array<Record<string, unknown>> = [];
  state: 'ok' | 'slow' | 'hopeless' = 'ok';
  dropped: string | null = null;
  congestion() {
    return this.state;
  }
  send(frame: string) {
    this.frames.push(JSON.parse(frame) as Record<string, unknown>);
  }
  drop(reason: string) {
    this.dropped = reason;
  }
  types() {
    return this.frames.map((f) => f.type);
  }
  replayed() {
    let bids: BookLevel[] = [];
    let asks: BookLevel[] = [];
    for (const f of this.frames) {
      if (f.type === 'orderbook') [bids, asks] = [f.bids as BookLevel[], f.asks as BookLevel[]];
      if (f.type === 'orderbook_delta') {
        bids = applyBookChanges(bids, f.changes as BookChange[], 'bid');
        asks = applyBookChanges(asks, f.changes as BookChange[], 'ask');
      }
    }
    return { bids, asks };
  }
  seqs() {
    return this.frames.map((f) => f.server_seq);
  }
}

function setup() {
  const upstream = new Upstream();
  const hub = new BookHub(upstream as unknown as LiveBooks, { staleAfterMs: 30_000, now: () => 42 });
  return { upstream, hub };
}

const levels = (...prices: number[]): BookLevel[] => prices.map((p, i) => [p, 10 + i]);

test('a snapshot first, then deltas within each depth only; server_seq counts without gaps', () => {
  const { upstream, hub } = setup();
  upstream.book = { ...BOOK, bids: levels(0.5, 0.49, 0.48), asks: levels(0.52, 0.53, 0.54) };
  const shallow = new Client();
  const deep = new Client();
  hub.subscribe(target, 1, shallow);
  hub.subscribe(target, 3, deep);
  assert.deepEqual(shallow.frames[0]?.bids, [[0.5, 10]]);
  assert.equal(shallow.frames[0]?.book_state, 'fresh');
  // Only the third bid level moves: the depth-1 client hears nothing, the depth-3 client a one-level delta.
  upstream.move(
    [
      [0.5, 10],
      [0.49, 11],
      [0.48, 99],
    ],
    levels(0.52, 0.53, 0.54),
  );
  assert.deepEqual(shallow.types(), ['orderbook']);
  assert.deepEqual(deep.frames[1]?.changes, [{ side: 'bid', price: 0.48, size: 99 }]);
  // The best bid leaves: at depth 1 the next level enters in its place.
  upstream.move(
    [
      [0.49, 11],
      [0.48, 99],
    ],
    levels(0.52, 0.53, 0.54),
  );
  for (const [client, depth] of [
    [shallow, 1],
    [deep, 3],
  ] as const) {
    assert.deepEqual(client.replayed(), {
      bids: upstream.book?.bids.slice(0, depth),
      asks: upstream.book?.asks.slice(0, depth),
    });
    assert.deepEqual(
      client.seqs(),
      client.frames.map((_, i) => i + 1),
    );
  }
});

test('stale is announced, then resync_required and a fresh snapshot when the venue is back', () => {
  const { upstream, hub } = setup();
  upstream.book = { ...BOOK, bids: levels(0.5), asks: levels(0.6) };
  const client = new Client();
  hub.subscribe(target, 10, client);
  upstream.observer?.stale?.('disconnected');
  assert.equal(client.frames[1]?.book_state, 'stale');
  assert.equal(client.frames[1]?.feed_state, 'disconnected');
  assert.deepEqual(client.frames[1]?.changes, []);
  upstream.move(levels(0.45), levels(0.55));
  assert.deepEqual(client.types(), ['orderbook', 'orderbook_delta', 'resync_required', 'orderbook']);
  assert.equal(client.frames[3]?.feed_state, 'healthy');
  assert.deepEqual(client.replayed(), { bids: levels(0.45), asks: levels(0.55) });
  assert.deepEqual(client.seqs(), [1, 2, 3, 4]);
});

test('a book not known yet is sent as soon as it arrives', () => {
  const { upstream, hub } = setup();
  const client = new Client();
  hub.subscribe(target, 10, client);
  assert.deepEqual(client.frames, []);
  upstream.move(levels(0.3), levels(0.4));
  assert.deepEqual(client.types(), ['orderbook']);
});

test('a slow reader is told once and conflated; when it drains it gets the latest book as a snapshot', () => {
  const { upstream, hub } = setup();
  upstream.book = { ...BOOK, bids: levels(0.5), asks: levels(0.6) };
  const client = new Client();
  const sub = hub.subscribe(target, 10, client);
  client.state = 'slow';
  upstream.move(levels(0.49), levels(0.6));
  upstream.move(levels(0.48), levels(0.6));
  upstream.move(levels(0.47), levels(0.61));
  assert.deepEqual(client.types(), ['orderbook', 'slow_reader']);
  client.state = 'ok';
  sub.catchUp();
  assert.deepEqual(client.types(), ['orderbook', 'slow_reader', 'orderbook']);
  upstream.move(levels(0.46), levels(0.61));
  assert.deepEqual(client.replayed(), { bids: levels(0.46), asks: levels(0.61) });
  assert.deepEqual(client.seqs(), [1, 2, 3, 4]);
});

test('a hopeless reader is dropped; the last unsubscribe releases the upstream hold', () => {
  const { upstream, hub } = setup();
  upstream.book = { ...BOOK, bids: levels(0.5), asks: levels(0.6) };
  const a = new Client();
  const b = new Client();
  const subA = hub.subscribe(target, 10, a);
  const subB = hub.subscribe(target, 10, b);
  assert.equal(hub.heldBooks, 1, 'one upstream hold for two clients');
  a.state = 'hopeless';
  upstream.move(levels(0.49), levels(0.6));
  assert.ok(a.dropped);
  assert.deepEqual(b.types(), ['orderbook', 'orderbook_delta']);
  hub.unsubscribe(subA);
  assert.equal(upstream.released, 0);
  hub.unsubscribe(subB);
  assert.equal(upstream.released, 1);
  assert.equal(hub.heldBooks, 0);
});
