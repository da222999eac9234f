// Properties that must hold for any seed, market, step and order flow: house ladders are sorted, on tick and
// uncrossed; matching keeps every book sorted and uncrossed, the NO book a mirror of YES, and collateral plus
// minted sets conserved (fees included: they move to the fee collector); identifiers decode back; same seed gives
// the same catalogue. Pure parts are driven directly, the rest over HTTP.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Accounts } from '../../../sim/polymarket/accounts.js';
import { Catalogue, type PmMarket } from '../../../sim/polymarket/catalogue.js';
import { bookSummary } from '../../../sim/polymarket/clob-payloads.js';
import { Exchange } from '../../../sim/polymarket/exchange.js';
import { houseLadder } from '../../../sim/polymarket/house.js';
import {
  conditionIdFor,
  decodeConditionIndex,
  decodeTokenId,
  tokenIdFor,
} from '../../../sim/polymarket/ids.js';
import { startPolymarketSim } from '../../../sim/polymarket/index.js';
import { newOrder, type OrderType, type PmOrder } from '../../../sim/polymarket/order.js';
import { createWorld } from '../../../sim/shared/world.js';
import { assertProperty } from '../../support/property.js';
import { activeMarkets, book, connect, control, getJson } from './support.js';

const ONE = 1_000_000;

function catalogue(seed: number, size: number): Catalogue {
  const world = createWorld({ seed, size });
  return new Catalogue(world, world.seed);
}

function assertSortedUncrossed(
  bids: Array<[number, number]>,
  asks: Array<[number, number]>,
  label: string,
): void {
  for (let i = 1; i < bids.length; i++)
    assert.ok((bids[i - 1]?.[0] ?? 0) > (bids[i]?.[0] ?? 0), `${label}: bids desc`);
  for (let i = 1; i < asks.length; i++)
    assert.ok((asks[i - 1]?.[0] ?? 0) < (asks[i]?.[0] ?? 0), `${label}: asks asc`);
  const bid = bids[0]?.[0];
  const ask = asks[0]?.[0];
  if (bid !== undefined && ask !== undefined)
    assert.ok(bid < ask, `${label}: best bid ${bid} < best ask ${ask}`);
  for (const [, size] of [...bids, ...asks]) assert.ok(size > 0, `${label}: positive sizes`);
}

test('house ladders are sorted, on tick, inside (0, 1) and uncrossed at every step', () => {
  const cat = catalogue(101, 300);
  const active = cat.markets.filter((m) => m.status === 'active');
  assertProperty(
    fc.property(
      fc.integer({ min: 0, max: active.length - 1 }),
      fc.integer({ min: 0, max: 20_000 }),
      (i, step) => {
        const m = active[i] as PmMarket;
        const ladder = houseLadder(m, step);
        assert.ok(ladder.tick === 1000 || ladder.tick === 10_000);
        assertSortedUncrossed(ladder.bids, ladder.asks, `${m.slug}@${step}`);
        for (const [price] of [...ladder.bids, ...ladder.asks]) {
          assert.equal(price % ladder.tick, 0);
          assert.ok(price >= ladder.tick && price <= ONE - ladder.tick);
        }
      },
    ),
    { numRuns: 2000, examples: [] },
  );
});

test('ids decode back to their market and outcome; other ids do not', () => {
  assertProperty(
    fc.property(
      fc.integer({ min: 1, max: 2 ** 31 - 1 }),
      fc.integer({ min: 0, max: 5_000_000 }),
      (seed, index) => {
        assert.equal(decodeConditionIndex(seed, conditionIdFor(seed, index)), index);
        for (const outcome of [0, 1] as const) {
          assert.deepEqual(decodeTokenId(seed, tokenIdFor(seed, index, outcome)), { index, outcome });
        }
        assert.equal(decodeConditionIndex(seed + 1, conditionIdFor(seed, index)), null);
        assert.equal(decodeTokenId(seed + 1, tokenIdFor(seed, index, 0)), null);
      },
    ),
    { numRuns: 300, examples: [] },
  );
  assertProperty(
    fc.property(fc.stringMatching(/^[0-9]{1,78}$/), (text) => {
      const decoded = decodeTokenId(7, text);
      if (decoded) assert.equal(tokenIdFor(7, decoded.index, decoded.outcome), text);
    }),
    { examples: [] },
  );
});

test('same seed, same catalogue; another seed, other ids', () => {
  assertProperty(
    fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 120 }), (seed, size) => {
      const a = catalogue(seed, size);
      const b = catalogue(seed, size);
      const shape = (c: Catalogue) =>
        c.markets.map((m) => [
          m.slug,
          c.conditionId(m),
          ...c.tokenIds(m),
          m.question,
          m.f0,
          m.baseTick,
          m.feeRate,
        ]);
      assert.deepEqual(shape(a), shape(b));
      assert.deepEqual(a.manifest(), b.manifest());
      const other = catalogue(seed + 1, size);
      const ids = new Set(other.markets.map((m) => other.conditionId(m)));
      assert.ok(a.markets.every((m) => !ids.has(a.conditionId(m))));
    }),
    { numRuns: 40, examples: [] },
  );
});

interface Op {
  kind: 'order' | 'cancel' | 'advance';
  trader: number;
  outcome: 0 | 1;
  side: 'BUY' | 'SELL';
  ticks: number;
  shares: number;
  type: OrderType;
  pick: number;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom('order', 'order', 'order', 'order', 'cancel', 'advance'),
  trader: fc.integer({ min: 0, max: 2 }),
  outcome: fc.constantFrom(0 as const, 1 as const),
  side: fc.constantFrom('BUY' as const, 'SELL' as const),
  ticks: fc.integer({ min: 1, max: 99 }),
  shares: fc.integer({ min: 1, max: 60 }),
  type: fc.constantFrom(
    'GTC' as OrderType,
    'GTC' as OrderType,
    'GTD' as OrderType,
    'FOK' as OrderType,
    'FAK' as OrderType,
  ),
  pick: fc.nat(),
});

test('any order flow keeps books sorted and uncrossed, NO a mirror of YES, and collateral plus sets conserved', () => {
  assertProperty(
    fc.property(
      fc.integer({ min: 1, max: 10_000 }),
      fc.array(opArb, { minLength: 1, maxLength: 60 }),
      (seed, ops) => {
        const world = createWorld({ seed, size: 30 });
        const cat = new Catalogue(world, world.seed);
        const m = cat.markets.find((x) => x.status === 'active' && x.baseTick === 10_000);
        if (!m) return;
        const accounts = new Accounts();
        let now = Date.UTC(2026, 10, 22);
        const exchange = new Exchange(cat, accounts, () => now);
        const traders = ['0x1', '0x2', '0x3'].map((a) => a.padEnd(42, '0'));
        for (const t of traders) accounts.wallet(t).collateral = 1_000 * ONE;
        const total = () => {
          let sum = 0;
          let yes = 0;
          let no = 0;
          const [yesToken, noToken] = cat.tokenIds(m);
          for (const w of accounts.allWallets()) {
            sum += w.collateral;
            yes += w.positions.get(yesToken)?.size ?? 0;
            no += w.positions.get(noToken)?.size ?? 0;
          }
          assert.equal(yes, no, 'every YES share has its NO twin');
          return sum + yes;
        };
        const start = total();
        const orders: PmOrder[] = [];
        for (const op of ops) {
          now += 1000;
          if (op.kind === 'advance') exchange.advance(1);
          else if (op.kind === 'cancel') {
            const o = orders[op.pick % Math.max(1, orders.length)];
            if (o) exchange.cancel(o);
          } else {
            const account = traders[op.trader] as string;
            const o = newOrder({
              id: `0x${String(orders.length + 1).padStart(64, '0')}`,
              seq: exchange.nextSeq(),
              house: false,
              ownerKey: `key-${op.trader}`,
              makerAddress: account,
              account,
              market: m,
              outcome: op.outcome,
              side: op.side,
              price: op.ticks * 10_000,
              size: op.shares * ONE,
              orderType: op.type,
              expiration: op.type === 'GTD' ? Math.floor(now / 1000) + 3600 : 0,
              createdAt: Math.floor(now / 1000),
            });
            if (exchange.submit(o, false).ok) orders.push(o);
          }
          const view = exchange.view(m);
          assert.ok(view);
          assertSortedUncrossed(view.depth.bids, view.depth.asks, 'YES');
          const yes = bookSummary(cat, m, 0, view);
          const no = bookSummary(cat, m, 1, view);
          assert.deepEqual(
            no.bids.map((l) => [Math.round((1 - Number(l.price)) * ONE), l.size]),
            yes.asks.map((l) => [Math.round(Number(l.price) * ONE), l.size]),
          );
          assert.equal(total(), start, 'collateral + minted sets');
        }
      },
    ),
    { numRuns: 150, examples: [] },
  );
});

test('over HTTP, every live and untouched book stays sorted and uncrossed at every advance step', async () => {
  const sim = await startPolymarketSim({ seed: 31, size: 120 });
  try {
    const markets = (await activeMarkets(sim)).slice(0, 12);
    const ws = await connect(sim.urls.wsMarket);
    ws.send({ type: 'market', assets_ids: markets.slice(0, 6).map((m) => m.yes), initial_dump: false });
    ws.send('PING');
    for (let step = 0; step < 25; step++) {
      for (const m of markets) {
        for (const token of [m.yes, m.no]) {
          const b = await book(sim, token);
          const bids = b.bids.map((l): [number, number] => [Number(l.price), Number(l.size)]).reverse();
          const asks = b.asks.map((l): [number, number] => [Number(l.price), Number(l.size)]).reverse();
          assertSortedUncrossed(bids, asks, `${token}@${step}`);
        }
      }
      assert.equal((await control(sim, 'POST', '/__sim/advance', { steps: 1 })).json.step, step + 1);
    }
    ws.ws.close();
  } finally {
    await sim.close();
  }
});

test('two simulators with one seed serve the same catalogue', async () => {
  const [a, b] = await Promise.all([
    startPolymarketSim({ seed: 37, size: 90 }),
    startPolymarketSim({ seed: 37, size: 90 }),
  ]);
  try {
    assert.deepEqual(
      (await getJson(`${a.control}/__sim/manifest`)).json,
      (await getJson(`${b.control}/__sim/manifest`)).json,
    );
    assert.deepEqual(
      (await getJson(`${a.urls.gamma}/events?limit=500`)).json,
      (await getJson(`${b.urls.gamma}/events?limit=500`)).json,
    );
    assert.deepEqual(
      (await getJson(`${a.urls.clob}/markets`)).json,
      (await getJson(`${b.urls.clob}/markets`)).json,
    );
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
