// Kalshi parsers on real recorded payloads (test/fixtures/kalshi, provenance in its README), plus invariants that
// hold for any input — books sorted, the YES and NO books mirror images of each other — so a golden value cannot
// freeze a bug.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { intervalPeriod, rollUpCandles } from '../../../../src/domain/candles.js';
import { parseSvcId } from '../../../../src/domain/svc-id.js';
import { AppError } from '../../../../src/errors/app-error.js';
import {
  bookFromLadders,
  changeFor,
  ladderMap,
  marketStatus,
  micros,
  parseCandles,
  parseEvent,
  parseMarket,
  parseOrderbook,
  parseTrade,
  parseWsTrade,
  resolveOutcome,
} from '../../../../src/venues/kalshi/parse.js';
import {
  KalshiCandlesResponse,
  KalshiMarketResponse,
  KalshiMarketsPage,
  KalshiOrderbook,
  KalshiTradesPage,
  KalshiWsDelta,
  KalshiWsEnvelope,
  KalshiWsSnapshot,
  KalshiWsSubscribed,
  KalshiWsTrade,
} from '../../../../src/venues/kalshi/payloads.js';
import { loadFixture } from '../../../support/fixtures.js';
import { assertProperty } from '../../../support/property.js';

const fixture = (name: string): unknown => loadFixture('kalshi', name);

function decode<T>(schema: TSchema, value: unknown): T {
  const errors = [...Value.Errors(schema, value)].map((e) => `${e.instancePath}: ${e.message}`);
  assert.deepEqual(errors, [], 'payload schema rejects a real payload');
  return value as T;
}

const market = { exchange_market_id: 'KXELONMARS-99', tick_size: 0.01, min_order_size: 0.01 };

test('a fixed-point market (GET /markets/{ticker}) normalizes: ticker ids, dollar strings to 0..1, contracts', () => {
  const raw = decode<{ market: Parameters<typeof parseMarket>[0] }>(
    KalshiMarketResponse,
    fixture('http_get_markets_ticker.json'),
  ).market;
  const m = parseMarket(raw, { title: 'Elon Musk on Mars' });
  assert.equal(m.svc_id, 'kalshi:KXELONMARS-99');
  assert.deepEqual(parseSvcId(m.svc_id), {
    ok: true,
    value: { exchange: 'kalshi', nativeId: 'KXELONMARS-99' },
  });
  assert.equal(m.svc_group_id, 'kalshi:KXELONMARS-99');
  assert.equal(m.exchange_group_id, 'KXELONMARS-99');
  assert.equal(m.question, 'Will Elon Musk visit Mars before Aug 1, 2099?');
  assert.equal(m.group_title, 'Elon Musk on Mars');
  assert.equal(m.status, 'active');
  assert.equal(m.market_type, 'binary');
  // Mid of the 0.08 bid and 0.12 ask; NO is its complement, exactly.
  assert.deepEqual(
    m.outcomes.map((o) => [o.name, o.price, o.token_id]),
    [
      ['Yes', 0.1, 'KXELONMARS-99:yes'],
      ['No', 0.9, 'KXELONMARS-99:no'],
    ],
  );
  assert.equal(m.best_bid, 0.08);
  assert.equal(m.best_ask, 0.12);
  assert.equal(m.last_price, 0.1);
  assert.equal(m.volume_total, 94884.62);
  assert.equal(m.volume_24h, 19.74);
  assert.equal(m.open_interest, 32746.17);
  assert.equal(m.liquidity, null, 'the deprecated liquidity_dollars ("0.0000") is unknown, not zero');
  assert.equal(m.tick_size, 0.01);
  assert.equal(m.min_order_size, 0.01, 'fractional trading: a hundredth of a contract');
  assert.equal(m.end_date, '2099-08-01T04:59:00.000Z');
  assert.equal(m.created_at, '2025-08-28T20:40:16.168Z');
  assert.match(m.description ?? '', /^If Elon Musk visits Mars/);
});

// Kalshi titles the markets of a multi-candidate event with the event's question and names each candidate only in
// `yes_sub_title`. The values are KXNYCMAYOR-25's, as quoted in a public Kalshi copy-trading test fixture (public
// code index file id 71644154796; the same source as test/fixtures/matching/'s Fed markets), set on the recorded
// payload above so every other field is a real one.
test('a market titled with its event question keeps the option yes_sub_title names (KXNYCMAYOR)', () => {
  const recorded = decode<{ market: Parameters<typeof parseMarket>[0] }>(
    KalshiMarketResponse,
    fixture('http_get_markets_ticker.json'),
  ).market;
  const mayor = (ticker: string, candidate: string) =>
    parseMarket(
      {
        ...recorded,
        ticker,
        event_ticker: 'KXNYCMAYOR-25',
        title: 'Who will win the NYC mayoral election in 2025?',
        yes_sub_title: candidate,
        no_sub_title: candidate,
      },
      { title: 'NYC Mayor 2025' },
    );
  const mamdani = mayor('KXNYCMAYOR-25-ZM', 'Zohran Mamdani');
  const cuomo = mayor('KXNYCMAYOR-25-AC', 'Andrew Cuomo');
  assert.equal(mamdani.question, 'Who will win the NYC mayoral election in 2025? - Zohran Mamdani');
  assert.equal(cuomo.question, 'Who will win the NYC mayoral election in 2025? - Andrew Cuomo');
  assert.notEqual(mamdani.question, cuomo.question, 'two candidates never ask the same question');
  assert.equal(mamdani.group_title, 'NYC Mayor 2025');
  // A title that already names the option is left alone (the recorded `Mars` / `Before 2050` subtitles).
  const page = decode<{ markets: Parameters<typeof parseMarket>[0][] }>(
    KalshiMarketsPage,
    fixture('http_get_markets.json'),
  );
  assert.deepEqual(
    page.markets.map((m) => parseMarket(m, null).question),
    ['Will Elon Musk visit Mars before Aug 1, 2099?', 'Will humans colonize Mars before 2050?'],
  );
  // The WebSocket lifecycle's metadata names the player in the title too (KXWTAMATCH-25OCT02LYSGAU-LYS).
  const lys = parseMarket(
    { ...recorded, title: 'Will Eva Lys win the Lys vs Gauff match?', yes_sub_title: 'Eva Lys' },
    null,
  );
  assert.equal(lys.question, 'Will Eva Lys win the Lys vs Gauff match?');
});

test('a market list page (GET /markets?tickers=) decodes and every market normalizes', () => {
  const page = decode<{ markets: Parameters<typeof parseMarket>[0][]; cursor: string }>(
    KalshiMarketsPage,
    fixture('http_get_markets.json'),
  );
  assert.equal(page.cursor, '', 'an empty cursor ends the walk');
  const markets = page.markets.map((m) => parseMarket(m, null));
  assert.deepEqual(
    markets.map((m) => m.exchange_market_id),
    ['KXELONMARS-99', 'KXCOLONIZEMARS-50'],
  );
  for (const m of markets) {
    assert.equal(m.group_title, m.question, 'without the event the question stands in for the group title');
    const [yes, no] = m.outcomes;
    assert.ok(yes?.price !== null && no?.price !== null);
    assert.ok(Math.abs((yes?.price ?? 0) + (no?.price ?? 0) - 1) < 1e-12);
  }
});

test('the recorded order book gives each outcome bids from its own ladder and asks from the other at 1 − p', () => {
  const raw = decode<Parameters<typeof parseOrderbook>[0]>(
    KalshiOrderbook,
    fixture('http_get_markets_ticker_orderbook.json'),
  );
  const at = new Date('2026-06-20T00:00:00Z');
  const yes = parseOrderbook(raw, market, 'Yes', at);
  const no = parseOrderbook(raw, market, 'No', at);
  assert.deepEqual(yes.bids.slice(0, 2), [
    [0.08, 444.32],
    [0.07, 3195.84],
  ]);
  // Best NO bid 0.88 × 1967.33 is the best YES ask at 0.12, same size (the market's yes_ask_size_fp).
  assert.deepEqual(yes.asks[0], [0.12, 1967.33]);
  assert.deepEqual(no.bids[0], [0.88, 1967.33]);
  assert.deepEqual(no.asks[0], [0.92, 444.32]);
  assert.equal(yes.bids.length, 8);
  assert.equal(yes.asks.length, 18);
  assert.equal(yes.token_id, 'KXELONMARS-99:yes');
  assert.equal(no.token_id, 'KXELONMARS-99:no');
  assert.equal(yes.timestamp, at.toISOString(), 'the REST book carries no time: it is stamped on receipt');
  assert.equal(yes.tick_size, 0.01);
  assertMirror(yes, no);
});

test('public trades (GET /markets/trades) keep ids, sizes and the taker direction per outcome', () => {
  const page = decode<{ trades: Parameters<typeof parseTrade>[0][] }>(
    KalshiTradesPage,
    fixture('http_get_markets_trades.json'),
  );
  const yes = page.trades.map((t) => parseTrade(t, 'Yes'));
  const no = page.trades.map((t) => parseTrade(t, 'No'));
  assert.deepEqual(
    yes.map((t) => [t.price, t.size, t.side]),
    [
      [0.1, 9.4, 'buy'],
      [0.1, 0.94, 'buy'],
      [0.08, 9.4, 'sell'],
    ],
  );
  assert.deepEqual(
    no.map((t) => [t.price, t.side]),
    [
      [0.9, 'sell'],
      [0.9, 'sell'],
      [0.92, 'buy'],
    ],
  );
  assert.equal(yes[0]?.id, '6e924506-2c0f-5717-f9b7-eae14a12202a');
  assert.equal(yes[0]?.timestamp, '2026-06-12T17:11:11.927Z');
  for (const [i, t] of yes.entries()) assert.ok(Math.abs(t.price + (no[i]?.price ?? 0) - 1) < 1e-12);
});

test('recorded candlesticks without trades give no candle: their bid/ask quotes are not traded prices', () => {
  const res = decode<{ candlesticks: Parameters<typeof parseCandles>[0] }>(
    KalshiCandlesResponse,
    fixture('http_get_series_markets_candlesticks.json'),
  );
  // Both recorded hours had no trade (volume 0, price only `previous_dollars`), only YES bid/ask OHLC.
  assert.equal(res.candlesticks.length, 2);
  assert.deepEqual(parseCandles(res.candlesticks, 3600, 'Yes'), []);
  assert.deepEqual(parseCandles(res.candlesticks, 3600, 'No'), []);
});

test('traded candles use the trade OHLC (NO mirrored); rolling up keeps first open, last close, extremes and summed volume', () => {
  const candles = parseCandles(
    [
      {
        end_period_ts: 3600,
        price: {
          open_dollars: '0.4000',
          high_dollars: '0.5000',
          low_dollars: '0.3500',
          close_dollars: '0.4500',
        },
        volume_fp: '10.00',
      },
      {
        end_period_ts: 7200,
        price: {
          open_dollars: '0.4500',
          high_dollars: '0.6000',
          low_dollars: '0.4500',
          close_dollars: '0.5500',
        },
        volume_fp: '5.50',
      },
      // No trades and no quotes: nothing to report, so no candle rather than an invented one.
      { end_period_ts: 10800, price: {}, volume_fp: '0.00' },
    ],
    3600,
    'Yes',
  );
  assert.equal(candles.length, 2);
  // Stamped at the period start: end_period_ts 3600 is the inclusive end of the first hour.
  assert.equal(candles[0]?.timestamp, '1970-01-01T00:00:00.000Z');
  const no = parseCandles(
    [
      {
        end_period_ts: 3600,
        price: {
          open_dollars: '0.4000',
          high_dollars: '0.5000',
          low_dollars: '0.3500',
          close_dollars: '0.4500',
        },
        volume_fp: '10.00',
      },
    ],
    3600,
    'No',
  );
  assert.deepEqual([no[0]?.open, no[0]?.high, no[0]?.low, no[0]?.close], [0.6, 0.65, 0.5, 0.55]);
  const [six] = rollUpCandles(candles, 3600, intervalPeriod('6h'));
  assert.deepEqual(six, {
    timestamp: '1970-01-01T00:00:00.000Z',
    open: 0.4,
    high: 0.6,
    low: 0.35,
    close: 0.55,
    volume: 15.5,
  });
});

test('WebSocket frames recorded from the exchange decode: subscribed, empty snapshots, fixed-point delta and trades', () => {
  const subscribed = decode<{ type: string; id: number; msg: unknown }>(
    KalshiWsEnvelope,
    fixture('ws_subscribed_demo.json'),
  );
  assert.deepEqual(decode(KalshiWsSubscribed, subscribed.msg), { channel: 'orderbook_delta', sid: 1 });
  for (const name of [
    'ws_orderbook_snapshot_empty_demo.json',
    'ws_orderbook_snapshot_settled_empty_fp.json',
  ]) {
    const frame = decode<{ msg: unknown; seq: number }>(KalshiWsEnvelope, fixture(name));
    const snap = decode<{ yes_dollars_fp?: string[][]; no_dollars_fp?: string[][] }>(
      KalshiWsSnapshot,
      frame.msg,
    );
    // Sides without bids are absent from the frame: an empty book, not an error.
    assert.equal(ladderMap(snap.yes_dollars_fp).size, 0);
    assert.equal(ladderMap(snap.no_dollars_fp).size, 0);
  }
  const delta = decode<{ msg: unknown; seq: number }>(
    KalshiWsEnvelope,
    fixture('ws_orderbook_delta_fp.json'),
  );
  const d = decode<{ price_dollars: string; delta_fp: string; side: 'yes' | 'no' }>(KalshiWsDelta, delta.msg);
  assert.equal(delta.seq, 4);
  assert.equal(micros(d.price_dollars), 700_000);
  assert.deepEqual(changeFor('Yes', d.side, 700_000, 0), { side: 'bid', price: 0.7, size: 0 });
  assert.deepEqual(changeFor('No', d.side, 700_000, 12), { side: 'ask', price: 0.3, size: 12 });

  const fp = decode<{ msg: unknown }>(KalshiWsEnvelope, fixture('ws_trade_fp.json'));
  const trade = parseWsTrade(decode(KalshiWsTrade, fp.msg), 'Yes');
  assert.deepEqual(trade, {
    id: 'cd6c95cc-46e1-4654-faa5-1636dec2e5fe',
    price: 0.42,
    size: 3,
    side: 'buy',
    aggressor_side: 'buy',
    timestamp: new Date(1780096775004).toISOString(),
    outcome: 'Yes',
  });
  // A late-2025 frame with integer `count` and no `ts_ms` still reads (seconds timestamp).
  const old = decode<{ msg: unknown }>(
    KalshiWsEnvelope,
    fixture('ws_trade_transitional_cents_and_dollars.json'),
  );
  const legacy = parseWsTrade(decode(KalshiWsTrade, old.msg), 'No');
  assert.deepEqual(
    [legacy?.price, legacy?.size, legacy?.side, legacy?.timestamp],
    [0.73, 7, 'sell', '2025-10-01T20:30:09.000Z'],
  );
});

test('statuses, outcomes and events: lifecycle states fold onto ours; unknown outcomes are the client’s 400', () => {
  assert.equal(marketStatus('active'), 'active');
  for (const s of ['initialized', 'inactive', 'closed', 'disputed', 'something_new'])
    assert.equal(marketStatus(s), 'closed');
  for (const s of ['determined', 'amended', 'finalized']) assert.equal(marketStatus(s), 'resolved');
  assert.equal(resolveOutcome({ svc_id: 'kalshi:X' }, ' yes '), 'Yes');
  assert.equal(resolveOutcome({ svc_id: 'kalshi:X' }, 'NO'), 'No');
  assert.throws(
    () => resolveOutcome({ svc_id: 'kalshi:X' }, 'maybe'),
    (e: unknown) => e instanceof AppError && e.status === 400,
  );
  const raw = (fixture('http_get_markets.json') as { markets: Parameters<typeof parseMarket>[0][] }).markets;
  const event = parseEvent({
    event_ticker: 'E',
    title: 'Mars',
    markets: raw.map((m) => ({ ...m, status: 'finalized' })),
  });
  assert.equal(event.status, 'resolved');
  assert.equal(event.close_time, '2099-08-01T04:59:00.000Z');
  assert.equal(parseEvent({ event_ticker: 'E', title: 'Mars', markets: raw }).status, 'active');
});

function assertMirror(
  yes: { bids: [number, number][]; asks: [number, number][] },
  no: { bids: [number, number][]; asks: [number, number][] },
): void {
  // Sorted sides, uncrossed, and each outcome's asks are the other's bids at 1 − p with the same size.
  for (const book of [yes, no]) {
    assert.deepEqual(
      book.bids.map((l) => l[0]),
      [...book.bids.map((l) => l[0])].sort((a, b) => b - a),
    );
    assert.deepEqual(
      book.asks.map((l) => l[0]),
      [...book.asks.map((l) => l[0])].sort((a, b) => a - b),
    );
  }
  const flip = (levels: [number, number][]) =>
    levels.map(([p, s]) => [Math.round((1 - p) * 1e6) / 1e6, s]).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
  assert.deepEqual(flip(yes.bids), no.asks);
  assert.deepEqual(flip(no.bids), yes.asks);
}

test('property: any pair of bid ladders gives sorted, mirror-image YES and NO books with exact complements', () => {
  const price = fc.integer({ min: 1, max: 9_999 }).map((centicents) => centicents * 100);
  const levels = fc.uniqueArray(fc.tuple(price, fc.integer({ min: 1, max: 10_000_000 })), {
    selector: (l) => l[0],
    maxLength: 40,
  });
  assertProperty(
    fc.property(levels, levels, (yesLevels, noLevels) => {
      const ladders = {
        yes: yesLevels.map(([p, s]) => [p, s / 100] as [number, number]),
        no: noLevels.map(([p, s]) => [p, s / 100] as [number, number]),
      };
      const at = new Date(0);
      const yes = bookFromLadders(ladders, market, 'Yes', at);
      const no = bookFromLadders(ladders, market, 'No', at);
      assertMirror(yes, no);
      for (const l of [...yes.bids, ...yes.asks]) {
        assert.ok(l[0] > 0 && l[0] < 1);
        // Four decimals stay four decimals after 1 − p (integer arithmetic, no float residue).
        assert.equal(Math.round(l[0] * 10_000) / 10_000, l[0]);
      }
    }),
    { numRuns: 200, examples: [] },
  );
});
