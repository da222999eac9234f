// Predict.fun parsers on the real recorded payloads (test/fixtures/predictfun, provenance in its README), plus
// invariants over generated inputs so a golden value cannot freeze a bug: the complement book, wei conversion,
// trades from matches and positions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import Value from 'typebox/value';
import type { OrderBook } from '../../../../src/domain/book.js';
import type { Market } from '../../../../src/domain/market.js';
import {
  complementBook,
  fromWei,
  matchToTrades,
  toEvent,
  toMarket,
  toOrderBook,
  toPosition,
} from '../../../../src/venues/predictfun/parse.js';
import {
  PredictfunCategory as CategorySchema,
  envelope,
  PredictfunBook,
  type PredictfunCategory,
  type PredictfunMatch,
  PredictfunPosition,
} from '../../../../src/venues/predictfun/payloads.js';
import { loadFixture } from '../../../support/fixtures.js';
import { assertProperty } from '../../../support/property.js';

const fixture = (name: string): unknown => loadFixture('predictfun', name);

function decode<T>(schema: TSchema, value: unknown): T {
  const errors = [...Value.Errors(schema, value)].map((e) => `${e.instancePath}: ${e.message}`);
  assert.deepEqual(errors, [], 'payload schema rejects a real payload');
  return value as T;
}

const categories = decode<{ data: PredictfunCategory[]; cursor: string }>(
  envelope(Type.Array(CategorySchema)),
  fixture('http_get_v1_categories.json'),
);
const category = categories.data[0] as PredictfunCategory;
const recordedMarket = toMarket(category.markets[0] as PredictfunCategory['markets'][number], category);

test('a recorded category (GET /v1/categories) becomes an event; its market keeps the numeric id and the slug', () => {
  assert.equal(categories.cursor, 'NDA1MDA0');
  assert.deepEqual(toEvent(category), {
    exchange: 'predictfun',
    exchange_group_id: 'eth-updown-15m-1787839200',
    title: 'Ethereum Up or Down - August 27, 10AM-10:15AM ET',
    status: 'active',
    close_time: '2026-08-27T14:15:00.000Z',
    volume_total: null,
  });
  const m = recordedMarket;
  assert.equal(m.svc_id, 'predictfun:1739803');
  assert.equal(m.exchange_market_id, '1739803');
  assert.equal(m.svc_group_id, 'predictfun:eth-updown-15m-1787839200');
  assert.equal(m.group_title, category.title);
  assert.equal(m.question, 'Ethereum Up or Down - August 27, 10AM-10:15AM ET');
  assert.equal(m.status, 'active', 'REGISTERED and trading OPEN');
  assert.equal(m.market_type, 'binary');
  assert.deepEqual(
    m.outcomes.map((o) => [o.name, o.token_id]),
    [
      ['Up', '63015212288887519605689521802215931005858239156918107575780791658588345185817'],
      ['Down', '111913554301217491431600756326792444318464112865057816486042507140136158411642'],
    ],
  );
  assert.equal(m.best_bid, 0.02);
  assert.equal(m.best_ask, 0.98);
  assert.equal(m.tick_size, 0.01, 'decimalPrecision 2');
  assert.equal(m.end_date, '2026-08-27T14:15:00.000Z');
  assert.equal(m.condition_id, '0xa8e9c348c299989329debd86aaef81a1c4880d42c3954a684bdc731f7a113487');
  assert.equal(m.volume_total, null, 'no volume in a listing: null, never 0');
});

test('resolved and halted markets map to resolved and closed; a resolved outcome is priced 1 or 0', () => {
  const raw = category.markets[0] as PredictfunCategory['markets'][number];
  const halted = toMarket({ ...raw, tradingStatus: 'CLOSED' }, category);
  assert.equal(halted.status, 'closed');
  const won = raw.outcomes.map((o, i) => ({ ...o, status: i === 0 ? 'WON' : 'LOST' }));
  const resolved = toMarket(
    { ...raw, status: 'RESOLVED', outcomes: won },
    { ...category, status: 'RESOLVED' },
  );
  assert.equal(resolved.status, 'resolved');
  assert.deepEqual(
    resolved.outcomes.map((o) => o.price),
    [1, 0],
  );
  assert.equal(toEvent({ ...category, status: 'RESOLVED' }).status, 'resolved');
  assert.equal(toEvent({ ...category, markets: [{ ...raw, tradingStatus: 'CLOSED' }] }).status, 'closed');
});

test('the recorded orderbook is the YES book; the other outcome is its complement with the same sizes', () => {
  const raw = decode<{ data: Parameters<typeof toOrderBook>[0] }>(
    envelope(PredictfunBook),
    fixture('http_get_v1_markets_id_orderbook_testnet.json'),
  ).data;
  const market: Market = { ...recordedMarket, exchange_market_id: '72829' };
  const yes = toOrderBook(raw, market, { name: 'Yes', token_id: 't1', indexSet: 1 });
  assert.deepEqual(yes.bids, [
    [0.25, 21.2392],
    [0.19, 77.09],
    [0.12, 80.347],
  ]);
  assert.deepEqual(yes.asks[0], [0.42, 5.1785]);
  assert.equal(yes.timestamp, new Date(1_774_489_309_742).toISOString());
  const no = toOrderBook(raw, market, { name: 'No', token_id: 't2', indexSet: 2 });
  assert.deepEqual(no.bids, [
    [0.58, 5.1785],
    [0.45, 18.0892],
    [0.43, 21.907],
  ]);
  assert.deepEqual(no.asks, [
    [0.75, 21.2392],
    [0.81, 77.09],
    [0.88, 80.347],
  ]);
  assert.equal(no.token_id, 't2');
  assert.equal(no.market_id, '72829');
});

test('the recorded WebSocket book frame (a full book with an empty bid side) reads with the same schema', () => {
  const record = fixture('ws_predictOrderbook_collector_record.json') as { raw: unknown };
  const raw = decode<Parameters<typeof toOrderBook>[0]>(PredictfunBook, record.raw);
  const yes = toOrderBook(raw, recordedMarket, { name: 'Up', token_id: 'a', indexSet: 1 });
  assert.deepEqual(yes.bids, []);
  assert.equal(yes.asks.length, 7);
  const no = toOrderBook(raw, recordedMarket, { name: 'Down', token_id: 'b', indexSet: 2 });
  assert.deepEqual(no.asks, [], 'no YES bids: nothing offers the other outcome');
  assert.deepEqual(no.bids[0], [0.99, 553.337]);
});

const levelsArb = (ascending: boolean) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: 999 }), { maxLength: 12 })
    .chain((ticks) =>
      fc.tuple(
        fc.constant([...ticks].sort((a, b) => (ascending ? a - b : b - a))),
        fc.array(fc.double({ min: 0.01, max: 1e6, noNaN: true }), {
          minLength: ticks.length,
          maxLength: ticks.length,
        }),
      ),
    )
    .map(([ticks, sizes]) => ticks.map((t, i): [number, number] => [t / 1000, sizes[i] as number]));

test('invariant: the complement of the complement is the book; complements stay sorted and uncrossed', () => {
  assertProperty(
    fc.property(levelsArb(false), levelsArb(true), (bids, asks) => {
      const top = bids[0]?.[0] ?? 0;
      const yes: OrderBook = {
        ...toOrderBook({ marketId: 1, updateTimestampMs: 0, bids: [], asks: [] }, recordedMarket, {
          name: 'Yes',
          token_id: 'y',
          indexSet: 1,
        }),
        bids,
        asks: asks.filter(([p]) => p > top),
      };
      const no = complementBook(yes, { name: 'No', token_id: 'n' });
      assert.deepEqual(complementBook(no, { name: 'Yes', token_id: 'y' }), yes);
      assert.deepEqual(
        no.bids.map(([, s]) => s),
        yes.asks.map(([, s]) => s),
      );
      const noBid = no.bids[0]?.[0];
      const noAsk = no.asks[0]?.[0];
      if (noBid !== undefined && noAsk !== undefined) assert.ok(noBid < noAsk);
      for (const [p] of [...no.bids, ...no.asks]) assert.ok(p > 0 && p < 1);
    }),
    { examples: [] },
  );
});

test('invariant: wei strings convert exactly for whole and 1e-6 amounts', () => {
  assertProperty(
    fc.property(
      fc.integer({ min: 0, max: 10 ** 12 }),
      fc.integer({ min: 0, max: 999_999 }),
      (whole, micro) => {
        const wei = (BigInt(whole) * 10n ** 18n + BigInt(micro) * 10n ** 12n).toString();
        assert.equal(fromWei(wei), Number(`${whole}.${String(micro).padStart(6, '0')}`));
      },
    ),
    { examples: [] },
  );
  assert.equal(fromWei('0'), 0);
  assert.equal(fromWei('8409090909090909720'), 8.40909090909091);
});

function leg(
  indexSet: number,
  quoteType: 'Bid' | 'Ask',
  priceWei: bigint,
  amountWei: bigint,
  signer: string,
) {
  return {
    amount: amountWei.toString(),
    price: priceWei.toString(),
    quoteType,
    signer,
    hash: `0x${signer.slice(2, 10)}${'0'.repeat(56)}`,
    outcome: { indexSet, name: indexSet === 1 ? 'Yes' : 'No', onChainId: String(indexSet) },
  };
}

// Constructed matches in the documented shape (not recorded): a taker buying YES against a maker selling YES, and
// one against a maker buying NO (a mint).
test('invariant: a match prints once on the taker outcome, and on the other outcome through complementary makers', () => {
  assertProperty(
    fc.property(
      fc.integer({ min: 1, max: 99 }),
      fc.integer({ min: 1, max: 10_000 }),
      fc.boolean(),
      fc.boolean(),
      (cents, shares, takerBuys, mint) => {
        const price = BigInt(cents) * 10n ** 16n;
        const amount = BigInt(shares) * 10n ** 16n;
        const takerSide = takerBuys ? 'Bid' : 'Ask';
        const makerOutcome = mint ? 2 : 1;
        const makerSide = mint ? takerSide : takerBuys ? 'Ask' : 'Bid';
        const makerPrice = mint ? 10n ** 18n - price : price;
        const match: PredictfunMatch = {
          amountFilled: amount.toString(),
          priceExecuted: price.toString(),
          executedAt: '2026-09-06T11:45:23.000Z',
          settlementId: 's-1',
          transactionHash: '0xabc',
          taker: leg(1, takerSide, price, amount, '0x1111111111111111111111111111111111111111'),
          makers: [
            leg(makerOutcome, makerSide, makerPrice, amount, '0x2222222222222222222222222222222222222222'),
          ],
          market: { id: 7 },
        };
        const yes = matchToTrades(match, 1, 'Yes');
        assert.equal(yes.length, 1);
        assert.equal(yes[0]?.price, cents / 100);
        assert.equal(yes[0]?.size, shares / 100);
        assert.equal(yes[0]?.side, takerBuys ? 'buy' : 'sell');
        const no = matchToTrades(match, 2, 'No');
        if (!mint) {
          assert.deepEqual(no, []);
          return;
        }
        assert.equal(no.length, 1);
        // The NO maker bought (or sold) passively; on the NO book the aggressor took the other side.
        assert.equal(no[0]?.side, takerBuys ? 'sell' : 'buy');
        assert.equal(no[0]?.price, Number((1 - cents / 100).toFixed(2)));
        assert.notEqual(no[0]?.id, yes[0]?.id);
      },
    ),
    { examples: [] },
  );
});

test('positions: shares from wei, the venue average price, value per share as the current price (0..1 or null)', () => {
  const base = {
    id: 'p',
    amount: (12n * 10n ** 18n).toString(),
    averageBuyPriceUsd: '0.57',
    pnlUsd: 0,
    valueUsd: 6.84,
    market: { id: 2032581 },
    outcome: { indexSet: 1, name: 'Up', onChainId: '1' },
  };
  decode(PredictfunPosition, base);
  assert.deepEqual(toPosition(base), {
    market_id: '2032581',
    outcome: 'Up',
    size: 12,
    average_price: 0.57,
    current_price: 0.57,
  });
  assert.equal(toPosition({ ...base, valueUsd: null }).current_price, null);
  assert.equal(toPosition({ ...base, averageBuyPriceUsd: 'n/a' }).average_price, null);
  assertProperty(
    fc.property(
      fc.bigInt({ min: 0n, max: 10n ** 27n }),
      fc.double({ min: 0, max: 1e9, noNaN: true }),
      (wei, value) => {
        const p = toPosition({ ...base, amount: wei.toString(), valueUsd: value });
        assert.ok(p.size >= 0);
        if (p.current_price !== null) assert.ok(p.current_price >= 0 && p.current_price <= 1);
      },
    ),
    { examples: [] },
  );
});
