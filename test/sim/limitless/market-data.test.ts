// The Limitless simulator's market data against recorded payloads and the web app's mocks: the YES order book,
// historical prices (ranges, from/to, group series), the matched-trade feed and its pagination, and faults.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type LimitlessSim, startLimitlessSim } from '../../../sim/limitless/index.js';
import { loadFixture } from '../../support/fixtures.js';
import { control, getJson, sampleSlugs } from './helpers.js';

let sim: LimitlessSim;
let slugs: { market: string; group: string; child: string };
before(async () => {
  sim = await startLimitlessSim({ seed: 11, size: 120 });
  slugs = await sampleSlugs(sim);
});
after(() => sim.close());

const keysOf = (v: unknown) => Object.keys(v as object);

test('the book covers the recorded keys, types as the web app reads them, sorted and uncrossed', async () => {
  const recorded = loadFixture('limitless', 'http_get_markets_slug_orderbook.json') as Record<
    string,
    unknown
  >;
  const webapp = loadFixture('limitless', 'http_get_markets_slug_orderbook_webapp_mock.json') as Record<
    string,
    unknown
  >;
  const { status, body } = await getJson(sim, `/markets/${slugs.market}/orderbook`);
  assert.equal(status, 200);
  const book = body as {
    bids: Array<Record<string, unknown>>;
    asks: Array<Record<string, unknown>>;
  } & Record<string, unknown>;
  for (const key of keysOf(recorded)) assert.ok(key in book, `missing ${key}`);
  for (const key of keysOf((recorded.bids as unknown[])[0]))
    assert.ok(key in (book.bids[0] ?? {}), `level ${key}`);
  for (const key of keysOf(webapp)) {
    if (webapp[key] !== null && book[key] !== null) assert.equal(typeof book[key], typeof webapp[key], key);
  }
  assert.equal(typeof book.bids[0]?.price, 'number');
  assert.equal(typeof book.bids[0]?.size, 'number');
  const detail = (await getJson(sim, `/markets/${slugs.market}`)).body as { tokens: { yes: string } };
  assert.equal(book.tokenId, detail.tokens.yes, 'the book is quoted for the YES token');
  const bids = book.bids.map((l) => l.price as number);
  const asks = book.asks.map((l) => l.price as number);
  assert.deepEqual(
    bids,
    [...bids].sort((a, b) => b - a),
  );
  assert.deepEqual(
    asks,
    [...asks].sort((a, b) => a - b),
  );
  assert.ok((bids[0] ?? 1) < (asks[0] ?? 0));
  for (const l of [...book.bids, ...book.asks]) {
    assert.equal((l.size as number) % 1_000_000, 0, 'raw 1e6 share units');
    assert.equal(Math.round((l.price as number) * 1000) / 1000, l.price, 'on the 0.001 tick');
  }
  const groupBook = await getJson(sim, `/markets/${slugs.group}/orderbook`);
  assert.equal(groupBook.status, 404, 'a group has no book of its own');
});

test('advance moves books deterministically; the same step reads the same book', async () => {
  const read = async () => (await getJson(sim, `/markets/${slugs.market}/orderbook`)).body;
  const a = await read();
  assert.deepEqual(await read(), a);
  await control(sim, 'POST', 'advance', { steps: 1 });
  assert.notDeepEqual(await read(), a);
  assert.equal((await getJson(sim, '/markets/no-such-market/orderbook')).status, 404);
});

test('historical prices: recorded keys, newest first, ms-string timestamps and numeric prices', async () => {
  const recorded = loadFixture('limitless', 'http_get_markets_slug_historical_price.json') as {
    prices: Array<Record<string, unknown>>;
  } & Record<string, unknown>;
  const { body } = await getJson(sim, `/markets/${slugs.market}/historical-price?interval=1d`);
  const series = body as { title: string; prices: Array<{ timestamp: string; price: number }> };
  for (const key of keysOf(recorded)) assert.ok(key in series, `missing ${key}`);
  assert.equal(typeof series.prices[0]?.timestamp, 'string');
  assert.equal(typeof series.prices[0]?.price, 'number');
  const ts = series.prices.map((p) => Number(p.timestamp));
  assert.ok(ts.length > 50);
  assert.deepEqual(
    ts,
    [...ts].sort((a, b) => b - a),
  );
  assert.equal((ts[0] ?? 0) - (ts[1] ?? 0), 900_000, 'the 1d range comes in 15-minute points, as recorded');
  assert.ok((ts[0] ?? 0) <= Date.now() && Date.now() - (ts.at(-1) ?? 0) <= 86_400_000 + 900_000);
  for (const p of series.prices) assert.ok(p.price > 0 && p.price < 1);
});

test('historical prices: ranges, from/to, a group answers one series per option, bad input is 400', async () => {
  const spacing = async (interval: string) => {
    const { body } = await getJson(sim, `/markets/${slugs.market}/historical-price?interval=${interval}`);
    const p = (body as { prices: Array<{ timestamp: string }> }).prices;
    return Number(p[0]?.timestamp) - Number(p[1]?.timestamp);
  };
  assert.equal(await spacing('1h'), 60_000);
  assert.equal(await spacing('1w'), 3_600_000);
  const to = Date.now() - 3_600_000;
  const from = to - 6 * 3_600_000;
  const window = (
    await getJson(
      sim,
      `/markets/${slugs.market}/historical-price?interval=6h&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`,
    )
  ).body as { prices: Array<{ timestamp: string }> };
  assert.ok(window.prices.length > 0);
  assert.ok(window.prices.every((p) => Number(p.timestamp) >= from && Number(p.timestamp) <= to));
  const group = (await getJson(sim, `/markets/${slugs.group}/historical-price?interval=1d`)).body as Array<{
    title: string;
    prices: unknown[];
  }>;
  assert.ok(Array.isArray(group) && group.length >= 3);
  assert.deepEqual(
    keysOf(group[0]),
    keysOf(
      (
        loadFixture('limitless', 'http_get_markets_slug_historical_price_group_webapp_mock.json') as unknown[]
      )[0],
    ),
  );
  assert.equal((await getJson(sim, `/markets/${slugs.market}/historical-price?interval=2d`)).status, 400);
  assert.equal((await getJson(sim, `/markets/${slugs.market}/historical-price?from=yesterday`)).status, 400);
});

test('the trade feed carries the recorded keys, newest first, and pages to the end', async () => {
  const recorded = loadFixture('limitless', 'http_get_markets_slug_events.json') as {
    events: Array<Record<string, unknown>>;
  } & Record<string, unknown>;
  await control(sim, 'POST', 'advance', { steps: 5 });
  const first = (await getJson(sim, `/markets/${slugs.market}/events?page=1&limit=4`)).body as {
    events: Array<Record<string, unknown>>;
    totalRows: number;
    totalPages: number;
  } & Record<string, unknown>;
  for (const key of keysOf(recorded)) assert.ok(key in first, `missing ${key}`);
  for (const key of keysOf(recorded.events[0])) assert.ok(key in (first.events[0] ?? {}), `event ${key}`);
  for (const key of keysOf(recorded.events[0]?.profile)) {
    assert.ok(key in ((first.events[0]?.profile as object) ?? {}), `profile ${key}`);
  }
  assert.ok(first.totalRows > 4);
  const seen: string[] = [];
  for (let page = 1; page <= first.totalPages; page++) {
    const body = (await getJson(sim, `/markets/${slugs.market}/events?page=${page}&limit=4`)).body as {
      events: Array<{ createdAt: string; txHash: string }>;
    };
    seen.push(...body.events.map((e) => e.createdAt));
  }
  assert.equal(seen.length, first.totalRows);
  assert.deepEqual(
    seen,
    [...seen].sort((a, b) => Date.parse(b) - Date.parse(a)),
  );
  const detail = (await getJson(sim, `/markets/${slugs.market}`)).body as {
    tokens: { yes: string; no: string };
  };
  for (const e of first.events) {
    assert.ok([detail.tokens.yes, detail.tokens.no].includes(e.tokenId as string));
    assert.ok(e.side === 0 || e.side === 1);
    assert.ok(Number(e.price) > 0 && Number(e.price) < 1);
    assert.equal(Number(e.matchedSize) % 1_000_000, 0);
  }
  const groupFeed = (await getJson(sim, `/markets/${slugs.group}/events?limit=50`)).body as {
    events: Array<{ title: string }>;
  };
  assert.ok(
    groupFeed.events.every((e) => e.title.length > 0),
    'a group feed names the option traded',
  );
});

test('faults: 429 with Retry-After in the throttler style, injected 5xx, latency; cleared again', async () => {
  const url = `/markets/${slugs.market}/orderbook`;
  await control(sim, 'POST', 'faults', { rate_limit: { retry_after: 3, count: 2 } });
  for (let i = 0; i < 2; i++) {
    const limited = await getJson(sim, url);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '3');
    assert.deepEqual(limited.body, { statusCode: 429, message: 'ThrottlerException: Too Many Requests' });
  }
  assert.equal((await getJson(sim, url)).status, 200, 'a counted 429 burst ends by itself');
  await control(sim, 'POST', 'faults', { error_rate: 1, error_status: 503 });
  assert.equal((await getJson(sim, url)).status, 503);
  await control(sim, 'DELETE', 'faults');
  assert.equal((await getJson(sim, url)).status, 200);
});
