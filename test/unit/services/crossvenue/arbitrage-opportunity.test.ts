// Directions of a link and their pricing rules: an inverted twin's Yes is the counterpart of our Yes (so Yes is
// bought on both), only yes/no markets pair, ids are stable per link and direction, a leg whose fee the model cannot
// compute is never priced, a link whose resolution check says the twins can settle differently is flagged, and
// one that was never checked says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OrderBook } from '../../../../src/domain/book.js';
import type { FeeSchedule } from '../../../../src/domain/fees/schedule.js';
import type { ResolutionDifference } from '../../../../src/domain/matching/resolution.js';
import {
  type Direction,
  directionId,
  directionsOf,
  priceDirection,
} from '../../../../src/services/crossvenue/arbitrage-opportunity.js';
import type { MarketTarget } from '../../../../src/services/market-data/market-target.js';
import type { SameMarketPair } from '../../../../src/store/links-repo.js';

function targets(exchange: string, id: string, names = ['Yes', 'No']): MarketTarget[] {
  const market = { svc_id: `${exchange}:${id}`, exchange_market_id: id, tick_size: 0.01 };
  const venue = { descriptor: { id: exchange } };
  return names.map((name) => ({
    venue,
    market,
    outcome: { name, token_id: `${id}-${name}` },
  })) as unknown as MarketTarget[];
}

const pair = (inverted: boolean, check?: SameMarketPair['resolution_check']): SameMarketPair => ({
  a: { svc_id: 'kalshi:A', exchange: 'kalshi', status: 'active' },
  b: { svc_id: 'polymarket:B', exchange: 'polymarket', status: 'active' },
  confidence: 0.9,
  confidence_tier: 'HIGH',
  source: 'test',
  inverted,
  ...(check !== undefined ? { resolution_check: check } : {}),
});

const book = (asks: Array<[number, number]>): OrderBook => ({
  exchange: 'kalshi',
  market_id: 'A',
  outcome: 'Yes',
  token_id: 't',
  bids: [],
  asks,
  timestamp: new Date(0).toISOString(),
  tick_size: 0.01,
});
const NONE: FeeSchedule = { venue: 'polymarket', rate: '0', exponent: 1 };
const options = { minSize: 1, minEdgeBps: null };

const legs = (d: Direction) => d.legs.map((l) => `${l.target.market.svc_id} ${l.target.outcome.name}`);

test('a link asked the same way round pairs Yes with No; an inverted one pairs Yes with Yes', () => {
  const same = directionsOf(pair(false), targets('kalshi', 'A'), targets('polymarket', 'B'));
  assert.ok(Array.isArray(same));
  assert.deepEqual(same.map(legs), [
    ['kalshi:A Yes', 'polymarket:B No'],
    ['kalshi:A No', 'polymarket:B Yes'],
  ]);
  const inverted = directionsOf(pair(true), targets('kalshi', 'A'), targets('polymarket', 'B'));
  assert.ok(Array.isArray(inverted));
  assert.deepEqual(inverted.map(legs), [
    ['kalshi:A Yes', 'polymarket:B Yes'],
    ['kalshi:A No', 'polymarket:B No'],
  ]);
  // Stable: the same link and outcome give the same id; the other direction another.
  assert.equal(same[0]?.id, directionId(pair(false), 'yes'));
  assert.notEqual(same[0]?.id, same[1]?.id);
  assert.match(
    String(
      directionsOf(
        pair(false),
        targets('kalshi', 'A', ['Alice', 'Bob', 'Carol']),
        targets('polymarket', 'B'),
      ),
    ),
    /yes\/no markets only/,
  );
});

test('priced: a leg without a computable fee is never priced; resolution checks flag or say unverified', () => {
  const [dir] = directionsOf(pair(false), targets('kalshi', 'A'), targets('polymarket', 'B')) as Direction[];
  assert.ok(dir);
  const quotes = (schedule: FeeSchedule) =>
    [
      { book: book([[0.4, 10]]), schedule },
      { book: book([[0.5, 10]]), schedule: NONE },
    ] as const;
  const unknownFee = priceDirection(dir, quotes({ venue: 'opinion' }), options);
  assert.equal(unknownFee.ok, false);
  assert.match(unknownFee.ok ? '' : unknownFee.reason, /does not publish/);
  const priced = priceDirection(dir, quotes(NONE), options);
  assert.ok(priced.ok);
  assert.equal(priced.opportunity.edge_bps, 1000);
  assert.equal(priced.opportunity.max_profitable_size, 10);
  assert.deepEqual(priced.opportunity.resolution_check.checked, false);
  assert.equal(priced.opportunity.unsafe, false);
  const side = (deadline: string) => ({ deadline, deadline_source: 'end', settlement_source: null });
  const checked = (differences: ResolutionDifference[]) => ({
    comparable: differences.length === 0,
    differences,
    market: side('2026-07-20T23:59:59.000Z'),
    linked: side('2026-07-27T23:59:59.000Z'),
  });
  // Only `unknown`: one side states less than the other; not known to settle differently, nor vouched for.
  const [unstated] = directionsOf(
    pair(false, checked(['unknown'])),
    targets('kalshi', 'A'),
    targets('polymarket', 'B'),
  ) as Direction[];
  const vague = priceDirection(unstated as Direction, quotes(NONE), options);
  assert.ok(vague.ok);
  assert.equal(vague.opportunity.unsafe, false);
  assert.deepEqual(vague.opportunity.resolution_check, {
    checked: true,
    comparable: null,
    differences: ['unknown'],
  });
  const [risky] = directionsOf(
    pair(false, checked(['deadline', 'unknown'])),
    targets('kalshi', 'A'),
    targets('polymarket', 'B'),
  ) as Direction[];
  const flagged = priceDirection(risky as Direction, quotes(NONE), options);
  assert.ok(flagged.ok);
  assert.equal(flagged.opportunity.unsafe, true);
  assert.deepEqual(flagged.opportunity.resolution_check, {
    checked: true,
    comparable: false,
    differences: ['deadline', 'unknown'],
  });
  // A floor: 0 still needs a profit; a negative one lists a direction that does not pay.
  const even = [
    { book: book([[0.5, 10]]), schedule: NONE },
    { book: book([[0.5, 10]]), schedule: NONE },
  ] as const;
  assert.equal(priceDirection(dir, even, { minSize: 1, minEdgeBps: 0 }).ok, false);
  const near = priceDirection(dir, even, { minSize: 1, minEdgeBps: -1 });
  assert.ok(near.ok);
  assert.equal(near.opportunity.max_profitable_size, null);
});
