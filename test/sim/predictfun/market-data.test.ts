// The Predict.fun simulator's books and tape: the orderbook against the recorded payload (YES-quoted, sorted,
// uncrossed, on the market's tick grid), the NO outcome's best quotes as the complement, advance moving books and
// printing matches, the match feed paged by cursor and filtered by market or signer, and the fault answers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PredictfunSim, startPredictfunSim } from '../../../sim/predictfun/index.js';
import { loadFixture } from '../../support/fixtures.js';
import { assertSameShape } from './shape.js';

type Json = Record<string, unknown>;
type Level = [number, number];
let sim: PredictfunSim;
let markets: Json[] = [];
before(async () => {
  sim = await startPredictfunSim({ seed: 12, size: 60 });
  const res = await get('/v1/categories?status=OPEN&first=100');
  markets = ((res.body.data as Json[]) ?? [])
    .flatMap((c) => c.markets as Json[])
    .filter((m) => m.tradingStatus === 'OPEN');
});
after(() => sim.close());

async function get(path: string): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${sim.url}${path}`, { headers: { 'x-api-key': sim.apiKey } });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

const control = (path: string, body: unknown) =>
  fetch(`${sim.control}/__sim/${path}`, { method: 'POST', body: JSON.stringify(body) });

test('GET /v1/markets/{id}/orderbook has the recorded keys and types; levels sorted, uncrossed, on the tick grid', async () => {
  const recorded = loadFixture('predictfun', 'http_get_v1_markets_id_orderbook_testnet.json');
  assert.ok(markets.length >= 3);
  for (const m of markets.slice(0, 10)) {
    const { body } = await get(`/v1/markets/${m.id}/orderbook`);
    const data = body.data as { marketId: number; bids: Level[]; asks: Level[]; updateTimestampMs: number };
    assertSameShape(recorded, body);
    assert.equal(data.marketId, m.id);
    const scale = 10 ** (m.decimalPrecision as number);
    for (const [side, levels] of [
      ['bids', data.bids],
      ['asks', data.asks],
    ] as const) {
      const prices = levels.map(([p]) => p);
      assert.deepEqual(
        prices,
        [...prices].sort((a, b) => (side === 'bids' ? b - a : a - b)),
      );
      for (const [p, s] of levels) {
        assert.ok(p > 0 && p < 1 && s > 0, `${side} ${p} ${s}`);
        assert.ok(Math.abs(p * scale - Math.round(p * scale)) < 1e-9, `${p} off the ${1 / scale} grid`);
      }
    }
    assert.ok((data.bids[0]?.[0] ?? 0) < (data.asks[0]?.[0] ?? 1), 'crossed book');
    // The market's outcomes quote the same book: YES as is, NO as its complement, sizes carried over.
    const [yes, no] = m.outcomes as Array<{ bestBid: Json | null; bestAsk: Json | null }>;
    assert.deepEqual(yes?.bestBid, { price: data.bids[0]?.[0], size: data.bids[0]?.[1] });
    assert.equal(no?.bestBid?.price, Number((1 - (data.asks[0]?.[0] ?? 0)).toFixed(6)));
    assert.equal(no?.bestAsk?.size, data.bids[0]?.[1]);
  }
});

test('markets that no longer trade have an empty book', async () => {
  const res = await get('/v1/categories?status=RESOLVED&first=5');
  const category = (res.body.data as Json[])[0] as Json;
  const m = (category.markets as Json[])[0] as Json;
  const { body } = await get(`/v1/markets/${m.id}/orderbook`);
  assert.deepEqual((body.data as Json).bids, []);
  assert.deepEqual((body.data as Json).asks, []);
});

test('advance moves books deterministically and prints one match per trading market and step', async () => {
  const id = markets[0]?.id;
  const before = (await get(`/v1/markets/${id}/orderbook`)).body.data as Json;
  assert.deepEqual((await get(`/v1/orders/matches?marketId=${id}`)).body.data, []);
  await control('advance', { steps: 4 });
  const afterAdvance = (await get(`/v1/markets/${id}/orderbook`)).body.data as Json;
  assert.notDeepEqual([afterAdvance.bids, afterAdvance.asks], [before.bids, before.asks]);
  assert.ok(afterAdvance.lastOrderSettled !== null, 'the book names the last settled order after a trade');
  const matches = (await get(`/v1/orders/matches?marketId=${id}&first=10`)).body.data as Json[];
  assert.equal(matches.length, 4);
  const times = matches.map((m) => Date.parse(String(m.executedAt)));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
    'newest first',
  );
  for (const m of matches) {
    assert.deepEqual(Object.keys(m), [
      'amountFilled',
      'executedAt',
      'priceExecuted',
      'settlementId',
      'transactionHash',
      'taker',
      'makers',
      'market',
    ]);
    assert.deepEqual(m.market, { id });
    const taker = m.taker as Json;
    assert.match(String(m.amountFilled), /^\d+$/);
    assert.ok(
      BigInt(String(m.priceExecuted)) > 0n && BigInt(String(m.priceExecuted)) < 10n ** 18n,
      'wei price',
    );
    assert.ok(['Bid', 'Ask'].includes(String(taker.quoteType)));
    for (const leg of [taker, ...(m.makers as Json[])]) {
      assert.match(String(leg.signer), /^0x[0-9a-fA-F]{40}$/);
      assert.match(String(leg.hash), /^0x[0-9a-f]{64}$/);
    }
  }
});

test('the match feed pages by cursor to the end, and filters by signer on either side', async () => {
  await control('advance', { steps: 2 });
  const seen = new Set<string>();
  let after: string | null = null;
  let signer = '';
  for (let i = 0; i < 200; i++) {
    const q: string = `/v1/orders/matches?first=25${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const { body } = await get(q);
    for (const m of body.data as Json[]) {
      assert.ok(!seen.has(String(m.settlementId)), 'a match twice');
      seen.add(String(m.settlementId));
      signer ||= String((m.taker as Json).signer);
    }
    after = body.cursor as string | null;
    if (after === null) break;
  }
  assert.equal(after, null);
  assert.ok(
    seen.size >= markets.length * 6 - markets.length,
    `${seen.size} matches for ${markets.length} markets`,
  );
  const mine = (await get(`/v1/orders/matches?signerAddress=${signer}&first=50`)).body.data as Json[];
  assert.ok(mine.length > 0);
  for (const m of mine) {
    const legs = [m.taker as Json, ...(m.makers as Json[])];
    assert.ok(legs.some((l) => String(l.signer).toLowerCase() === signer.toLowerCase()));
  }
  const stranger = `0x${'ab'.repeat(20)}`;
  const none = await get(`/v1/orders/matches?signerAddress=${stranger}`);
  assert.deepEqual([none.body.data, none.body.cursor], [[], null]);
});

test("each match charges the taker Predict.fun's published fee, feeRateBps × min(p, 1 − p) × shares, and the maker nothing", async () => {
  await control('advance', { steps: 1 });
  const { body } = await get('/v1/orders/matches?first=50');
  const matches = body.data as Json[];
  assert.ok(matches.length > 0);
  const rateBps = BigInt((markets[0] as { feeRateBps: number }).feeRateBps);
  const wei = 10n ** 18n;
  for (const m of matches) {
    const taker = m.taker as { amount: string; price: string; quoteType: string; fee: Json };
    const shares = BigInt(taker.amount);
    const price = BigInt(taker.price);
    const cheaperSide = price < wei - price ? price : wei - price;
    // In dollars (18 decimals), rounded down as integer wei division does.
    const dollars = (shares * cheaperSide * rateBps) / (10_000n * wei);
    const expected =
      taker.quoteType === 'Bid'
        ? { amount: ((dollars * wei) / price).toString(), type: 'SHARES' }
        : { amount: dollars.toString(), type: 'COLLATERAL' };
    assert.deepEqual(taker.fee, expected, JSON.stringify(m));
    for (const maker of m.makers as Json[]) assert.equal((maker.fee as Json).amount, '0');
  }
});

test('faults: 429 with Retry-After and 5xx in the venue envelope, then back to normal', async () => {
  await control('faults', { rate_limit: { retry_after: 3, count: 1 } });
  const limited = await get('/v1/categories?first=1');
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '3');
  assert.equal(limited.body.success, false);
  await control('faults', { error_rate: 1, error_status: 503 });
  const down = await get('/v1/categories?first=1');
  assert.deepEqual([down.status, down.body.code, down.body.success], [503, 503, false]);
  await fetch(`${sim.control}/__sim/faults`, { method: 'DELETE' });
  assert.equal((await get('/v1/categories?first=1')).status, 200);
});
