// HotBooks: which asked-for books get followed on a venue stream, for how long, and how many at most. The venue
// side is a stand-in that records holds and releases: what is tested is the bookkeeping, not a stream.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HotBooks } from '../../../../src/services/market-data/hot-books.js';
import type { BookHold, LiveBooks } from '../../../../src/services/market-data/live-books.js';
import type { MarketTarget } from '../../../../src/services/market-data/market-target.js';

class HoldLedger {
  readonly held = new Set<string>();
  refuse = false;
  hold(_venue: unknown, _market: unknown, outcome: { token_id: string }): BookHold {
    if (this.refuse) throw new Error('venue refused the subscription');
    this.held.add(outcome.token_id);
    return { current: () => null, release: () => this.held.delete(outcome.token_id) };
  }
}

function target(token: string, websocket: 'supported' | 'polling'): MarketTarget {
  return {
    venue: {
      descriptor: { has: { websocket } },
      marketData: { openMarketStream: () => undefined },
    },
    market: { svc_id: `polymarket:${token}` },
    outcome: { name: 'Yes', token_id: token },
  } as unknown as MarketTarget;
}

function setup(maxHeld = 10) {
  let now = 0;
  const ledger = new HoldLedger();
  const hot = new HotBooks(ledger as unknown as LiveBooks, { idleMs: 1_000, maxHeld, now: () => now });
  return { ledger, hot, advance: (ms: number) => (now += ms) };
}

test('a book on a venue with a native stream is held once however often it is asked for', () => {
  const { ledger, hot } = setup();
  try {
    hot.asked(target('a', 'supported'), 'a');
    hot.asked(target('a', 'supported'), 'a');
    assert.deepEqual([...ledger.held], ['a']);
    assert.equal(hot.size, 1);
  } finally {
    hot.close();
  }
});

test('a polled venue is never held: its stream would spend the same REST limit', () => {
  const { ledger, hot } = setup();
  try {
    hot.asked(target('p', 'polling'), 'p');
    assert.equal(ledger.held.size, 0);
  } finally {
    hot.close();
  }
});

test('a book nobody asked for within idleMs is released; one asked for again stays', () => {
  const { ledger, hot, advance } = setup();
  try {
    hot.asked(target('a', 'supported'), 'a');
    hot.asked(target('b', 'supported'), 'b');
    advance(600);
    hot.asked(target('b', 'supported'), 'b');
    advance(600);
    hot.sweep();
    assert.deepEqual([...ledger.held], ['b']);
    advance(1_000);
    hot.sweep();
    assert.equal(ledger.held.size, 0);
  } finally {
    hot.close();
  }
});

test('no more than maxHeld books are held; a refused subscription leaves nothing behind; close releases all', () => {
  const { ledger, hot } = setup(2);
  hot.asked(target('a', 'supported'), 'a');
  hot.asked(target('b', 'supported'), 'b');
  hot.asked(target('c', 'supported'), 'c');
  assert.deepEqual([...ledger.held].sort(), ['a', 'b']);
  hot.close();
  assert.equal(ledger.held.size, 0);
  const refused = setup();
  refused.ledger.refuse = true;
  refused.hot.asked(target('x', 'supported'), 'x');
  assert.equal(refused.hot.size, 0);
  refused.hot.close();
});
