// GET /price through the real server over the five simulators: candles are the venue's own series rolled up by the
// domain roll-up (compared with the adapter's answer), every window rule (defaults per interval, the tier's history
// window, at_ts and what it excludes, start after end, too many candles), intervals per exchange, the selector
// errors, 501 where an exchange has no price history, 503 when an exchange fails, and no candles where the venue
// has no data.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Candle, CandleInterval } from '../../../src/domain/book.js';
import {
  INTERVAL_SECONDS,
  intervalPeriod,
  periodStart,
  rollUpSeries,
  windowPeriod,
} from '../../../src/domain/candles.js';
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

interface PriceBody {
  svc_id: string;
  exchange: string;
  outcome: string;
  interval: string;
  candles: Candle[];
}

const WITH_HISTORY: ExchangeId[] = ['polymarket', 'kalshi', 'limitless', 'opinion'];
const HOUR = 3_600;
const DAY = 86_400;

let cat: CatalogueServer;
before(async () => {
  cat = await startCatalogueServer(30);
});
after(async () => {
  await cat?.stop();
});

function activeMarket(exchange: ExchangeId, n = 0): Market {
  const market = [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes.every((o) => o.token_id),
  )[n];
  assert.ok(market, `no active ${exchange} market with tokens`);
  return market;
}

const nowS = () => Math.floor(Date.now() / 1000);
const ts = (c: Candle | undefined) => Date.parse(c?.timestamp ?? '') / 1000;

async function price(query: string, key?: string): Promise<PriceBody> {
  const res = await cat.server.request(`/api/v1/price?${query}`, key === undefined ? {} : { key });
  assert.equal(res.status, 200, `${query}: ${res.text}`);
  return res.body as PriceBody;
}

const control = (exchange: ExchangeId, method: string, path: string, body?: unknown): Promise<unknown> =>
  simControl(cat, exchange, method, path, body);

/** The candles the adapter's own series gives for a window, rolled up the one way (what the route must answer). */
async function direct(
  exchange: ExchangeId,
  market: Market,
  outcome: string,
  interval: CandleInterval,
  startTs: number,
  endTs: number,
): Promise<Candle[]> {
  const adapter = cat.sims.get(exchange)?.adapter;
  const series = await adapter?.marketData.fetchPriceHistory?.(venueContext(), market, outcome, {
    interval,
    startTs,
    endTs,
  });
  assert.ok(series, `${exchange}: the adapter has price history`);
  const period =
    interval === 'max'
      ? windowPeriod(startTs, endTs, series.kind === 'candles' ? series.periodSeconds : null)
      : intervalPeriod(interval);
  return rollUpSeries(series, period).filter((c) => ts(c) >= startTs && ts(c) <= endTs);
}

async function freeKey(): Promise<string> {
  const created = await cat.server.request('/api/v1/keys', { method: 'POST', body: { tier: 'free' } });
  assert.equal(created.status, 201, created.text);
  return (created.body as { key: string }).key;
}

describe('candles are the venue’s data', () => {
  test('every exchange with price history: the answer equals its own series rolled up, for every interval it offers', async () => {
    // A window that ended two hours ago: no period of it is still in progress, so both reads see the same data.
    const endTs = Math.floor(nowS() / HOUR) * HOUR - 2 * HOUR - 1;
    for (const exchange of WITH_HISTORY) {
      const market = activeMarket(exchange);
      const intervals = cat.sims.get(exchange)?.adapter.descriptor.features.candleIntervals ?? [];
      assert.ok(intervals.length > 0);
      let seen = 0;
      for (const interval of intervals) {
        const span = interval === 'max' || interval === '1w' ? 21 * DAY : INTERVAL_SECONDS[interval] * 40;
        const startTs = endTs - span;
        const body = await price(
          `svc_id=${encodeURIComponent(market.svc_id)}&interval=${interval}&start_ts=${startTs}&end_ts=${endTs}`,
        );
        assert.deepEqual(
          { svc_id: body.svc_id, exchange: body.exchange, interval: body.interval },
          { svc_id: market.svc_id, exchange, interval },
        );
        assert.equal(
          body.outcome,
          market.outcomes.find((o) => o.name.toLowerCase() === 'yes')?.name ?? body.outcome,
        );
        const outcome = body.outcome;
        assert.deepEqual(
          body.candles,
          await direct(exchange, market, outcome, interval, startTs, endTs),
          `${exchange} ${interval}`,
        );
        const period = interval === 'max' ? null : intervalPeriod(interval);
        for (const c of body.candles) {
          assert.ok(
            ts(c) >= startTs && ts(c) <= endTs,
            `${exchange} ${interval}: ${c.timestamp} outside the window`,
          );
          if (period)
            assert.equal(periodStart(ts(c), period), ts(c), `${exchange} ${interval}: ${c.timestamp}`);
          assert.ok(c.low <= Math.min(c.open, c.close) && c.high >= Math.max(c.open, c.close));
        }
        if (interval === 'max') assert.ok(body.candles.length <= 1, 'max is one candle');
        seen += body.candles.length;
      }
      assert.ok(seen > 0, `${exchange}: no candle in any interval`);
    }
  });

  test('kalshi candles are traded OHLC with traded volume; the others carry no volume they do not publish', async () => {
    const endTs = nowS() - 2 * HOUR;
    const kalshi = await price(
      `svc_id=${encodeURIComponent(activeMarket('kalshi').svc_id)}&start_ts=${endTs - 3 * DAY}&end_ts=${endTs}`,
    );
    assert.ok(kalshi.candles.length > 0);
    assert.ok(
      kalshi.candles.every((c) => c.volume !== null && c.volume > 0),
      'a kalshi candle without trades',
    );
    for (const exchange of ['polymarket', 'limitless', 'opinion'] as const) {
      const body = await price(`svc_id=${encodeURIComponent(activeMarket(exchange).svc_id)}`);
      assert.ok(body.candles.length > 0 && body.candles.every((c) => c.volume === null), exchange);
    }
  });

  test('weeks start on Monday 00:00 UTC and 6h candles on 00/06/12/18 UTC', async () => {
    const market = activeMarket('polymarket');
    const weeks = await price(`svc_id=${encodeURIComponent(market.svc_id)}&interval=1w`);
    assert.ok(weeks.candles.length > 0);
    for (const c of weeks.candles) {
      const d = new Date(c.timestamp);
      assert.equal(d.getUTCDay(), 1, `${c.timestamp} is not a Monday`);
      assert.equal(d.getUTCHours() + d.getUTCMinutes() + d.getUTCSeconds(), 0);
    }
    const sixes = await price(`svc_id=${encodeURIComponent(market.svc_id)}&interval=6h`);
    assert.ok(sixes.candles.every((c) => new Date(c.timestamp).getUTCHours() % 6 === 0));
  });

  test('a window the venue has no data for is no candles, never a guessed price', async () => {
    for (const exchange of WITH_HISTORY) {
      const svc = encodeURIComponent(activeMarket(exchange).svc_id);
      const body = await price(`svc_id=${svc}&interval=1d&start_ts=1000000000&end_ts=1001000000`);
      assert.deepEqual(body.candles, [], exchange);
      const at = await price(`svc_id=${svc}&interval=1h&at_ts=1000000000`);
      assert.deepEqual(at.candles, [], `${exchange}: nothing at or before at_ts`);
    }
  });
});

describe('windows', () => {
  test('without start_ts the window is 24 h (1m), 7 d (1h), 14 d (6h, 1d) or 30 d (1w, max) before end_ts', async () => {
    const svc = encodeURIComponent(activeMarket('polymarket').svc_id);
    const ranges: Array<[Exclude<CandleInterval, 'max'>, number]> = [
      ['1m', DAY],
      ['1h', 7 * DAY],
      ['6h', 14 * DAY],
      ['1d', 14 * DAY],
      ['1w', 30 * DAY],
    ];
    for (const [interval, range] of ranges) {
      const t0 = nowS();
      const body = await price(`svc_id=${svc}&interval=${interval}`);
      const t1 = nowS();
      const period = intervalPeriod(interval);
      // The venue has a price in every period: the first candle is the first period starting in the window.
      const first = (t: number) => {
        const start = periodStart(t - range, period);
        return start < t - range ? start + period.seconds : start;
      };
      assert.ok(
        [first(t0), first(t1)].includes(ts(body.candles[0])),
        `${interval}: first candle ${body.candles[0]?.timestamp}`,
      );
      assert.ok(ts(body.candles.at(-1)) <= t1);
    }
    // max is one candle starting exactly at the window's start.
    const t0 = nowS();
    const max = await price(`svc_id=${svc}&interval=max`);
    const t1 = nowS();
    assert.equal(max.candles.length, 1);
    assert.ok(ts(max.candles[0]) >= t0 - 30 * DAY && ts(max.candles[0]) <= t1 - 30 * DAY);
    // With only end_ts, the default range ends there.
    const endTs = t0 - 3 * DAY;
    const ended = await price(`svc_id=${svc}&interval=1d&end_ts=${endTs}`);
    assert.equal(ts(ended.candles[0]), Math.ceil((endTs - 14 * DAY) / DAY) * DAY);
    assert.ok(ts(ended.candles.at(-1)) <= endTs);
  });

  test('the default window is clamped to the tier; an explicit start, end or at_ts beyond it is a 400', async () => {
    const key = await freeKey();
    const svc = encodeURIComponent(activeMarket('polymarket').svc_id);
    const t0 = nowS();
    const max = await price(`svc_id=${svc}&interval=max`, key);
    const t1 = nowS();
    // Free history is 5 days: the 30-day default starts 5 days back instead.
    assert.ok(
      ts(max.candles[0]) >= t0 - 5 * DAY && ts(max.candles[0]) <= t1 - 5 * DAY,
      max.candles[0]?.timestamp,
    );
    const old = t0 - 6 * DAY;
    for (const q of [`start_ts=${old}`, `at_ts=${old}`, `end_ts=${old}`]) {
      const res = await cat.server.request(`/api/v1/price?svc_id=${svc}&${q}`, { key });
      const body = assertError(res, 400, 'validation_error');
      assert.match(String(body.error), /tier allows/);
    }
  });

  test('at_ts answers the one candle covering it, or the closest before it, on every exchange', async () => {
    const endTs = Math.floor(nowS() / HOUR) * HOUR - 1;
    for (const exchange of WITH_HISTORY) {
      const market = activeMarket(exchange);
      const svc = encodeURIComponent(market.svc_id);
      const all = await price(`svc_id=${svc}&interval=1h&start_ts=${endTs - 2 * DAY}&end_ts=${endTs}`);
      assert.ok(all.candles.length > 5, exchange);
      const pick = all.candles[3] as Candle;
      // The covering period is read on its own: the venue's data for that hour. Limitless spaces its points by the
      // range asked (an hour gives minute points, two days hourly ones), so only there may it differ from the
      // same hour in a longer window.
      const [own] = await direct(exchange, market, all.outcome, '1h', ts(pick), ts(pick) + HOUR - 1);
      assert.ok(own && ts(own) === ts(pick), exchange);
      if (exchange !== 'limitless') assert.deepEqual(own, pick, exchange);
      const inside = ts(pick) + 1_234;
      assert.deepEqual((await price(`svc_id=${svc}&interval=1h&at_ts=${inside}`)).candles, [own], exchange);
      assert.deepEqual((await price(`svc_id=${svc}&interval=1h&at_ts=${ts(pick)}`)).candles, [own], exchange);
      // An hour without data has no candle: the one before it answers.
      const gap = all.candles.findIndex((c, i) => i > 0 && ts(c) - ts(all.candles[i - 1]) > HOUR);
      if (gap > 0) {
        const missing = ts(all.candles[gap - 1]) + HOUR + 10;
        assert.deepEqual(
          (await price(`svc_id=${svc}&interval=1h&at_ts=${missing}`)).candles,
          [all.candles[gap - 1]],
          exchange,
        );
      }
      const max = await price(`svc_id=${svc}&interval=max&at_ts=${inside}`);
      assert.equal(max.candles.length, 1, exchange);
      assert.ok(ts(max.candles[0]) <= inside);
    }
    // Kalshi's simulator leaves about one hour in seven without a trade: that case is met there.
    const kalshi = await price(
      `svc_id=${encodeURIComponent(activeMarket('kalshi').svc_id)}&interval=1h&start_ts=${endTs - 2 * DAY}&end_ts=${endTs}`,
    );
    assert.ok(
      kalshi.candles.some((c, i) => i > 0 && ts(c) - ts(kalshi.candles[i - 1]) > HOUR),
      'no hour without trades to look past',
    );
  });

  test('parameter rules: at_ts alone, start before end, a bounded window, known intervals, no stray parameters', async () => {
    const svc = encodeURIComponent(activeMarket('polymarket').svc_id);
    const now = nowS();
    const bad = async (q: string, code = 'validation_error') =>
      assertError(await cat.server.request(`/api/v1/price?svc_id=${svc}&${q}`), 400, code);
    await bad(`at_ts=${now - HOUR}&start_ts=${now - DAY}`);
    await bad(`at_ts=${now - HOUR}&end_ts=${now}`);
    await bad(`at_ts=${now + DAY}`);
    await bad(`start_ts=${now - HOUR}&end_ts=${now - DAY}`);
    await bad(`start_ts=${now + DAY}`);
    await bad(`interval=1m&start_ts=${now - 30 * DAY}`);
    await bad('interval=2h');
    await bad('interval=');
    await bad('start_ts=-1');
    await bad('start_ts=abc');
    await bad('at_ts=1.5');
    await bad('bogus=1');
    // Opinion's finest history is hourly: a 1-minute candle would be a daily point relabelled.
    const opinion = assertError(
      await cat.server.request(
        `/api/v1/price?svc_id=${encodeURIComponent(activeMarket('opinion').svc_id)}&interval=1m`,
      ),
      400,
      'validation_error',
    );
    assert.match(String(opinion.error), /1h, 6h, 1d, 1w, max/);
  });
});

describe('selector and exchange errors', () => {
  test('selector errors are 400/404 in the error shape; an unknown outcome names the valid ones', async () => {
    const market = activeMarket('kalshi');
    await assertSelectorErrors(cat, '/api/v1/price', market.svc_id);
    const byNative = await price(
      `exchange=kalshi&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=NO`,
    );
    assert.equal(byNative.outcome, 'No');
    assert.equal(byNative.svc_id, market.svc_id);
  });

  test('predictfun has no price history: 501 not_supported', async () => {
    const market = activeMarket('predictfun');
    const res = await cat.server.request(`/api/v1/price?svc_id=${encodeURIComponent(market.svc_id)}`);
    const body = assertError(res, 501, 'not_supported');
    assert.match(String(body.error), /fetch_price_history/);
  });

  test('an exchange that fails is a 503 retryable, never empty candles; it recovers when the exchange does', async () => {
    for (const exchange of WITH_HISTORY) {
      const path = `/api/v1/price?svc_id=${encodeURIComponent(activeMarket(exchange).svc_id)}`;
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
