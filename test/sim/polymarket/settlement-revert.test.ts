// Taking a match back out of the ledger (settlement.ts revertSettlement), as the exchange does when the match's
// on-chain settlement fails: every wallet's collateral and position, the fee collector's take and each order's
// matched size return to what they would be without the match — exactly, also after a later match moved the same
// wallets (the ledger keeps deltas, not snapshots).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Accounts } from '../../../sim/polymarket/accounts.js';
import { Catalogue, type PmMarket } from '../../../sim/polymarket/catalogue.js';
import { FEE_COLLECTOR, revertSettlement, settle } from '../../../sim/polymarket/settlement.js';
import { createWorld } from '../../../sim/shared/world.js';
import { simUserOrder } from '../../support/sim-polymarket-order.js';

const world = createWorld({ seed: 11, size: 60 });
const cat = new Catalogue(world, world.seed);
const market = cat.markets.find((m) => m.status === 'active' && m.feeRate > 0) as PmMarket;

/** What a test compares: each wallet's collateral and positions (size, cost, bought, realized). */
function ledger(accounts: Accounts, addresses: string[]) {
  return addresses.map((a) => {
    const w = accounts.wallet(a);
    return {
      collateral: w.collateral,
      positions: [...w.positions.entries()].map(([id, p]) => [id, p.size, p.cost, p.bought, p.realized]),
    };
  });
}

test('a reverted match leaves the ledger as it would be without it, after a later match moved the same wallets', () => {
  assert.ok(market, 'an active market with a taker fee');
  const [a, b, c] = ['a', 'b', 'c'].map((x) => `0x${x.repeat(40)}`) as [string, string, string];
  const run = (withFirst: boolean) => {
    const accounts = new Accounts();
    for (const w of [a, b, c]) accounts.wallet(w).collateral = 100_000_000;
    // c holds NO from before, so it can sell some in the later match.
    accounts.position(accounts.wallet(c), market, 1, cat.tokenId(market, 1)).size = 20_000_000;
    // The first match: b's resting YES buy at 0.40 meets a's NO buy at 0.60 (a mint), a the taker paying the fee.
    const restingYes = simUserOrder(market, b, 'BUY', 400_000, 10_000_000, 0);
    const takerNo = simUserOrder(market, a, 'BUY', 600_000, 10_000_000, 1);
    const first = withFirst
      ? settle(accounts, cat, takerNo, [{ maker: restingYes, size: 10_000_000, yesPrice: 400_000 }], 1)
      : null;
    // The later match, over the same wallets: c sells NO to a's resting NO buy at 0.55.
    const restingNo = simUserOrder(market, a, 'BUY', 550_000, 5_000_000, 1);
    const takerSell = simUserOrder(market, c, 'SELL', 550_000, 5_000_000, 1);
    settle(accounts, cat, takerSell, [{ maker: restingNo, size: 5_000_000, yesPrice: 450_000 }], 2);
    if (first) {
      assert.ok(first.fee > 0, 'the first match charged a fee');
      revertSettlement(accounts, first);
      assert.equal(takerNo.matched, 0);
      assert.equal(restingYes.matched, 0);
      assert.ok(
        accounts
          .wallet(a)
          .fills.filter((f) => f.tradeId === first.id)
          .every((f) => f.failed),
      );
      assert.equal(first.ledger.length, 0, 'a match is taken back once');
    }
    return ledger(accounts, [a, b, c, FEE_COLLECTOR]);
  };
  const reverted = run(true);
  const without = run(false);
  // Positions the reverted match created stay as empty entries; everything else is equal.
  const nonEmpty = (l: ReturnType<typeof run>) =>
    l.map((w) => ({ ...w, positions: w.positions.filter(([, size, cost]) => size !== 0 || cost !== 0) }));
  assert.deepEqual(nonEmpty(reverted), nonEmpty(without));
});
