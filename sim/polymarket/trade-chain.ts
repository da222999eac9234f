// A CLOB match settled on the sandbox chain, as the real CTF Exchange's matchOrders settles it: for a market listed
// on chain, every fill with a user on either side becomes one leg of one `settle` transaction of the simulator's
// exchange (contracts/SettlementExchange.sol) — a transfer when both trade the same outcome, a mint when both buy
// complementary outcomes, a merge when both sell them — with exactly the collateral the simulator's ledger moved
// for it (settlement.ts: per fill the YES side pays or gets round(q·p), the NO side q − that), then the taker's fee.
// Fills between two house orders are the house's own paper prints and stay off chain. Once mined the trade carries
// the real transaction hash; a reverted settlement marks the trade FAILED, as Polymarket reports a match whose
// transaction failed, and the exchange then takes the match back out of the ledger (Exchange.settled).
import type { Address, Hex } from 'viem';
import type { Accounts } from './accounts.js';
import { type Catalogue, HOUSE_ADDRESS } from './catalogue.js';
import type { SimChain } from './chain.js';
import { bytes32For } from './ids.js';
import type { PmOrder } from './order.js';
import { FEE_COLLECTOR } from './settlement.js';
import { type ChainFill, type ChainSettlement, exchangeFor, FillKind } from './settlement-chain.js';
import type { TradeRecord } from './trade.js';
import { mulPrice, ONE } from './units.js';

interface Plan {
  settlement: ChainSettlement;
  /** What the house must hold before the transaction: collateral it pays, and YES+NO sets for tokens it delivers. */
  house: { address: Address; collateral: bigint; sets: bigint };
}

/** The on-chain legs of a trade, or null when it has none (an off-chain market, or house against house only). */
export function planChainSettlement(cat: Catalogue, t: TradeRecord): Plan | null {
  const m = t.market;
  if (!cat.isOnChain(m)) return null;
  const [yesId, noId] = cat.tokenIds(m);
  const fills: ChainFill[] = [];
  let houseCollateral = 0n;
  const houseTokens = [0n, 0n];
  const owner = (o: PmOrder) => o.account as Address;
  for (const f of t.makers) {
    const maker = f.order;
    const taker = t.taker;
    if (maker.house && taker.house) continue;
    const yesPrice = maker.outcome === 0 ? f.price : ONE - f.price;
    const yesAmount = BigInt(mulPrice(f.size, yesPrice));
    const shares = BigInt(f.size);
    const noAmount = shares - yesAmount;
    const pays = (o: PmOrder, amount: bigint) => {
      if (o.house) houseCollateral += amount;
    };
    const delivers = (o: PmOrder, outcome: 0 | 1) => {
      if (o.house) houseTokens[outcome] = (houseTokens[outcome] as bigint) + shares;
    };
    if (maker.outcome === taker.outcome) {
      const [buyer, seller] = maker.side === 'BUY' ? [maker, taker] : [taker, maker];
      const amount = maker.outcome === 0 ? yesAmount : noAmount;
      pays(buyer, amount);
      delivers(seller, maker.outcome);
      fills.push({
        kind: FillKind.Transfer,
        first: owner(buyer),
        second: owner(seller),
        tokenId: BigInt(cat.tokenId(m, maker.outcome)),
        shares,
        firstAmount: amount,
        secondAmount: 0n,
      });
      continue;
    }
    const [yes, no] = maker.outcome === 0 ? [maker, taker] : [taker, maker];
    if (maker.side !== taker.side)
      throw new Error('a fill of complementary outcomes pairs two buys or two sells');
    if (maker.side === 'BUY') {
      pays(yes, yesAmount);
      pays(no, noAmount);
    } else {
      delivers(yes, 0);
      delivers(no, 1);
    }
    fills.push({
      kind: maker.side === 'BUY' ? FillKind.Mint : FillKind.Merge,
      first: owner(yes),
      second: owner(no),
      tokenId: 0n,
      shares,
      firstAmount: yesAmount,
      secondAmount: noAmount,
    });
  }
  if (fills.length === 0) return null;
  const [yesNeed = 0n, noNeed = 0n] = houseTokens;
  return {
    settlement: {
      tradeId: bytes32For(`polymarket-sim|trade|${t.id}`) as Hex,
      exchange: exchangeFor(m.event.negRisk),
      market: { conditionId: cat.conditionId(m) as Hex, yesId: BigInt(yesId), noId: BigInt(noId) },
      fills,
      feePayer: owner(t.taker),
      feeCollector: FEE_COLLECTOR as Address,
      fee: BigInt(t.fee),
    },
    house: {
      address: HOUSE_ADDRESS as Address,
      collateral: houseCollateral,
      sets: yesNeed > noNeed ? yesNeed : noNeed,
    },
  };
}

/**
 * Settles a trade on chain if it has on-chain legs; never rejects. The trade (and every participant's fill of it)
 * then carries the settlement's transaction hash, and `chainStatus` says whether it was mined successfully
 * (PENDING from the call until then, set before the first await so the match is announced as MATCHED only).
 */
export async function settleOnChain(
  chain: SimChain,
  cat: Catalogue,
  accounts: Accounts,
  t: TradeRecord,
): Promise<void> {
  const plan = planChainSettlement(cat, t);
  if (!plan) return;
  t.chainStatus = 'PENDING';
  try {
    const { hash, success } = await chain.settleTrade(plan.settlement, plan.house);
    t.txHash = hash;
    for (const o of [t.taker, ...t.makers.map((f) => f.order)]) {
      for (const fill of accounts.peek(o.account).fills) if (fill.tradeId === t.id) fill.txHash = hash;
    }
    t.chainStatus = success ? 'CONFIRMED' : 'FAILED';
  } catch {
    // The chain did not take the transaction at all (anvil gone): nothing moved on chain, and there is no hash.
    t.txHash = '';
    for (const o of [t.taker, ...t.makers.map((f) => f.order)]) {
      for (const fill of accounts.peek(o.account).fills) if (fill.tradeId === t.id) fill.txHash = '';
    }
    t.chainStatus = 'FAILED';
  }
}
