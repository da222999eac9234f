import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BookLevel, OrderBook } from '../../../../src/domain/book.js';
import { applyBookChanges } from '../../../../src/domain/book-diff.js';
import type { Market } from '../../../../src/domain/market.js';
import type { MarketStreamEvent } from '../../../../src/domain/stream.js';
import { AppError } from '../../../../src/errors/app-error.js';
import { pollingMarketStream } from '../../../../src/venues/shared/polling-market-stream.js';
import { silentLogger } from '../../../contract/venues/harness.js';
import { waitFor } from '../../../support/server.js';

const market = { exchange: 'opinion', exchange_market_id: '42', outcomes: [{ name: 'Yes' }] } as Market;

test('a snapshot first, then only changed levels; a failed poll marks the feed degraded and the book resynced, recovery a fresh snapshot', async () => {
  let bids: BookLevel[] = [[0.4, 10]];
  let fail = false;
  const stream = pollingMarketStream(
    { signal: new AbortController().signal, logger: silentLogger },
    {
      venue: 'opinion',
      intervalMs: 20,
      instrument: ({ outcome }) => {
        if (outcome !== 'Yes') throw new AppError('validation_error', `unknown outcome ${outcome}`);
        return { market_id: '42', outcome, token_id: 't-yes' };
      },
      fetchBook: async (): Promise<OrderBook> => {
        if (fail) throw new Error('venue down');
        return {
          exchange: 'opinion',
          market_id: '42',
          outcome: 'Yes',
          token_id: 't-yes',
          bids,
          asks: [[0.6, 5]],
          timestamp: new Date().toISOString(),
          tick_size: 0.01,
        };
      },
    },
  );
  assert.throws(() => stream.subscribe([{ market, outcome: 'No' }]), AppError);
  const events: MarketStreamEvent[] = [];
  const reading = (async () => {
    for await (const e of stream) events.push(e);
  })();
  stream.subscribe([{ market, outcome: 'Yes' }]);
  await waitFor(async () => events.length > 0 || undefined, 10_000, 'snapshot');
  assert.equal(events[0]?.type, 'book_snapshot');
  bids = [
    [0.45, 3],
    [0.4, 10],
  ];
  await waitFor(async () => events.some((e) => e.type === 'book_delta') || undefined, 10_000, 'delta');
  const delta = events.find((e) => e.type === 'book_delta');
  assert.ok(delta?.type === 'book_delta');
  assert.deepEqual(delta.changes, [{ side: 'bid', price: 0.45, size: 3 }]);
  assert.deepEqual(applyBookChanges([[0.4, 10]], delta.changes, 'bid'), bids);
  fail = true;
  await waitFor(
    async () => events.some((e) => e.type === 'feed_state' && e.state === 'degraded') || undefined,
    10_000,
    'degraded',
  );
  const resync = events.findIndex((e) => e.type === 'resync');
  assert.ok(resync > 0, 'the book whose poll failed is not announced for a resync');
  fail = false;
  await waitFor(
    async () => events.some((e) => e.type === 'feed_state' && e.state === 'healthy') || undefined,
    10_000,
    'healthy again',
  );
  await waitFor(
    async () => events.slice(resync).some((e) => e.type === 'book_snapshot') || undefined,
    10_000,
    'a fresh snapshot after the resync',
  );
  assert.equal(events.filter((e) => e.type === 'book_delta').length, 1, 'no delta without a change');
  await stream.close();
  await reading;
});
