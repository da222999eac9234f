// GET /execution-price through the real server over the five simulators: every parameter rule and error, an
// estimate on every exchange that matches a walk of the book GET /orderbook answers at the same moment (the
// simulators' books move only when a test advances them, and none here does), and each exchange's fee checked
// against its published formula computed here from the fee parameters the simulator serves on the venue's wire.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import {
  assertSelectorErrors,
  type CatalogueServer,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';

interface Estimate {
  svc_id: string;
  exchange: string;
  market_id: string;
  outcome: string;
  token_id: string;
  side: 'buy' | 'sell';
  amount: number;
  avg_price: number | null;
  total_cost: number;
  filled_amount: number;
  fully_filled: boolean;
  slippage: number | null;
  levels_consumed: number;
  best_price: number | null;
  worst_price: number | null;
  fee_estimate: number | null;
  net_cost: number | null;
  fee_info: { exchange: string; fee_type: string; is_estimate: boolean; note?: string };
  timestamp: string;
}

type Level = [number, number];

let cat: CatalogueServer;
before(async () => {
  cat = await startCatalogueServer(30);
});
after(async () => {
  await cat?.stop();
});

const EXCHANGES: ExchangeId[] = ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun'];

/** An active market with a two-sided book deep enough to walk a few levels of. */
async function marketWithBook(
  exchange: ExchangeId,
): Promise<{ market: Market; bids: Level[]; asks: Level[] }> {
  const candidates = [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active' && m.outcomes.every((o) => o.token_id),
  );
  for (const market of candidates.slice(0, 15)) {
    const res = await cat.server.request(
      `/api/v1/orderbook?svc_id=${encodeURIComponent(market.svc_id)}&limit=100`,
    );
    assert.equal(res.status, 200, res.text);
    const book = res.body as { bids: Level[]; asks: Level[] };
    if (book.bids.length >= 2 && book.asks.length >= 2) return { market, ...book };
  }
  assert.fail(`${exchange}: no active market with two levels a side`);
}

async function estimate(query: string): Promise<Estimate> {
  const res = await cat.server.request(`/api/v1/execution-price?${query}`);
  assert.equal(res.status, 200, `${query}: ${res.text}`);
  return res.body as Estimate;
}

/** The walk computed here on micro-units (sizes with more decimals round by at most half a micro-unit a level). */
function walk(levels: Level[], amount: number) {
  const micro = (n: number) => Math.round(n * 1e6);
  let remaining = micro(amount);
  let costMicro2 = 0n;
  const fills: Level[] = [];
  for (const [p, s] of levels) {
    if (remaining === 0) break;
    const take = Math.min(micro(s), remaining);
    fills.push([p, take / 1e6]);
    costMicro2 += BigInt(micro(p)) * BigInt(take);
    remaining -= take;
  }
  return {
    fills,
    filled: micro(amount) - remaining,
    cost: Number(costMicro2) / 1e12,
    fully: remaining === 0,
  };
}

const close = (a: number, b: number, eps = 1e-9) => Math.abs(a - b) <= eps;

describe('parameters', () => {
  test('side and amount are required; amount is a positive plain decimal with at most 6 places', async () => {
    const { market } = await marketWithBook('kalshi');
    const q = `svc_id=${encodeURIComponent(market.svc_id)}`;
    const bad = async (query: string, code: string) =>
      assertError(await cat.server.request(`/api/v1/execution-price?${query}`), 400, code);
    await bad(`${q}&amount=1`, 'missing_parameter');
    await bad(`${q}&side=buy`, 'missing_parameter');
    await bad(`${q}&side=hold&amount=1`, 'validation_error');
    for (const amount of ['0', '0.000', 'NaN', '-1', '1e3', 'abc', '1.1234567', '', '10000000000001']) {
      await bad(`${q}&side=buy&amount=${encodeURIComponent(amount)}`, 'validation_error');
    }
    await bad(`${q}&side=buy&amount=1&depth=5`, 'validation_error');
    const fine = await estimate(`${q}&side=buy&amount=1.123456`);
    assert.equal(fine.amount, 1.123456);
  });

  test('selector errors: both forms or neither are 400s; unknown exchange, market 404; unknown outcome 400', async () => {
    const { market } = await marketWithBook('polymarket');
    await assertSelectorErrors(cat, '/api/v1/execution-price?side=buy&amount=1', market.svc_id);
  });

  test('a failing exchange is a 503 retryable', async () => {
    const { market } = await marketWithBook('opinion');
    const sim = cat.sims.get('opinion');
    assert.ok(sim);
    const faults = (method: string, body?: unknown) =>
      fetch(`${sim.control}/__sim/faults`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    // Another market than the others use, so no cached book answers for it.
    const other = [...cat.markets.values()].filter(
      (m) => m.exchange === 'opinion' && m.status === 'active',
    )[5];
    assert.ok(other && other.svc_id !== market.svc_id);
    assert.ok((await faults('POST', { error_rate: 1, error_status: 500 })).ok);
    try {
      const res = await cat.server.request(
        `/api/v1/execution-price?svc_id=${encodeURIComponent(other.svc_id)}&side=buy&amount=1`,
      );
      assertError(res, 503, 'service_unavailable');
      assert.equal((res.body as { retryable: boolean }).retryable, true);
    } finally {
      assert.ok((await faults('DELETE')).ok);
    }
  });
});

describe('estimates on every exchange', () => {
  for (const exchange of EXCHANGES) {
    test(`${exchange}: buy and sell match a walk of the book GET /orderbook answers`, async () => {
      const { market, bids, asks } = await marketWithBook(exchange);
      const q = `svc_id=${encodeURIComponent(market.svc_id)}`;
      // Through the second level, part of it.
      // Through the second level, part of it (six decimals at most: the amount rule).
      const amount = Number(((asks[0]?.[1] ?? 0) + (asks[1]?.[1] ?? 0) / 2).toFixed(6));
      const buy = await estimate(`${q}&side=buy&amount=${amount}`);
      const mine = walk(asks, amount);
      assert.equal(buy.exchange, exchange);
      assert.equal(buy.outcome.toLowerCase(), 'yes');
      assert.equal(buy.fully_filled, true);
      assert.equal(buy.levels_consumed, 2);
      assert.ok(close(buy.filled_amount, amount));
      assert.ok(
        close(buy.total_cost, mine.cost, 1e-5),
        `${exchange}: cost ${buy.total_cost} vs ${mine.cost}`,
      );
      assert.ok(close(buy.avg_price ?? Number.NaN, mine.cost / amount, 1e-6));
      assert.equal(buy.best_price, asks[0]?.[0]);
      assert.equal(buy.worst_price, asks[1]?.[0]);
      assert.ok(close(buy.slippage ?? Number.NaN, mine.cost / amount - (asks[0]?.[0] ?? 0), 1e-6));
      if (buy.fee_estimate === null) assert.equal(buy.net_cost, null);
      else assert.ok(close(buy.net_cost ?? Number.NaN, buy.total_cost + buy.fee_estimate));

      // More than the whole bid side: a partial fill, proceeds as a negative cost.
      const depth = bids.reduce((sum, [, s]) => sum + s, 0);
      const sell = await estimate(`${q}&side=sell&amount=${Math.ceil(depth) + 1}`);
      const sold = walk(bids, Math.ceil(depth) + 1);
      // The orderbook answer shows 100 levels at most; a deeper side may still fill.
      if (bids.length < 100) assert.equal(sell.fully_filled, false);
      assert.ok(
        close(sell.total_cost, -sold.cost),
        `${exchange}: proceeds ${sell.total_cost} vs ${sold.cost}`,
      );
      assert.equal(sell.best_price, bids[0]?.[0]);
    });
  }

  test('the no outcome walks its own book', async () => {
    const { market } = await marketWithBook('polymarket');
    const svc = encodeURIComponent(market.svc_id);
    const book = (await cat.server.request(`/api/v1/orderbook?svc_id=${svc}&outcome=no`)).body as {
      asks: Level[];
    };
    const no = await estimate(`svc_id=${svc}&outcome=no&side=buy&amount=1`);
    assert.equal(no.outcome.toLowerCase(), 'no');
    assert.equal(no.best_price, book.asks[0]?.[0] ?? null);
  });
});

describe('fees per exchange, against the published formula', () => {
  async function wire(url: string): Promise<Record<string, unknown>> {
    const res = await fetch(url);
    assert.equal(res.status, 200, `${url}: ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  }
  const control = (exchange: ExchangeId) => {
    const sim = cat.sims.get(exchange);
    assert.ok(sim);
    return sim.control;
  };

  test('polymarket: Σ round5(C × r × (p(1−p))^e) with r, e from /clob-markets fd; no fd, no fee', async () => {
    let seenFee = false;
    let seenFree = false;
    for (const market of [...cat.markets.values()].filter(
      (m) => m.exchange === 'polymarket' && m.status === 'active',
    )) {
      if (seenFee && seenFree) break;
      const info = await wire(`${control('polymarket')}/clob-markets/${market.exchange_market_id}`);
      const fd = info.fd as { r?: number; e?: number } | undefined;
      if ((fd ? seenFee : seenFree) || !market.outcomes.every((o) => o.token_id)) continue;
      const svc = encodeURIComponent(market.svc_id);
      const book = (await cat.server.request(`/api/v1/orderbook?svc_id=${svc}&limit=100`)).body as {
        asks: Level[];
      };
      if (book.asks.length < 2) continue;
      const amount = (book.asks[0]?.[1] ?? 0) + 1;
      const est = await estimate(`svc_id=${svc}&side=buy&amount=${amount}`);
      const r = fd?.r ?? 0;
      const e = fd?.e ?? 0;
      const expected = walk(book.asks, amount).fills.reduce(
        (sum, [p, s]) => sum + Math.round(s * r * (p * (1 - p)) ** e * 1e5) / 1e5,
        0,
      );
      assert.ok(
        close(est.fee_estimate ?? Number.NaN, expected, 2e-5),
        `fee ${est.fee_estimate} vs ${expected}`,
      );
      assert.equal(est.fee_info.is_estimate, false);
      if (fd && r > 0) {
        seenFee = true;
        assert.equal(est.fee_info.fee_type, e === 0 ? 'linear' : 'quadratic');
      } else {
        seenFree = true;
        assert.equal(est.fee_estimate, 0);
        assert.equal(est.fee_info.fee_type, 'none');
      }
    }
    assert.ok(seenFee && seenFree, 'the simulator has markets with and without fees');
  });

  test('kalshi: ceil to the cent of 0.07 × fee_multiplier × Σ C × P × (1−P), from the series', async () => {
    const { market, asks } = await marketWithBook('kalshi');
    const api = `${control('kalshi')}/trade-api/v2`;
    const { event } = (await wire(`${api}/events/${market.exchange_group_id}`)) as {
      event: { series_ticker: string };
    };
    const { series } = (await wire(`${api}/series/${event.series_ticker}`)) as {
      series: { fee_type: string; fee_multiplier: number };
    };
    assert.equal(series.fee_type, 'quadratic');
    const amount = (asks[0]?.[1] ?? 0) + 1;
    const est = await estimate(`svc_id=${encodeURIComponent(market.svc_id)}&side=buy&amount=${amount}`);
    const raw = walk(asks, amount).fills.reduce(
      (sum, [p, s]) => sum + 0.07 * series.fee_multiplier * s * p * (1 - p),
      0,
    );
    const expected = Math.ceil(Math.round(raw * 1e8) / 1e6) / 100;
    assert.equal(est.fee_estimate, expected);
    assert.equal(est.fee_info.fee_type, 'quadratic');
    assert.equal(est.fee_info.is_estimate, false);
  });

  test('predictfun: feeRateBps × min(p, 1−p) × shares from the market, an estimate (discounts unknown)', async () => {
    const { market, asks } = await marketWithBook('predictfun');
    // The simulator's market document needs its random operator key, so the rate is read through the adapter,
    // which sends it (the parameter only: the fee itself is computed here).
    const schedule = await cat.sims
      .get('predictfun')
      ?.adapter.marketData.fetchFeeSchedule?.(venueContext(), market, 'Yes');
    assert.ok(schedule?.venue === 'predictfun' && schedule.feeRateBps !== null);
    const data = { feeRateBps: Number(schedule.feeRateBps) };
    assert.ok(data.feeRateBps > 0);
    const amount = (asks[0]?.[1] ?? 0) + 1;
    const est = await estimate(`svc_id=${encodeURIComponent(market.svc_id)}&side=buy&amount=${amount}`);
    const expected = walk(asks, amount).fills.reduce(
      (sum, [p, s]) => sum + (data.feeRateBps / 10_000) * Math.min(p, 1 - p) * s,
      0,
    );
    assert.ok(
      close(est.fee_estimate ?? Number.NaN, expected, 1e-9),
      `fee ${est.fee_estimate} vs ${expected}`,
    );
    assert.equal(est.fee_info.fee_type, 'linear');
    assert.equal(est.fee_info.is_estimate, true);
  });

  test('limitless and opinion publish no fee curve: fee and net cost null, an estimate with a note', async () => {
    for (const exchange of ['limitless', 'opinion'] as const) {
      const { market } = await marketWithBook(exchange);
      const est = await estimate(`svc_id=${encodeURIComponent(market.svc_id)}&side=sell&amount=1`);
      assert.equal(est.fee_estimate, null);
      assert.equal(est.net_cost, null);
      assert.deepEqual(
        {
          exchange: est.fee_info.exchange,
          fee_type: est.fee_info.fee_type,
          is_estimate: est.fee_info.is_estimate,
        },
        { exchange, fee_type: 'lookup_table', is_estimate: true },
      );
      assert.ok(est.fee_info.note);
    }
  });
});
