// Predict.fun's trading documents read into ours: an order's price from its two legs, its status, and its creation
// time from our salt (the epoch for a salt that is not ours); a match's legs signed by the wallet as fills, with
// the fee in USD whether the venue took it in shares or in USDT, a self-trade as two fills, an unsettled match
// left out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchFills, toOrder } from '../../../../src/venues/predictfun/parse-trading.js';
import type { PredictfunMatch, PredictfunOrderDoc } from '../../../../src/venues/predictfun/payloads.js';
import { saltCreatedAt, timedSalt } from '../../../../src/venues/predictfun/signing.js';

const E18 = 10n ** 18n;
const ME = '0x9050dfA063D1bE7cA711c750b18D51fDD13e90Ee';
const HASH = `0x${'ab'.repeat(32)}`;

function doc(over: Partial<PredictfunOrderDoc> = {}, order: Partial<PredictfunOrderDoc['order']> = {}) {
  return {
    id: '3295357412',
    amount: (10n * E18).toString(),
    amountFilled: '0',
    marketId: 2107,
    status: 'OPEN',
    strategy: 'LIMIT',
    isNegRisk: false,
    isYieldBearing: true,
    ...over,
    order: {
      hash: HASH,
      salt: '1788885038954',
      maker: ME,
      tokenId: '117',
      makerAmount: (4n * E18).toString(),
      takerAmount: (10n * E18).toString(),
      expiration: 1788888638,
      side: 0 as const,
      ...order,
    },
  };
}

const name = (_: number, tokenId: string) => (tokenId === '117' ? 'Yes' : 'No');

test("an order's price is its collateral leg over its shares; status and fills follow the venue's", () => {
  const buy = toOrder(doc(), name);
  assert.deepEqual(
    [buy.id, buy.market_id, buy.outcome, buy.side, buy.price, buy.size, buy.filled, buy.status],
    [HASH, '2107', 'Yes', 'buy', 0.4, 10, 0, 'open'],
  );
  const sell = toOrder(
    doc(
      { amountFilled: (3n * E18).toString() },
      { side: 1, makerAmount: (10n * E18).toString(), takerAmount: (7n * E18).toString() },
    ),
    name,
  );
  assert.deepEqual([sell.side, sell.price, sell.filled, sell.status], ['sell', 0.7, 3, 'partially_filled']);
  for (const [venue, ours] of [
    ['FILLED', 'filled'],
    ['CANCELLED', 'cancelled'],
    ['EXPIRED', 'expired'],
    ['SOMETHING_NEW', 'pending'],
  ] as const) {
    assert.equal(toOrder(doc({ status: venue }), name).status, ours);
  }
});

test('created_at is read back from our salt; a foreign salt says unknown (the epoch)', () => {
  const now = Date.UTC(2026, 11, 1, 12);
  const salt = timedSalt(now);
  assert.equal(saltCreatedAt(salt.toString(), now), new Date(now).toISOString());
  assert.equal(
    toOrder(doc({}, { salt: salt.toString() }), name, now).created_at,
    new Date(now).toISOString(),
  );
  for (const foreign of ['1', '1788885038954', '2147483647', '99999999999999999999']) {
    assert.equal(toOrder(doc({}, { salt: foreign }), name, now).created_at, '1970-01-01T00:00:00.000Z');
  }
});

function match(over: Partial<PredictfunMatch> = {}): PredictfunMatch {
  const leg = (signer: string, quoteType: string, fee: { amount: string; type: string }, hash: string) => ({
    amount: (10n * E18).toString(),
    price: (4n * 10n ** 17n).toString(),
    quoteType,
    signer,
    hash,
    fee,
    outcome: { indexSet: 1, name: 'Yes', onChainId: '117' },
  });
  return {
    amountFilled: (10n * E18).toString(),
    priceExecuted: (4n * 10n ** 17n).toString(),
    executedAt: '2026-09-06T11:45:23.000Z',
    settlementId: '01a07689-955a-7070-86af-a100b7b7350c',
    transactionHash: `0x${'cd'.repeat(32)}`,
    // A buying taker's fee in shares: 0.02 × 0.4 × 10 = $0.08 = 0.2 shares at 0.4.
    taker: leg(ME, 'Bid', { amount: (2n * 10n ** 17n).toString(), type: 'SHARES' }, HASH),
    makers: [
      leg(
        '0x0000000000000000000000000000000000000002',
        'Ask',
        { amount: '0', type: 'SHARES' },
        `0x${'01'.repeat(32)}`,
      ),
    ],
    market: { id: 2107 },
    ...over,
  };
}

test("the wallet's legs are its fills, the fee in USD whether taken in shares or in USDT", () => {
  const [taker, ...rest] = matchFills(match(), ME.toLowerCase());
  assert.deepEqual(rest, []);
  assert.deepEqual(taker, {
    fill_id: `01a07689-955a-7070-86af-a100b7b7350c:${HASH}`,
    order_id: HASH,
    market_id: '2107',
    outcome: 'Yes',
    side: 'buy',
    price: 0.4,
    size: 10,
    is_taker: true,
    fee: 0.08,
    created_at: '2026-09-06T11:45:23.000Z',
  });
  const seller = match();
  seller.taker = {
    ...seller.taker,
    quoteType: 'Ask',
    fee: { amount: (8n * 10n ** 16n).toString(), type: 'COLLATERAL' },
  };
  assert.deepEqual(
    matchFills(seller, ME).map((f) => [f.side, f.fee]),
    [['sell', 0.08]],
  );
});

test('a self-trade is two fills; a match not yet settled is none; no leg of ours is none', () => {
  const self = match();
  self.makers = [{ ...(self.makers[0] as PredictfunMatch['makers'][number]), signer: ME }];
  assert.deepEqual(
    matchFills(self, ME).map((f) => [f.is_taker, f.fee]),
    [
      [true, 0.08],
      [false, 0],
    ],
  );
  assert.deepEqual(matchFills(match({ settlementId: null }), ME), []);
  assert.deepEqual(matchFills(match(), '0x0000000000000000000000000000000000000009'), []);
});
