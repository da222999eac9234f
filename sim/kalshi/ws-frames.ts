// The bodies (`msg`) of the simulator's WebSocket frames, in the exchange's field order (ASYNC spec; recorded
// frames): book snapshots and deltas, public trades, tickers, and the private fill and user_order messages.
import type { LevelChange } from './book.js';
import type { SimMarket } from './catalog.js';
import type { PublicTrade, SimExchange, SimFill, SimOrder } from './exchange.js';
import { count, dollars, ONE_DOLLAR, plainTimestamp, timestamp } from './fixed.js';

export type Frame = Record<string, unknown>;

/** A book level change; `useYesPrice` prices NO levels as YES asks (the subscription option, recorded). */
export function deltaMsg(
  ticker: string,
  marketId: string,
  change: LevelChange,
  useYesPrice: boolean,
  nowMs: number,
): Frame {
  const price = useYesPrice && change.side === 'no' ? ONE_DOLLAR - change.price : change.price;
  return {
    market_ticker: ticker,
    market_id: marketId,
    price_dollars: dollars(price),
    delta_fp: count(change.delta),
    side: change.side,
    ts: timestamp(nowMs),
    ts_ms: nowMs,
  };
}

/** A full book; a side without bids is absent from the frame, not an empty array (recorded). */
export function snapshotMsg(ex: SimExchange, m: SimMarket, useYesPrice: boolean): Frame {
  const book = ex.book(m);
  const msg: Frame = { market_ticker: m.ticker, market_id: m.marketId };
  const yes = book.levels('yes');
  let no = book.levels('no');
  if (useYesPrice) no = no.map(([p, s]) => [ONE_DOLLAR - p, s] as [number, number]).reverse();
  if (yes.length > 0) msg.yes_dollars_fp = yes.map(([p, s]) => [dollars(p), count(s)]);
  if (no.length > 0) msg.no_dollars_fp = no.map(([p, s]) => [dollars(p), count(s)]);
  return msg;
}

export function tradeMsg(t: PublicTrade): Frame {
  return {
    trade_id: t.tradeId,
    market_ticker: t.ticker,
    yes_price_dollars: dollars(t.yesPrice),
    no_price_dollars: dollars(ONE_DOLLAR - t.yesPrice),
    count_fp: count(t.centis),
    taker_side: t.takerOutcome,
    taker_outcome_side: t.takerOutcome,
    taker_book_side: t.takerOutcome === 'yes' ? 'bid' : 'ask',
    is_block_trade: false,
    ts: Math.floor(t.timeMs / 1000),
    ts_ms: t.timeMs,
  };
}

export function fillMsg(f: SimFill): Frame {
  const outcome = f.bookSide === 'bid' ? 'yes' : 'no';
  const msg: Frame = {
    trade_id: f.fillId,
    order_id: f.orderId,
    market_ticker: f.ticker,
    exchange_index: 0,
    is_taker: f.isTaker,
    side: 'yes',
    yes_price_dollars: dollars(f.yesPrice),
    count_fp: count(f.centis),
    fee_cost: dollars(f.fee, 6),
    action: f.bookSide === 'bid' ? 'buy' : 'sell',
    ts: Math.floor(f.timeMs / 1000),
    ts_ms: f.timeMs,
    post_position_fp: count(f.postPositionCentis),
    purchased_side: outcome,
    outcome_side: outcome,
    book_side: f.bookSide,
  };
  if (f.clientOrderId !== '') msg.client_order_id = f.clientOrderId;
  return msg;
}

export function userOrderMsg(o: SimOrder): Frame {
  const msg: Frame = {
    order_id: o.orderId,
    user_id: o.userId,
    ticker: o.ticker,
    exchange_index: 0,
    status: o.status,
    side: 'yes',
    is_yes: o.bookSide === 'bid',
    outcome_side: o.bookSide === 'bid' ? 'yes' : 'no',
    book_side: o.bookSide,
    yes_price_dollars: dollars(o.yesPrice),
    fill_count_fp: count(o.filledCentis),
    remaining_count_fp: count(o.remainingCentis),
    initial_count_fp: count(o.initialCentis),
    taker_fill_cost_dollars: dollars(o.takerFillCost, 6),
    maker_fill_cost_dollars: dollars(o.makerFillCost, 6),
    taker_fees_dollars: dollars(o.takerFees, 6),
    maker_fees_dollars: dollars(o.makerFees, 6),
    client_order_id: o.clientOrderId,
    self_trade_prevention_type: o.stp,
    created_time: timestamp(o.createdMs),
    created_ts_ms: o.createdMs,
    last_update_time: timestamp(o.lastUpdateMs),
    subaccount_number: 0,
  };
  if (o.expirationS !== null) {
    msg.expiration_time = plainTimestamp(o.expirationS * 1000);
    msg.expiration_ts_ms = o.expirationS * 1000;
  }
  return msg;
}

export function tickerMsg(ex: SimExchange, m: SimMarket, nowMs: number): Frame {
  const book = ex.book(m);
  const yesBid = book.best('yes');
  const noBid = book.best('no');
  const trades = ex.tradesOf(m.ticker);
  const volume = trades.reduce((s, t) => s + t.centis, 0) + m.baseVolume * 100;
  return {
    market_id: m.marketId,
    market_ticker: m.ticker,
    price_dollars: dollars(ex.lastPrice(m) ?? 0),
    yes_bid_dollars: dollars(yesBid ?? 0),
    yes_ask_dollars: dollars(noBid === null ? 0 : ONE_DOLLAR - noBid),
    volume_fp: count(volume),
    open_interest_fp: count(Math.round(m.baseVolume * 40)),
    dollar_volume: Math.floor(volume / 200),
    dollar_open_interest: Math.floor(m.baseVolume * 0.2),
    yes_bid_size_fp: count(yesBid === null ? 0 : book.total('yes', yesBid)),
    yes_ask_size_fp: count(noBid === null ? 0 : book.total('no', noBid)),
    last_trade_size_fp: count(trades.at(-1)?.centis ?? 0),
    ts: Math.floor(nowMs / 1000),
    ts_ms: nowMs,
    time: plainTimestamp(nowMs),
  };
}
