// GET /trades through the real server over the five simulators: pages are the venue's own tape (compared with the
// adapter's answer), newest first, walked by next_cursor without repeats or gaps; the window and tier rules, the
// limit range, cursors bound to their query, the selector errors, 501 where an exchange has no public tape, 503
// when an exchange fails, and an empty page where the venue has no trade.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import {
  assertSelectorErrors,
  type CatalogueServer,
  simControl,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';

interface TradeRow {
  id: string;
  price: number;
  size: number;
  side: string;
  aggressor_side: string | null;
  timestamp: string;
  source_channel: string;
  outcome: string;
  tx_hash?: string | null;
  taker_address?: string | null;
}

interface TradesBody {
  svc_id: string;
  exchange: string;
  market_id: string;
  outcome: string;
  token_id: string;
  trades: TradeRow[];
  has_more: boolean;
  next_cursor: string | null;
}

const WITH_TAPE: ExchangeId[] = ['polymarket', 'kalshi', 'limitless', 'predictfun'];
const DAY = 86_400;

let cat: CatalogueServer;
before(async () => {
  cat = await startCatalogueServer(30);
  // Every simulator prints trades as it advances.
  for (const exchange of WITH_TAPE) await control(exchange, 'POST', 'advance', { steps: 20 });
});
after(async () => {
  await cat?.stop();
});

const control = (exchange: ExchangeId, method: string, path: string, body?: unknown): Promise<unknown> =>
  simControl(cat, exchange, method, path, body);

function activeMarkets(exchange: ExchangeId): Market[] {
  return [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes.every((o) => o.token_id),
  );
}

/** An active market whose first outcome has at least `min` trades on the tape (asked of the adapter). */
async function tradedMarket(exchange: ExchangeId, min: number): Promise<Market> {
  const adapter = cat.sims.get(exchange)?.adapter;
  for (const market of activeMarkets(exchange)) {
    const page = await adapter?.marketData.fetchTrades?.(
      venueContext(),
      market,
      market.outcomes[0]?.name ?? '',
      {
        limit: min,
        startTs: null,
        endTs: null,
        cursor: null,
      },
    );
    if (page && page.trades.length >= min) return market;
  }
  assert.fail(`no ${exchange} market has ${min} trades`);
}

async function trades(query: string, key?: string): Promise<TradesBody> {
  const res = await cat.server.request(`/api/v1/trades?${query}`, key === undefined ? {} : { key });
  assert.equal(res.status, 200, `${query}: ${res.text}`);
  return res.body as TradesBody;
}

const content = (t: TradeRow) => ({ ...t, id: undefined });

describe('trades are the venue’s tape', () => {
  test('every exchange with a tape: the page equals the adapter’s own, newest first, with its source', async () => {
    for (const exchange of WITH_TAPE) {
      const market = await tradedMarket(exchange, 3);
      const outcome = market.outcomes[0]?.name as string;
      const body = await trades(
        `svc_id=${encodeURIComponent(market.svc_id)}&outcome=${encodeURIComponent(outcome)}&limit=25`,
      );
      assert.deepEqual(
        {
          svc_id: body.svc_id,
          exchange: body.exchange,
          market_id: body.market_id,
          outcome: body.outcome,
          token_id: body.token_id,
        },
        {
          svc_id: market.svc_id,
          exchange,
          market_id: market.exchange_market_id,
          outcome,
          token_id: market.outcomes[0]?.token_id,
        },
      );
      const adapter = cat.sims.get(exchange)?.adapter;
      const own = await adapter?.marketData.fetchTrades?.(venueContext(), market, outcome, {
        limit: 25,
        startTs: null,
        endTs: null,
        cursor: null,
      });
      assert.ok(own && own.trades.length > 0);
      assert.deepEqual(
        body.trades.map((t) => t.id),
        own.trades.map((t) => t.id),
        exchange,
      );
      for (const [i, t] of body.trades.entries()) {
        assert.equal(t.source_channel, own.sourceChannel);
        assert.ok(t.source_channel.startsWith(`${exchange}_`));
        assert.equal(t.outcome, outcome);
        assert.equal(t.price, own.trades[i]?.price);
        assert.equal(t.size, own.trades[i]?.size);
        assert.ok(t.price > 0 && t.price <= 1 && t.size > 0);
        if (i > 0) assert.ok(Date.parse(t.timestamp) <= Date.parse(body.trades[i - 1]?.timestamp ?? ''));
      }
      assert.equal(body.has_more, body.next_cursor !== null);
    }
  });

  test('next_cursor walks the tape without repeats or gaps, to a last page with has_more false', async () => {
    for (const exchange of WITH_TAPE) {
      const market = await tradedMarket(exchange, 7);
      const svc = encodeURIComponent(market.svc_id);
      // A window holding about the newest twenty trades keeps the walk short.
      const newest = await trades(`svc_id=${svc}&limit=20`);
      const startTs = Math.floor(Date.parse(newest.trades.at(-1)?.timestamp ?? '') / 1000);
      const one = await trades(`svc_id=${svc}&limit=500&start_ts=${startTs}`);
      assert.equal(one.has_more, false);
      const walked: TradeRow[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `svc_id=${svc}&limit=3&start_ts=${startTs}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await trades(query);
        assert.ok(page.trades.length <= 3);
        walked.push(...page.trades);
        assert.equal(page.has_more, page.next_cursor !== null);
        cursor = page.next_cursor;
        pages += 1;
      } while (cursor !== null && pages < 100);
      assert.equal(cursor, null, `${exchange}: the walk ended`);
      assert.ok(pages >= 3, `${exchange}: walked ${pages} pages`);
      assert.deepEqual(walked.map(content), one.trades.map(content), `${exchange}: pages of 3 = one page`);
    }
  });

  test('limit: default 200, 1 to 500; anything else is a 400', async () => {
    const market = await tradedMarket('kalshi', 1);
    const svc = encodeURIComponent(market.svc_id);
    const fallback = await trades(`svc_id=${svc}`);
    assert.ok(fallback.trades.length <= 200);
    assert.equal((await trades(`svc_id=${svc}&limit=1`)).trades.length, 1);
    for (const limit of ['0', '501', 'abc', '-1', '1.5']) {
      assertError(
        await cat.server.request(`/api/v1/trades?svc_id=${svc}&limit=${limit}`),
        400,
        'validation_error',
      );
    }
  });
});

describe('windows and cursors', () => {
  test('start_ts and end_ts keep exactly the trades inside (whole seconds, both ends); start after end is a 400', async () => {
    for (const exchange of WITH_TAPE) {
      const market = await tradedMarket(exchange, 6);
      const svc = encodeURIComponent(market.svc_id);
      const all = await trades(`svc_id=${svc}&limit=50`);
      const secondOf = (t: TradeRow | undefined) => Math.floor(Date.parse(t?.timestamp ?? '') / 1000);
      const endTs = secondOf(all.trades[1]);
      const startTs = secondOf(all.trades[Math.min(5, all.trades.length - 1)]);
      const inside = await trades(`svc_id=${svc}&limit=50&start_ts=${startTs}&end_ts=${endTs}`);
      const expected = all.trades.filter((t) => secondOf(t) >= startTs && secondOf(t) <= endTs);
      assert.ok(expected.length >= 2);
      assert.deepEqual(inside.trades.map(content), expected.map(content), exchange);
      assertError(
        await cat.server.request(`/api/v1/trades?svc_id=${svc}&start_ts=${endTs + 1}&end_ts=${endTs}`),
        400,
        'validation_error',
      );
    }
  });

  test('a window without trades is an empty last page', async () => {
    for (const exchange of WITH_TAPE) {
      const svc = encodeURIComponent(activeMarkets(exchange)[0]?.svc_id ?? '');
      const body = await trades(`svc_id=${svc}&start_ts=1000000000&end_ts=1000086400`);
      assert.deepEqual([body.trades, body.has_more, body.next_cursor], [[], false, null], exchange);
    }
  });

  test('a cursor works only with the query it came from; a forged one is a 400', async () => {
    const market = await tradedMarket('polymarket', 4);
    const svc = encodeURIComponent(market.svc_id);
    const first = await trades(`svc_id=${svc}&limit=2`);
    assert.ok(first.next_cursor);
    const cursor = encodeURIComponent(first.next_cursor);
    const other = await cat.server.request(`/api/v1/trades?svc_id=${svc}&outcome=no&cursor=${cursor}`);
    assert.match(String(assertError(other, 400, 'validation_error').error), /different query/);
    assertError(
      await cat.server.request(`/api/v1/trades?svc_id=${svc}&start_ts=1000000000&cursor=${cursor}`),
      400,
      'validation_error',
    );
    // The same query with another limit is the same walk.
    assert.equal((await trades(`svc_id=${svc}&limit=5&cursor=${cursor}`)).trades.length <= 5, true);
    for (const forged of ['abc', Buffer.from('[1,"x","y"]').toString('base64url')]) {
      assertError(
        await cat.server.request(`/api/v1/trades?svc_id=${svc}&cursor=${forged}`),
        400,
        'validation_error',
      );
    }
    // A cursor of ours around a venue position the adapter never wrote.
    const [, fingerprint] = JSON.parse(Buffer.from(first.next_cursor, 'base64url').toString('utf8')) as [
      number,
      string,
    ];
    const inner = Buffer.from(JSON.stringify([1, fingerprint, '{"not":"a tape cursor"}'])).toString(
      'base64url',
    );
    assertError(
      await cat.server.request(`/api/v1/trades?svc_id=${svc}&cursor=${inner}`),
      400,
      'validation_error',
    );
  });

  test('the tier bounds the window: a start beyond it is a 400, and no trade older than it is answered', async () => {
    const created = await cat.server.request('/api/v1/keys', { method: 'POST', body: { tier: 'free' } });
    assert.equal(created.status, 201, created.text);
    const key = (created.body as { key: string }).key;
    const market = await tradedMarket('kalshi', 1);
    const svc = encodeURIComponent(market.svc_id);
    const now = Math.floor(Date.now() / 1000);
    for (const q of [`start_ts=${now - 6 * DAY}`, `end_ts=${now - 6 * DAY}`]) {
      const res = await cat.server.request(`/api/v1/trades?svc_id=${svc}&${q}`, { key });
      assert.match(String(assertError(res, 400, 'validation_error').error), /tier allows/);
    }
    const page = await trades(`svc_id=${svc}&limit=500`, key);
    assert.ok(page.trades.every((t) => Date.parse(t.timestamp) / 1000 >= now - 5 * DAY - 1));
  });
});

describe('selector and exchange errors', () => {
  test('selector errors are 400/404 in the error shape', async () => {
    const market = activeMarkets('kalshi')[0] as Market;
    await assertSelectorErrors(cat, '/api/v1/trades', market.svc_id);
    const svc = encodeURIComponent(market.svc_id);
    assertError(await cat.server.request(`/api/v1/trades?svc_id=${svc}&bogus=1`), 400, 'validation_error');
    const byNative = await trades(
      `exchange=kalshi&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=no&limit=2`,
    );
    assert.equal(byNative.outcome, 'No');
  });

  test('opinion has no public trade tape: 501 not_supported', async () => {
    const market = activeMarkets('opinion')[0] as Market;
    const body = assertError(
      await cat.server.request(`/api/v1/trades?svc_id=${encodeURIComponent(market.svc_id)}`),
      501,
      'not_supported',
    );
    assert.match(String(body.error), /fetch_trades/);
  });

  test('an exchange that fails is a 503 retryable, never an empty tape; it recovers when the exchange does', async () => {
    for (const exchange of WITH_TAPE) {
      const path = `/api/v1/trades?svc_id=${encodeURIComponent(activeMarkets(exchange)[0]?.svc_id ?? '')}&limit=3`;
      await control(exchange, 'POST', 'faults', { error_rate: 1, error_status: 500 });
      try {
        const body = assertError(await cat.server.request(path), 503, 'service_unavailable');
        assert.equal(body.retryable, true);
      } finally {
        await control(exchange, 'DELETE', 'faults');
      }
      assert.equal((await cat.server.request(path)).status, 200, exchange);
    }
  });
});
