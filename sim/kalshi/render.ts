// JSON bodies in the exchange's own shapes: fixed-point `*_dollars` / `*_fp` strings, integer cents only in the
// balance, RFC 3339 times, and keys in alphabetical order as the exchange's REST answers print them (recorded
// verbatim on the demo exchange). Pure rendering: state comes from the catalogue and the exchange.
import { eventText, marketText, type SimEvent, type SimMarket, type SimSeries } from './catalog.js';
import type { PublicTrade, SimExchange, SimFill, SimOrder, SimPosition, SimUser } from './exchange.js';
import { cents, count, dollars, ONE_DOLLAR, plainTimestamp, timestamp } from './fixed.js';
import { houseQuote, type SimCandle } from './house.js';

type Json = Record<string, unknown>;

/** The exchange prints REST keys alphabetically; this keeps the simulator's answers byte-alike. */
export function sorted<T extends Json>(obj: T): T {
  const entries = Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries) as T;
}

function top(ex: SimExchange, m: SimMarket) {
  const book = ex.book(m);
  const yesBid = book.best('yes');
  const noBid = book.best('no');
  return {
    yesBid: yesBid ?? 0,
    yesBidSize: yesBid === null ? 0 : book.total('yes', yesBid),
    // A NO bid at q is a YES ask at 1 − q; with no NO bids the exchange prints a zero ask (recorded).
    yesAsk: noBid === null ? 0 : ONE_DOLLAR - noBid,
    yesAskSize: noBid === null ? 0 : book.total('no', noBid),
  };
}

export function marketJson(ex: SimExchange, m: SimMarket): Json {
  const t = top(ex, m);
  const text = marketText(m);
  const opening = houseQuote(m, 0);
  const openingBid = Math.max(0, ...opening.yes.keys());
  const openingNo = Math.max(0, ...opening.no.keys());
  const traded = ex.tradesOf(m.ticker).reduce((s, tr) => s + tr.centis, 0);
  const last = ex.lastPrice(m);
  // A market that has not opened yet has never traded: no volume, no open interest, no opening quote.
  const opened = m.status !== 'initialized';
  const out: Json = {
    can_close_early: true,
    close_time: plainTimestamp(m.closeMs),
    created_time: timestamp(m.openMs - 86_400_000),
    early_close_condition: 'This market will close and expire early if the event occurs.',
    event_ticker: m.eventTicker,
    exchange_index: m.exchangeIndex,
    expected_expiration_time: plainTimestamp(m.closeMs + 3_600_000),
    expiration_time: plainTimestamp(m.closeMs + 7 * 86_400_000),
    expiration_value: '',
    fractional_trading_enabled: true,
    last_price_dollars: dollars(last ?? 0),
    latest_expiration_time: plainTimestamp(m.closeMs + 7 * 86_400_000),
    liquidity_dollars: '0.0000',
    market_type: 'binary',
    no_ask_dollars: dollars(ONE_DOLLAR - t.yesBid),
    no_bid_dollars: dollars(ONE_DOLLAR - t.yesAsk),
    no_sub_title: text.noSubTitle,
    notional_value_dollars: '1.0000',
    open_interest_fp: count(opened ? Math.round(m.baseVolume * 40) : 0),
    open_time: plainTimestamp(m.openMs),
    previous_price_dollars: dollars(m.status === 'active' ? ex.tapeTrade(m, 0).yesPrice : 0),
    previous_yes_ask_dollars: dollars(opened && openingNo > 0 ? ONE_DOLLAR - openingNo : 0),
    previous_yes_bid_dollars: dollars(opened ? openingBid : 0),
    price_level_structure: 'linear_cent',
    price_ranges: [{ end: '1.0000', start: '0.0000', step: '0.0100' }],
    response_price_units: 'usd_cent',
    result: m.result,
    rules_primary: text.rules,
    rules_secondary: '',
    settlement_timer_seconds: 1800,
    status: m.status,
    ticker: m.ticker,
    title: text.title,
    updated_time: timestamp(m.openMs - 86_000_000),
    volume_24h_fp: count(opened ? traded + Math.round(m.baseVolume * 10) : 0),
    volume_fp: count(opened ? traded + m.baseVolume * 100 : 0),
    yes_ask_dollars: dollars(t.yesAsk),
    yes_ask_size_fp: count(t.yesAskSize),
    yes_bid_dollars: dollars(t.yesBid),
    yes_bid_size_fp: count(t.yesBidSize),
    yes_sub_title: text.yesSubTitle,
  };
  if (m.floorStrike !== null) out.floor_strike = m.floorStrike;
  if (m.strikeType !== null) out.strike_type = m.strikeType;
  if (m.status === 'finalized') {
    out.settlement_ts = timestamp(m.closeMs + 3_600_000);
    out.settlement_value_dollars = m.result === 'yes' ? '1.0000' : '0.0000';
  }
  return sorted(out);
}

export function eventJson(ex: SimExchange, e: SimEvent, nested: boolean): Json {
  const text = eventText(e);
  const out: Json = {
    category: e.category,
    collateral_return_type: e.mutuallyExclusive ? 'MECNET' : '',
    event_ticker: e.ticker,
    last_updated_ts: timestamp((e.markets[0]?.openMs ?? 0) - 86_000_000),
    mutually_exclusive: e.mutuallyExclusive,
    series_ticker: e.seriesTicker,
    settlement_sources: [],
    sub_title: text.subTitle,
    title: text.title,
  };
  if (e.strikeDateMs !== null) out.strike_date = plainTimestamp(e.strikeDateMs);
  if (nested) out.markets = e.markets.map((m) => marketJson(ex, m));
  return sorted(out);
}

export function seriesJson(s: SimSeries): Json {
  return sorted({
    additional_prohibitions: [],
    categories: [s.category],
    category: s.category,
    contract_terms_url: `https://kalshi.com/regulatory/rulebook/${s.ticker}`,
    contract_url: `https://kalshi.com/regulatory/rulebook/${s.ticker}`,
    fee_multiplier: 1,
    fee_type: 'quadratic',
    frequency: s.frequency,
    settlement_sources: [],
    tags: s.tags,
    ticker: s.ticker,
    title: s.title,
  });
}

/** GET /markets/{ticker}/orderbook: bids only on each outcome, ascending price (recorded), optional depth. */
export function orderbookJson(ex: SimExchange, m: SimMarket, depth: number): Json {
  const book = ex.book(m);
  const side = (s: 'yes' | 'no') => {
    const levels = book.levels(s);
    const kept = depth > 0 ? levels.slice(Math.max(0, levels.length - depth)) : levels;
    return kept.map(([p, size]) => [dollars(p), count(size)]);
  };
  return { orderbook_fp: sorted({ no_dollars: side('no'), yes_dollars: side('yes') }) };
}

export function tradeJson(t: PublicTrade): Json {
  return sorted({
    count_fp: count(t.centis),
    created_time: timestamp(t.timeMs),
    is_block_trade: false,
    no_price_dollars: dollars(ONE_DOLLAR - t.yesPrice),
    taker_book_side: t.takerOutcome === 'yes' ? 'bid' : 'ask',
    taker_outcome_side: t.takerOutcome,
    taker_side: t.takerOutcome,
    ticker: t.ticker,
    trade_id: t.tradeId,
    yes_price_dollars: dollars(t.yesPrice),
  });
}

export function candleJson(c: SimCandle): Json {
  const ohlc = (v: { open: number; high: number; low: number; close: number }) =>
    sorted({
      close_dollars: dollars(v.close),
      high_dollars: dollars(v.high),
      low_dollars: dollars(v.low),
      open_dollars: dollars(v.open),
    });
  // With no trade in the period the price fields are null; the exchange omits them (recorded).
  const price: Json = { previous_dollars: dollars(c.previous) };
  if (c.price) {
    Object.assign(price, ohlc(c.price), { mean_dollars: dollars(c.price.mean) });
  }
  return sorted({
    end_period_ts: c.endTs,
    open_interest_fp: count(c.openInterestCentis),
    price: sorted(price),
    volume_fp: count(c.volumeCentis),
    yes_ask: ohlc(c.yesAsk),
    yes_bid: ohlc(c.yesBid),
  });
}

export function orderJson(o: SimOrder): Json {
  const out: Json = {
    // Legacy direction fields, still printed (recorded 2026-06-11): a V2 bid is buy/yes, an ask sell/yes.
    action: o.bookSide === 'bid' ? 'buy' : 'sell',
    book_side: o.bookSide,
    client_order_id: o.clientOrderId,
    created_time: timestamp(o.createdMs),
    fill_count_fp: count(o.filledCentis),
    initial_count_fp: count(o.initialCentis),
    last_update_time: timestamp(o.lastUpdateMs),
    maker_fees_dollars: dollars(o.makerFees, 6),
    maker_fill_cost_dollars: dollars(o.makerFillCost, 6),
    no_price_dollars: dollars(ONE_DOLLAR - o.yesPrice),
    order_id: o.orderId,
    outcome_side: o.bookSide === 'bid' ? 'yes' : 'no',
    remaining_count_fp: count(o.remainingCentis),
    self_trade_prevention_type: o.stp,
    side: 'yes',
    status: o.status,
    subaccount_number: 0,
    taker_fees_dollars: dollars(o.takerFees, 6),
    taker_fill_cost_dollars: dollars(o.takerFillCost, 6),
    ticker: o.ticker,
    type: 'limit',
    user_id: o.userId,
    yes_price_dollars: dollars(o.yesPrice),
  };
  if (o.expirationS !== null) out.expiration_time = plainTimestamp(o.expirationS * 1000);
  return sorted(out);
}

export function fillJson(f: SimFill): Json {
  return sorted({
    action: f.bookSide === 'bid' ? 'buy' : 'sell',
    book_side: f.bookSide,
    count_fp: count(f.centis),
    created_time: timestamp(f.timeMs),
    exchange_index: 0,
    fee_cost: dollars(f.fee, 6),
    fill_id: f.fillId,
    is_taker: f.isTaker,
    market_ticker: f.ticker,
    no_price_dollars: dollars(ONE_DOLLAR - f.yesPrice),
    order_id: f.orderId,
    outcome_side: f.bookSide === 'bid' ? 'yes' : 'no',
    side: 'yes',
    subaccount_number: 0,
    ticker: f.ticker,
    trade_id: f.fillId,
    ts: Math.floor(f.timeMs / 1000),
    yes_price_dollars: dollars(f.yesPrice),
  });
}

export function positionJson(p: SimPosition, restingOrders: number): Json {
  return sorted({
    exchange_index: 0,
    fees_paid_dollars: dollars(p.feesPaid, 6),
    last_updated_ts: timestamp(p.lastUpdatedMs),
    market_exposure_dollars: dollars(p.exposure, 6),
    position_fp: count(p.centis),
    realized_pnl_dollars: dollars(p.realizedPnl, 6),
    resting_orders_count: restingOrders,
    ticker: p.ticker,
    total_traded_dollars: dollars(p.totalTraded, 6),
  });
}

export function eventPositionJson(eventTicker: string, positions: SimPosition[]): Json {
  const sum = (f: (p: SimPosition) => number) => positions.reduce((s, p) => s + f(p), 0);
  return sorted({
    event_exposure_dollars: dollars(
      sum((p) => p.exposure),
      6,
    ),
    event_ticker: eventTicker,
    fees_paid_dollars: dollars(
      sum((p) => p.feesPaid),
      6,
    ),
    realized_pnl_dollars: dollars(
      sum((p) => p.realizedPnl),
      6,
    ),
    total_cost_dollars: dollars(
      sum((p) => p.exposure),
      6,
    ),
    total_cost_shares_fp: count(sum((p) => Math.abs(p.centis))),
  });
}

/** GET /portfolio/balance: `balance` and `portfolio_value` in integer cents (truncated), the rest dollars. */
export function balanceJson(ex: SimExchange, user: SimUser): Json {
  const available = ex.available(user);
  let value = 0;
  for (const p of user.positions.values()) {
    const m = ex.catalog.marketByTicker.get(p.ticker);
    if (!m || p.centis === 0) continue;
    const yes = m.status === 'finalized' ? (m.result === 'yes' ? ONE_DOLLAR : 0) : (ex.lastPrice(m) ?? 0);
    value += ((p.centis > 0 ? yes : ONE_DOLLAR - yes) * Math.abs(p.centis)) / 100;
  }
  return sorted({
    balance: cents(available),
    balance_breakdown: [{ balance: dollars(available), exchange_index: 0 }],
    balance_dollars: dollars(available),
    portfolio_value: cents(value),
    updated_ts: Math.floor(user.balanceUpdatedMs / 1000),
  });
}
