// One match on the simulated CLOB (a taker order against one or more resting orders) and how Polymarket renders it:
// the REST Trade of GET /data/trades and the user-channel `trade` event. Top-level fields describe the taker's side;
// `owner`, `maker_address` and `trader_side` describe the participant the row is shown to.
import type { Catalogue, PmMarket } from './catalogue.js';
import { outcomeName, type PmOrder } from './order.js';
import type { LedgerMove } from './settlement.js';
import { fmtUnits } from './units.js';

export interface MakerFill {
  order: PmOrder;
  /** Shares, base units. */
  size: number;
  /** The maker's own-token price, micro. */
  price: number;
}

export interface TradeRecord {
  id: string;
  market: PmMarket;
  taker: PmOrder;
  makers: MakerFill[];
  /** Taker shares, base units. */
  size: number;
  /** Taker's own-token average price, micro. */
  price: number;
  /** Collateral the taker paid or received, base units (fees excluded). */
  usdc: number;
  /** Taker fee charged, collateral base units. */
  fee: number;
  feeRateBps: number;
  ms: number;
  txHash: string;
  /**
   * With the sandbox chain, for a market listed on it: where the match's settlement transaction stands (trade-chain.ts).
   * Absent for a match settled in the ledger only.
   */
  chainStatus?: 'PENDING' | 'CONFIRMED' | 'FAILED';
  /** Resolves once the on-chain settlement (if any) is mined or has failed, and the ledger agrees; never rejects. */
  settled?: Promise<void>;
  /** What the match changed in the ledger, to take back if its settlement fails (settlement.ts). */
  ledger: LedgerMove[];
}

export interface Viewer {
  apiKey: string;
  makerAddress: string;
  side: 'TAKER' | 'MAKER';
}

function makerOrdersJson(t: TradeRecord, cat: Catalogue): Array<Record<string, unknown>> {
  return t.makers.map((m) => ({
    order_id: m.order.id,
    owner: m.order.ownerKey,
    maker_address: m.order.makerAddress,
    matched_amount: fmtUnits(m.size),
    price: fmtUnits(m.price),
    fee_rate_bps: '0',
    asset_id: cat.tokenId(m.order.market, m.order.outcome),
    outcome: outcomeName(m.order.outcome),
    side: m.order.side,
  }));
}

/**
 * Where a trade stands, in Polymarket's statuses (MATCHED → MINED → CONFIRMED, or FAILED): a ledger-only match is
 * confirmed at once; an on-chain one is MATCHED until its settlement's receipt, then CONFIRMED or FAILED (the sandbox
 * chain has no reorgs, so mined is final and there is no RETRYING).
 */
export function tradeStatus(t: TradeRecord): 'MATCHED' | 'CONFIRMED' | 'FAILED' {
  return t.chainStatus === 'PENDING' ? 'MATCHED' : (t.chainStatus ?? 'CONFIRMED');
}

/** The settlement transaction's hash: none while an on-chain settlement is not mined yet. */
function txHashOf(t: TradeRecord): string {
  return t.chainStatus === 'PENDING' ? '' : t.txHash;
}

/** REST Trade (GET /data/trades); REST prefixes the status. */
export function tradeJson(t: TradeRecord, cat: Catalogue, viewer: Viewer): Record<string, unknown> {
  const seconds = String(Math.floor(t.ms / 1000));
  return {
    id: t.id,
    taker_order_id: t.taker.id,
    market: cat.conditionId(t.market),
    asset_id: cat.tokenId(t.market, t.taker.outcome),
    side: t.taker.side,
    size: fmtUnits(t.size),
    fee_rate_bps: String(t.feeRateBps),
    price: fmtUnits(t.price),
    status: `TRADE_STATUS_${tradeStatus(t)}`,
    match_time: seconds,
    last_update: seconds,
    outcome: outcomeName(t.taker.outcome),
    bucket_index: 0,
    owner: viewer.apiKey,
    maker_address: viewer.makerAddress,
    maker_orders: makerOrdersJson(t, cat),
    transaction_hash: txHashOf(t),
    trader_side: viewer.side,
  };
}

/** User-channel `trade` event; the WebSocket sends the status without the TRADE_STATUS_ prefix. */
export function tradeEventJson(
  t: TradeRecord,
  cat: Catalogue,
  viewer: Viewer,
  status: 'MATCHED' | 'MINED' | 'CONFIRMED' | 'FAILED',
  nowMs: number,
): Record<string, unknown> {
  const seconds = String(Math.floor(t.ms / 1000));
  return {
    asset_id: cat.tokenId(t.market, t.taker.outcome),
    bucket_index: 0,
    event_type: 'trade',
    fee_rate_bps: String(t.feeRateBps),
    id: t.id,
    last_update: String(Math.floor(nowMs / 1000)),
    maker_address: viewer.makerAddress,
    maker_orders: makerOrdersJson(t, cat),
    market: cat.conditionId(t.market),
    match_time: seconds,
    outcome: outcomeName(t.taker.outcome),
    owner: viewer.apiKey,
    price: fmtUnits(t.price),
    side: t.taker.side,
    size: fmtUnits(t.size),
    status,
    taker_order_id: t.taker.id,
    timestamp: String(nowMs),
    trade_owner: viewer.apiKey,
    trader_side: viewer.side,
    transaction_hash: txHashOf(t),
    type: 'TRADE',
  };
}
