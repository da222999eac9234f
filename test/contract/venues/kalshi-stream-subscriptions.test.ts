// The Kalshi market stream against the Kalshi simulator over loopback: an unsubscribe while the subscribe it undoes
// is still unanswered leaves no subscription behind at the exchange, and a market unsubscribed and subscribed again
// before the first answer holds one subscription per channel, not two. The exchange's WebSocket is ordered, so a
// later market's snapshot proves every earlier command was processed: what the simulator lists then is final.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Market } from '../../../src/domain/market.js';
import type { MarketStreamEvent } from '../../../src/domain/stream.js';
import type { MarketStream } from '../../../src/venues/port.js';
import { waitFor } from '../../support/server.js';
import { liquidMarkets, silentLogger, startVenue, type VenueUnderTest } from './harness.js';

let venue: VenueUnderTest;
let markets: Market[];
before(async () => {
  venue = await startVenue('kalshi', { size: 150 });
  markets = await liquidMarkets(venue, 6);
  assert.ok(markets.length >= 6, 'six liquid kalshi markets');
});
after(() => venue?.close());

interface Sub {
  channel: string;
  sid: number;
  market_tickers: string[] | null;
}

async function subscriptions(ticker: string): Promise<Sub[]> {
  const res = await fetch(`${venue.controlUrl}/__sim/kalshi/subscriptions`);
  assert.equal(res.status, 200);
  const { subscriptions: all } = (await res.json()) as { subscriptions: Sub[] };
  return all.filter((s) => s.market_tickers?.includes(ticker));
}

function reader(stream: MarketStream): MarketStreamEvent[] {
  const events: MarketStreamEvent[] = [];
  void (async () => {
    for await (const e of stream) events.push(e);
  })();
  return events;
}

/** Subscribes `m` and waits for its snapshot: every command sent before it has been processed by then. */
async function barrier(stream: MarketStream, events: MarketStreamEvent[], m: Market): Promise<void> {
  stream.subscribe([{ market: m, outcome: m.outcomes[0]?.name as string }]);
  await waitFor(
    async () =>
      events.some((e) => e.type === 'book_snapshot' && e.book.market_id === m.exchange_market_id) ||
      undefined,
    10_000,
    `${m.exchange_market_id} snapshot`,
  );
}

test('an unsubscribe before the subscribe is answered leaves nothing subscribed at the exchange', async () => {
  const { marketData } = venue.adapter;
  assert.ok(marketData.openMarketStream);
  const stream = marketData.openMarketStream({ signal: new AbortController().signal, logger: silentLogger });
  const events = reader(stream);
  try {
    const [a, b, c, d] = markets as [Market, Market, Market, Market];
    await barrier(stream, events, a);
    const target = { market: b, outcome: b.outcomes[0]?.name as string };
    // Same tick: the subscribe command is on the wire, its answer (the subscription ids) not yet back.
    stream.subscribe([target]);
    stream.unsubscribe([target]);
    // c's snapshot: the exchange made b's subscriptions and answered before it; d's: whatever we sent on hearing
    // that answer (an unsubscribe of b) was processed too.
    await barrier(stream, events, c);
    await barrier(stream, events, d);
    assert.deepEqual(await subscriptions(b.exchange_market_id), [], 'no subscription of b is left');
    assert.ok(
      !events.some((e) => e.type === 'book_snapshot' && e.book.market_id === b.exchange_market_id),
      'nothing of b reaches the consumer',
    );
    assert.equal(
      (await subscriptions(a.exchange_market_id)).length,
      2,
      'a keeps its book and trade channels',
    );
  } finally {
    await stream.close();
  }
});

test('unsubscribed and subscribed again before the first answer: one subscription per channel', async () => {
  const { marketData } = venue.adapter;
  assert.ok(marketData.openMarketStream);
  const stream = marketData.openMarketStream({ signal: new AbortController().signal, logger: silentLogger });
  const events = reader(stream);
  try {
    const [, , , , e, f] = markets as [Market, Market, Market, Market, Market, Market];
    const [a] = markets as [Market];
    await barrier(stream, events, a);
    const target = { market: e, outcome: e.outcomes[0]?.name as string };
    stream.subscribe([target]);
    stream.unsubscribe([target]);
    stream.subscribe([target]);
    await waitFor(
      async () =>
        events.some((x) => x.type === 'book_snapshot' && x.book.market_id === e.exchange_market_id) ||
        undefined,
      10_000,
      'the resubscribed market’s snapshot',
    );
    await barrier(stream, events, f);
    const subs = await subscriptions(e.exchange_market_id);
    assert.deepEqual(subs.map((s) => s.channel).sort(), ['orderbook_delta', 'trade'], JSON.stringify(subs));
  } finally {
    await stream.close();
  }
});
