// Contract: market streams (native or polled) for every registered venue that declares `websocket`: a snapshot
// first, deltas that keep a local copy equal to the REST book, and, on native streams, a dropped connection that
// reconnects, resubscribes and sends a fresh snapshot without the consumer doing anything.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BookLevel } from '../../../src/domain/book.js';
import { applyBookChanges } from '../../../src/domain/book-diff.js';
import type { Market } from '../../../src/domain/market.js';
import type { MarketStreamEvent } from '../../../src/domain/stream.js';
import type { MarketStream } from '../../../src/venues/port.js';
import { waitFor } from '../../support/server.js';
import {
  liquidMarkets,
  registeredVenues,
  rejectsWithStatus,
  silentLogger,
  startVenue,
  type VenueUnderTest,
} from './harness.js';

/** Reads a stream in the background, keeping one local book per instrument and every event seen. */
class StreamReader {
  readonly events: MarketStreamEvent[] = [];
  readonly books = new Map<string, { bids: BookLevel[]; asks: BookLevel[] }>();
  private done: Promise<void>;

  constructor(stream: MarketStream) {
    this.done = (async () => {
      for await (const event of stream) {
        this.events.push(event);
        if (event.type === 'book_snapshot') {
          const { book } = event;
          this.books.set(book.token_id, { bids: book.bids, asks: book.asks });
        } else if (event.type === 'book_delta') {
          const local = this.books.get(event.instrument.token_id);
          assert.ok(local, `delta for ${event.instrument.token_id} before its snapshot`);
          local.bids = applyBookChanges(local.bids, event.changes, 'bid');
          local.asks = applyBookChanges(local.asks, event.changes, 'ask');
        }
      }
    })();
  }

  count(type: MarketStreamEvent['type']): number {
    return this.events.filter((e) => e.type === type).length;
  }

  finished(): Promise<void> {
    return this.done;
  }
}

for (const id of registeredVenues()) {
  describe(`${id}: market stream`, () => {
    let venue: VenueUnderTest;
    let market: Market;
    let declared = false;
    before(async () => {
      venue = await startVenue(id);
      declared = venue.adapter.descriptor.has.websocket !== 'unsupported';
      if (declared) [market] = (await liquidMarkets(venue, 1)) as [Market];
    });
    after(() => venue?.close());

    /** Waits until the local copy of the book equals what REST says now (books move only on advance). */
    async function converges(reader: StreamReader, outcome: string): Promise<void> {
      const { marketData } = venue.adapter;
      assert.ok(marketData.fetchOrderBook);
      const rest = await marketData.fetchOrderBook(venue.ctx(), market, outcome);
      await waitFor(
        async () => {
          const local = reader.books.get(rest.token_id);
          return local !== undefined &&
            JSON.stringify(local.bids) === JSON.stringify(rest.bids) &&
            JSON.stringify(local.asks) === JSON.stringify(rest.asks)
            ? true
            : undefined;
        },
        10_000,
        `${id} stream book to match REST for ${market.svc_id} ${outcome}`,
      );
    }

    test('snapshot first, then deltas that keep a local book equal to REST', async (t) => {
      const { marketData } = venue.adapter;
      if (!declared) {
        assert.equal(marketData.openMarketStream, undefined);
        return t.skip('websocket not declared');
      }
      assert.ok(marketData.openMarketStream);
      const controller = new AbortController();
      const stream = marketData.openMarketStream({ signal: controller.signal, logger: silentLogger });
      const reader = new StreamReader(stream);
      try {
        const outcome = market.outcomes[0]?.name as string;
        stream.subscribe([{ market, outcome }]);
        await waitFor(async () => reader.count('book_snapshot') > 0 || undefined, 10_000, 'first snapshot');
        const first = reader.events.find((e) => e.type === 'book_snapshot');
        assert.equal(first?.type === 'book_snapshot' && first.book.market_id, market.exchange_market_id);
        await converges(reader, outcome);
        const before = reader.events.length;
        await venue.sim.advance(3);
        await waitFor(
          async () => reader.events.length > before || undefined,
          10_000,
          'updates after advance',
        );
        await converges(reader, outcome);
      } finally {
        await stream.close();
        await reader.finished();
      }
    });

    test('a dropped connection reconnects, resubscribes and resnapshots by itself', async (t) => {
      const { marketData, descriptor } = venue.adapter;
      if (descriptor.has.websocket !== 'supported') return t.skip('no native stream to drop');
      assert.ok(marketData.openMarketStream);
      const stream = marketData.openMarketStream({
        signal: new AbortController().signal,
        logger: silentLogger,
      });
      const reader = new StreamReader(stream);
      try {
        const outcome = market.outcomes[0]?.name as string;
        stream.subscribe([{ market, outcome }]);
        await waitFor(async () => reader.count('book_snapshot') > 0 || undefined, 10_000, 'first snapshot');
        assert.ok((await venue.sim.dropStreams()) > 0, 'the simulator had no stream connection to drop');
        await waitFor(
          async () => reader.count('book_snapshot') > 1 || undefined,
          15_000,
          'snapshot after reconnect',
        );
        const states = reader.events
          .filter((e) => e.type === 'feed_state')
          .map((e) => e.type === 'feed_state' && e.state);
        assert.ok(
          states.includes('disconnected') && states.at(-1) === 'healthy',
          `feed states ${states.join(',')}`,
        );
        await venue.sim.advance(2);
        await converges(reader, outcome);
      } finally {
        await stream.close();
        await reader.finished();
      }
    });

    test('subscribing to an unknown outcome is refused with 400', async (t) => {
      const { marketData } = venue.adapter;
      if (!declared || !marketData.openMarketStream) return t.skip('websocket not declared');
      const stream = marketData.openMarketStream({
        signal: new AbortController().signal,
        logger: silentLogger,
      });
      await rejectsWithStatus(
        (async () => stream.subscribe([{ market, outcome: 'no-such-outcome' }]))(),
        400,
      );
      await stream.close();
    });
  });
}
