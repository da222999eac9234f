// The arbitrage channel's scan is driven by the books it follows (through a real BookHub over a stand-in for
// LiveBooks that the test drives): a book that moves re-prices only the directions that use it, a direction priced
// on the same two book states is priced once for every subscription, a change that leaves prices and sizes alone
// sends nothing, and opens, updates and closes past the per-connection rate wait and go out in their latest state.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BookLevel, OrderBook } from '../../../src/domain/book.js';
import type { FeeSchedule } from '../../../src/domain/fees/schedule.js';
import {
  ArbitrageScanner,
  ArbitrageSubscription,
  EVENTS_BURST,
} from '../../../src/realtime/arbitrage-hub.js';
import { BookHub, type BookTransport } from '../../../src/realtime/book-hub.js';
import { bookKey, directionsOf } from '../../../src/services/crossvenue/arbitrage-opportunity.js';
import type { BookObserver } from '../../../src/services/market-data/live-books.js';
import type { MarketTarget } from '../../../src/services/market-data/market-target.js';
import type { SameMarketPair } from '../../../src/store/links-repo.js';

/** Books the test moves, by token id. */
class Upstream {
  readonly observers = new Map<string, BookObserver>();
  readonly books = new Map<string, OrderBook>();
  private n = 0;
  hold(_v: unknown, _m: unknown, o: { token_id: string }, observer: BookObserver) {
    this.observers.set(o.token_id, observer);
    return {
      current: () => this.books.get(o.token_id) ?? null,
      release: () => this.observers.delete(o.token_id),
    };
  }
  set(token: string, asks: BookLevel[], notify = true): void {
    const book: OrderBook = {
      exchange: 'polymarket',
      market_id: token,
      outcome: 'Yes',
      token_id: token,
      bids: [],
      asks,
      timestamp: new Date(1_700_000_000_000 + this.n++).toISOString(),
      tick_size: 0.01,
    };
    this.books.set(token, book);
    if (notify) this.observers.get(token)?.change?.(book);
  }
  stale(token: string): void {
    this.observers.get(token)?.stale?.('disconnected');
  }
}

class Client implements BookTransport {
  frames: Array<Record<string, unknown>> = [];
  congestion() {
    return 'ok' as const;
  }
  send(frame: string) {
    this.frames.push(JSON.parse(frame) as Record<string, unknown>);
  }
  drop() {}
  kinds() {
    return this.frames.map((f) => f.kind);
  }
}

function targets(exchange: 'polymarket' | 'kalshi', id: string, websocket = 'supported'): MarketTarget[] {
  const market = { svc_id: `${exchange}:${id}`, exchange_market_id: id, question: id, tick_size: 0.01 };
  const venue = { descriptor: { id: exchange, has: { websocket } } };
  return ['Yes', 'No'].map((name) => ({
    venue,
    market,
    outcome: { name, token_id: `${id}-${name}` },
  })) as unknown as MarketTarget[];
}

const NO_FEE: FeeSchedule = { venue: 'polymarket', rate: '0', exponent: 1 };

/** `n` links, each A/B; A's Yes at 0.40 and B's No at 0.55 cross (edge 500 bps); the other direction does not. */
function world(n: number, options: { polled?: boolean; maxPolledBooks?: number } = {}) {
  const up = new Upstream();
  const directions = [];
  const schedules = new Map<string, FeeSchedule>();
  for (let i = 0; i < n; i++) {
    const a = targets('kalshi', `A${i}`, options.polled ? 'polling' : 'supported');
    const b = targets('polymarket', `B${i}`);
    const pair: SameMarketPair = {
      a: { svc_id: `kalshi:A${i}`, exchange: 'kalshi', status: 'active' },
      b: { svc_id: `polymarket:B${i}`, exchange: 'polymarket', status: 'active' },
      confidence: 0.97,
      confidence_tier: 'HIGH',
      source: 'test',
      inverted: false,
    };
    const dirs = directionsOf(pair, a, b);
    assert.ok(Array.isArray(dirs));
    directions.push(...dirs);
    for (const t of [...a, ...b]) schedules.set(bookKey(t), NO_FEE);
    up.set(`A${i}-Yes`, [[0.4, 50]], false);
    up.set(`A${i}-No`, [[0.62, 50]], false);
    up.set(`B${i}-Yes`, [[0.61, 50]], false);
    up.set(`B${i}-No`, [[0.55, 50]], false);
  }
  const scan = {
    exchanges: ['kalshi', 'polymarket'] as const,
    pairs: n,
    directions,
    skipped: [],
    failed: [],
    schedules,
  };
  return {
    up,
    scan: { ...scan, exchanges: [...scan.exchanges] },
    hub: new BookHub(up, {
      staleAfterMs: 1_000,
      ...(options.maxPolledBooks !== undefined ? { maxPolledBooks: options.maxPolledBooks } : {}),
    }),
  };
}

const settle = () => new Promise((r) => setImmediate(r));
const filter = {
  exchanges: ['kalshi', 'polymarket'] as Array<'kalshi' | 'polymarket'>,
  minEdgeBps: null,
  includeUnsafe: false,
};

test('a book that moves re-prices only its directions; two subscriptions share each pricing', async () => {
  const { up, scan, hub } = world(3);
  const scanner = new ArbitrageScanner();
  const one = new Client();
  const two = new Client();
  const s1 = new ArbitrageSubscription(hub, scanner, scan, filter, one, 'c1');
  const s2 = new ArbitrageSubscription(hub, scanner, scan, filter, two, 'c2');
  assert.deepEqual(one.kinds(), ['ready', 'open', 'open', 'open']);
  assert.deepEqual(two.kinds(), ['ready', 'open', 'open', 'open']);
  assert.equal(one.frames[0]?.books, 12);
  // 6 directions priced once, for both subscriptions.
  assert.equal(scanner.priced, 6);
  // A new state of one book whose levels did not move wakes nothing (the hub sends no delta).
  up.set('A1-Yes', [[0.4, 50]]);
  await settle();
  assert.equal(scanner.priced, 6);
  assert.deepEqual(one.kinds(), ['ready', 'open', 'open', 'open']);
  // Deeper: only the one direction that buys A1's Yes is priced again (once for both), and updated.
  up.set('A1-Yes', [[0.4, 80]]);
  await settle();
  assert.equal(scanner.priced, 7);
  assert.equal(one.frames.at(-1)?.kind, 'update');
  up.set('A1-Yes', [[0.47, 80]]);
  await settle();
  const closed = one.frames.at(-1) as Record<string, unknown>;
  assert.equal(closed.kind, 'close');
  assert.equal(closed.reason, 'edge_gone');
  // A stale book closes its direction as book_stale.
  up.stale('A2-Yes');
  await settle();
  assert.equal(one.frames.at(-1)?.reason, 'book_stale');
  assert.deepEqual(
    one.frames.map((f) => f.server_seq),
    one.frames.map((_, i) => i + 1),
  );
  assert.deepEqual(two.kinds(), one.kinds());
  s1.close();
  s2.close();
  assert.equal(up.observers.size, 0, 'every book released with the last subscription');
});

test('past EVENTS_BURST, directions wait for the bucket and go out in their latest state', async () => {
  const { up, scan, hub } = world(EVENTS_BURST + 5);
  let now = 1_000_000;
  const client = new Client();
  const sub = new ArbitrageSubscription(hub, new ArbitrageScanner(), scan, filter, client, 'c1', () => now);
  assert.equal(client.kinds().filter((k) => k === 'open').length, EVENTS_BURST);
  // One waiting direction closes before its turn: it is never sent at all.
  const waiting = `A${EVENTS_BURST + 4}-Yes`;
  up.set(waiting, [[0.5, 50]]);
  await settle();
  now += 10_000;
  for (let i = 0; i < 100 && client.kinds().filter((k) => k === 'open').length < EVENTS_BURST + 4; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const opened = client.frames.filter((f) => f.kind === 'open');
  assert.equal(opened.length, EVENTS_BURST + 4);
  assert.ok(!client.frames.some((f) => f.kind === 'close'));
  assert.ok(
    !opened.some((f) =>
      (f.opportunity as { legs: Array<{ market_id: string }> }).legs.some(
        (l) => `${l.market_id}-Yes` === waiting,
      ),
    ),
  );
  sub.close();
});

test("books of a polled venue are held to the customer's fair share of the pool; what is refused is named", () => {
  // Four polled books (A's Yes and No of two links) in a pool of 4: a customer alone gets half.
  const { scan, hub } = world(2, { polled: true, maxPolledBooks: 4 });
  const client = new Client();
  const sub = new ArbitrageSubscription(hub, new ArbitrageScanner(), scan, filter, client, 'c1');
  const ready = client.frames[0] as {
    directions: number;
    left_out: Array<{ svc_id: string; reason: string }>;
  };
  assert.equal(ready.directions, 2);
  assert.ok(ready.left_out.length > 0);
  assert.ok(ready.left_out.every((l) => /fair share/.test(l.reason) && l.svc_id.startsWith('kalshi:')));
  sub.close();
});
