// Limitless parsers on real recorded payloads and on Limitless's own web-app mocks (test/fixtures/limitless,
// provenance in its README), plus invariants that hold for any input so a golden value cannot freeze a bug.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { MARKET_STATUSES } from '../../../../src/domain/market.js';
import { parseSvcId } from '../../../../src/domain/svc-id.js';
import {
  complement,
  limitlessMarketToMarket,
  limitlessStatus,
  outcomeBook,
  resolveOutcome,
  rowToEvent,
  rowToMarkets,
} from '../../../../src/venues/limitless/parse.js';
import {
  type LimitlessMarket,
  type LimitlessOrderbook,
  LimitlessRow,
  LimitlessOrderbook as OrderbookSchema,
} from '../../../../src/venues/limitless/payloads.js';
import { loadFixture } from '../../../support/fixtures.js';
import { assertProperty } from '../../../support/property.js';

const fixture = (name: string): unknown => loadFixture('limitless', name);

function decode<T>(schema: TSchema, value: unknown): T {
  const errors = [...Value.Errors(schema, value)].map((e) => `${e.instancePath}: ${e.message}`);
  assert.deepEqual(errors, [], 'payload schema rejects a real payload');
  return value as T;
}

test('the recorded market detail (numbers stringified by the recorder) normalizes to an active binary market', () => {
  const raw = decode<LimitlessMarket>(LimitlessRow, fixture('http_get_markets_slug_detail_from_merged.json'));
  const m = limitlessMarketToMarket(raw);
  assert.equal(m.svc_id, 'limitless:usa-and-australia-both-to-score-1779980360817');
  assert.deepEqual(parseSvcId(m.svc_id), {
    ok: true,
    value: { exchange: 'limitless', nativeId: m.exchange_market_id },
  });
  assert.equal(m.exchange_market_id, raw.slug, 'the slug is the native id');
  assert.equal(m.exchange_group_id, raw.slug, 'a stand-alone market is its own event');
  assert.equal(m.group_title, 'USA and Australia both to score?');
  assert.equal(m.status, 'active');
  assert.equal(m.market_type, 'binary');
  assert.deepEqual(
    m.outcomes.map((o) => [o.name, o.price, o.token_id]),
    [
      ['Yes', 0.476, '86754852064474869881286364251658764942266025328391522221494274517474936254814'],
      ['No', 0.524, '86230754815698413619206189608906849294848879165498461416569335949589979443562'],
    ],
  );
  // tradePrices: a taker sells YES at 0.466 (best bid) and buys at 0.486 (best ask), as the recorded book shows.
  assert.equal(m.best_bid, 0.466);
  assert.equal(m.best_ask, 0.486);
  assert.equal(m.end_date, '2026-06-20T19:00:00.000Z');
  assert.equal(m.created_at, '2026-05-28T14:59:20.806Z');
  assert.equal(m.volume_total, 0);
  assert.equal(m.condition_id, raw.conditionId);
  assert.equal(m.tick_size, 0.001);
  assert.equal(m.min_order_size, undefined, 'settings.minSize is a rewards threshold, not an order minimum');
  assert.equal(m.url, `https://limitless.exchange/markets/${raw.slug}`);
});

test('the web-app market mock (numbers as numbers) decodes and normalizes the same way', () => {
  const raw = decode<LimitlessMarket>(LimitlessRow, fixture('http_get_markets_slug_webapp_mock.json'));
  const m = limitlessMarketToMarket(raw);
  assert.equal(m.exchange_market_id, 'eth-to-btc-rate-greater-004-by-the-end-of-q2-1743446275657');
  assert.equal(m.volume_total, 20389.745212);
  assert.equal(m.end_date, new Date(1751327940000).toISOString());
  assert.deepEqual(
    m.outcomes.map((o) => o.price),
    [0.0255, 0.9745],
  );
  assert.equal(m.best_bid, 0.021);
  assert.equal(m.best_ask, 0.03);
});

test('a group row yields its child markets under the group event; a stand-alone row is its own event', () => {
  const child = fixture('http_get_markets_slug_webapp_mock.json') as Record<string, unknown>;
  const group = decode<LimitlessMarket & { markets: LimitlessMarket[] }>(LimitlessRow, {
    ...child,
    slug: 'who-wins-1743446275000',
    title: 'Who wins?',
    tradeType: 'group',
    marketType: 'group',
    tokens: undefined,
    markets: [child, { ...child, slug: 'other-1743446275001', title: 'Other' }],
  });
  const markets = rowToMarkets(group);
  assert.deepEqual(
    markets.map((m) => [m.exchange_market_id, m.exchange_group_id, m.group_title]),
    [
      ['eth-to-btc-rate-greater-004-by-the-end-of-q2-1743446275657', 'who-wins-1743446275000', 'Who wins?'],
      ['other-1743446275001', 'who-wins-1743446275000', 'Who wins?'],
    ],
  );
  assert.equal(rowToEvent(group).exchange_group_id, 'who-wins-1743446275000');
  const amm = decode<LimitlessMarket>(LimitlessRow, { ...child, tradeType: 'amm', tokens: undefined });
  assert.deepEqual(rowToMarkets(amm), [], 'legacy AMM markets have no book and are left out');
});

test('the recorded book: YES read directly (sizes ÷ 1e6), NO mirrored at 1 - p with sizes unchanged', () => {
  const raw = decode<LimitlessOrderbook>(OrderbookSchema, fixture('http_get_markets_slug_orderbook.json'));
  const yes = outcomeBook(raw, 'Yes');
  assert.deepEqual(yes.bids, [
    [0.466, 2000],
    [0.445, 192],
    [0.432, 1157],
    [0.002, 500],
    [0.001, 1000],
  ]);
  assert.deepEqual(yes.asks[0], [0.486, 2000]);
  assert.deepEqual(yes.asks[3], [0.99, 1]);
  const no = outcomeBook(raw, 'No');
  assert.deepEqual(no.bids, [
    [0.514, 2000],
    [0.488, 1024],
    [0.475, 400],
    [0.01, 1],
    [0.002, 500],
  ]);
  assert.deepEqual(no.asks, [
    [0.534, 2000],
    [0.555, 192],
    [0.568, 1157],
    [0.998, 500],
    [0.999, 1000],
  ]);
});

test('the web-app book mock (numeric prices and sizes) reads the same way', () => {
  const raw = decode<LimitlessOrderbook>(
    OrderbookSchema,
    fixture('http_get_markets_slug_orderbook_webapp_mock.json'),
  );
  const yes = outcomeBook(raw, 'Yes');
  assert.deepEqual(yes.bids[0], [0.163, 300]);
  assert.deepEqual(yes.asks[0], [0.19, 500]);
  assert.deepEqual(outcomeBook(raw, 'No').bids[0], [0.81, 500]);
});

test('status: FUNDED trades until it expires, RESOLVED is resolved, anything else is closed', () => {
  assert.equal(limitlessStatus('FUNDED', false), 'active');
  assert.equal(limitlessStatus('FUNDED', null), 'active');
  assert.equal(limitlessStatus('FUNDED', true), 'closed');
  assert.equal(limitlessStatus('LOCKED', false), 'closed');
  assert.equal(limitlessStatus('RESOLVED', true), 'resolved');
  assertProperty(
    fc.property(fc.string(), fc.option(fc.boolean(), { nil: null }), (status, expired) =>
      (MARKET_STATUSES as readonly string[]).includes(limitlessStatus(status, expired)),
    ),
    { examples: [] },
  );
});

test('outcome names are matched case-insensitively and only Yes/No exist', () => {
  assert.equal(resolveOutcome('yes'), 'Yes');
  assert.equal(resolveOutcome(' NO '), 'No');
  assert.equal(resolveOutcome('maybe'), null);
});

test('invariant: any YES book gives sorted, uncrossed-if-YES-was, size-preserving YES and NO books', () => {
  const level = fc.record({
    price: fc.integer({ min: 1, max: 999 }).map((p) => p / 1000),
    size: fc.integer({ min: 1, max: 5_000 }).map((s) => s * 1_000_000),
  });
  assertProperty(
    fc.property(fc.array(level, { maxLength: 30 }), fc.array(level, { maxLength: 30 }), (bids, asks) => {
      const raw = { bids, asks };
      const yes = outcomeBook(raw, 'Yes');
      const no = outcomeBook(raw, 'No');
      const total = (levels: Array<[number, number]>) => levels.reduce((s, [, q]) => s + q, 0);
      for (const book of [yes, no]) {
        const bp = book.bids.map(([p]) => p);
        const ap = book.asks.map(([p]) => p);
        assert.deepEqual(
          bp,
          [...bp].sort((a, b) => b - a),
        );
        assert.deepEqual(
          ap,
          [...ap].sort((a, b) => a - b),
        );
        assert.equal(new Set(bp).size, bp.length);
        for (const [p, s] of [...book.bids, ...book.asks]) assert.ok(p > 0 && p < 1 && s > 0);
      }
      assert.ok(Math.abs(total(no.bids) - total(yes.asks)) < 1e-6, 'NO bids hold the YES asks');
      assert.ok(Math.abs(total(no.asks) - total(yes.bids)) < 1e-6, 'NO asks hold the YES bids');
      const yesBid = yes.bids[0]?.[0];
      const yesAsk = yes.asks[0]?.[0];
      if (yesAsk !== undefined) assert.equal(no.bids[0]?.[0], complement(yesAsk));
      if (yesBid !== undefined && yesAsk !== undefined && yesBid < yesAsk) {
        assert.ok(
          (no.bids[0]?.[0] ?? 0) < (no.asks[0]?.[0] ?? 1),
          'mirroring keeps an uncrossed book uncrossed',
        );
      }
    }),
    { examples: [] },
  );
});

test('invariant: complement is an involution on the price grid', () => {
  assertProperty(
    fc.property(fc.integer({ min: 0, max: 1000 }), (k) => {
      const p = k / 1000;
      assert.equal(complement(complement(p)), p);
    }),
    { examples: [] },
  );
});
