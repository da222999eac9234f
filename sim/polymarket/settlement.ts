// Instant settlement of a match: collateral and outcome tokens move between the taker and each maker, positions
// keep their cost basis, and the taker pays the market's V2 fee. Per fill, the collateral is split from the YES
// price (yes side pays or gets round(q·p), no side q − that), so mints and merges conserve collateral exactly.
// Every change is also recorded as a delta on the trade, so a match whose on-chain settlement fails can be taken
// back out of the ledger (revertSettlement) even after later trades moved the same wallets.
import { randomUUID } from 'node:crypto';
import { type Accounts, applyFill, type Fill, type Position, type Wallet } from './accounts.js';
import type { Catalogue } from './catalogue.js';
import { bytes32For } from './ids.js';
import type { BookFill } from './matching.js';
import { type PmOrder, remaining } from './order.js';
import type { MakerFill, TradeRecord } from './trade.js';
import { mulPrice, ONE } from './units.js';

export const FEE_COLLECTOR = '0x00000000000000000000000000000000000fee01';

/** V2 taker fee: rate × (p(1−p))^exponent per share, in collateral base units. */
export function takerFee(rate: number, exponent: number, priceMicro: number, shares: number): number {
  if (rate <= 0 || shares <= 0) return 0;
  const p = priceMicro / ONE;
  return Math.round(rate * (p * (1 - p)) ** exponent * shares);
}

/** One ledger change of a trade, as deltas: what undoing it subtracts. */
export interface LedgerMove {
  wallet: Wallet;
  collateral: number;
  position: { at: Position; size: number; cost: number; bought: number; realized: number } | null;
}

function move(
  accounts: Accounts,
  cat: Catalogue,
  o: PmOrder,
  shares: number,
  usdc: number,
  moves: LedgerMove[],
): void {
  const w = accounts.wallet(o.account);
  const collateral = o.side === 'BUY' ? -usdc : usdc;
  w.collateral += collateral;
  const p = accounts.position(w, o.market, o.outcome, cat.tokenId(o.market, o.outcome));
  const was = { size: p.size, cost: p.cost, bought: p.bought, realized: p.realized };
  applyFill(p, o.side, shares, usdc);
  moves.push({
    wallet: w,
    collateral,
    position: {
      at: p,
      size: p.size - was.size,
      cost: p.cost - was.cost,
      bought: p.bought - was.bought,
      realized: p.realized - was.realized,
    },
  });
}

function record(accounts: Accounts, o: PmOrder, fill: Omit<Fill, 'side' | 'market' | 'outcome'>): void {
  accounts.wallet(o.account).fills.push({ ...fill, side: o.side, market: o.market, outcome: o.outcome });
}

export function settle(
  accounts: Accounts,
  cat: Catalogue,
  taker: PmOrder,
  fills: readonly BookFill[],
  nowMs: number,
): TradeRecord {
  const id = randomUUID();
  const txHash = bytes32For(`polymarket-sim|tx|${id}`);
  const makers: MakerFill[] = [];
  const moves: LedgerMove[] = [];
  let size = 0;
  let usdc = 0;
  for (const f of fills) {
    const yesAmount = mulPrice(f.size, f.yesPrice);
    const noAmount = f.size - yesAmount;
    const makerUsdc = f.maker.outcome === 0 ? yesAmount : noAmount;
    const takerUsdc = taker.outcome === 0 ? yesAmount : noAmount;
    move(accounts, cat, f.maker, f.size, makerUsdc, moves);
    move(accounts, cat, taker, f.size, takerUsdc, moves);
    f.maker.matched += f.size;
    taker.matched += f.size;
    if (!f.maker.tradeIds.includes(id)) f.maker.tradeIds.push(id);
    const makerPrice = f.maker.outcome === 0 ? f.yesPrice : ONE - f.yesPrice;
    makers.push({ order: f.maker, size: f.size, price: makerPrice });
    record(accounts, f.maker, {
      timestampMs: nowMs,
      tradeId: id,
      size: f.size,
      price: makerPrice,
      usdc: makerUsdc,
      txHash,
      taker: false,
    });
    if (remaining(f.maker) <= 0) {
      f.maker.status = 'MATCHED';
      accounts.wallet(f.maker.account).open.delete(f.maker);
    }
    size += f.size;
    usdc += takerUsdc;
  }
  taker.tradeIds.push(id);
  const price = size > 0 ? Math.round((usdc * ONE) / size) : 0;
  const m = taker.market;
  const fee = taker.house ? 0 : takerFee(m.feeRate, m.feeExp, price, size);
  if (fee > 0) {
    accounts.wallet(taker.account).collateral -= fee;
    accounts.wallet(FEE_COLLECTOR).collateral += fee;
    moves.push({ wallet: accounts.wallet(taker.account), collateral: -fee, position: null });
    moves.push({ wallet: accounts.wallet(FEE_COLLECTOR), collateral: fee, position: null });
  }
  record(accounts, taker, { timestampMs: nowMs, tradeId: id, size, price, usdc, txHash, taker: true });
  return {
    id,
    market: m,
    taker,
    makers,
    size,
    price,
    usdc,
    fee,
    feeRateBps: taker.house ? 0 : Math.round(m.feeRate * 10_000),
    ms: nowMs,
    txHash,
    ledger: moves,
  };
}

/**
 * Takes a trade back out of the ledger (its settlement failed on chain, so nothing moved there): balances,
 * positions and fees by the recorded deltas, the participants' fills marked failed, each order's matched size
 * given back. Which orders rest again is the exchange's call (Exchange.settlementFailed).
 */
export function revertSettlement(accounts: Accounts, t: TradeRecord): void {
  for (const m of t.ledger.splice(0)) {
    m.wallet.collateral -= m.collateral;
    if (!m.position) continue;
    m.position.at.size -= m.position.size;
    m.position.at.cost -= m.position.cost;
    m.position.at.bought -= m.position.bought;
    m.position.at.realized -= m.position.realized;
  }
  for (const o of [t.taker, ...t.makers.map((f) => f.order)]) {
    for (const fill of accounts.peek(o.account).fills) if (fill.tradeId === t.id) fill.failed = true;
  }
  for (const f of t.makers) f.order.matched -= f.size;
  t.taker.matched -= t.size;
}
