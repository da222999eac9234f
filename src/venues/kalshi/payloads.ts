// TypeBox schemas of the Kalshi trade API v2 JSON we read (REST and WebSocket). Only the fields we use are
// declared; the rest pass through. Prices are fixed-point dollar strings (`*_dollars`), counts fixed-point
// contract strings (`*_fp`); the only integer-cent field left is the balance.
import { type Static, Type } from 'typebox';

const Opt = <T extends Parameters<typeof Type.Optional>[0]>(t: T) =>
  Type.Optional(Type.Union([t, Type.Null()]));
const Level = Type.Array(Type.String(), { minItems: 2 });

export const KalshiPriceRange = Type.Object({
  start: Type.String(),
  end: Type.String(),
  step: Type.String(),
});

export const KalshiMarket = Type.Object({
  ticker: Type.String(),
  event_ticker: Type.String(),
  status: Type.String(),
  market_type: Opt(Type.String()),
  title: Opt(Type.String()),
  subtitle: Opt(Type.String()),
  yes_sub_title: Opt(Type.String()),
  no_sub_title: Opt(Type.String()),
  rules_primary: Opt(Type.String()),
  rules_secondary: Opt(Type.String()),
  result: Opt(Type.String()),
  open_time: Opt(Type.String()),
  close_time: Opt(Type.String()),
  created_time: Opt(Type.String()),
  updated_time: Opt(Type.String()),
  yes_bid_dollars: Opt(Type.String()),
  yes_ask_dollars: Opt(Type.String()),
  last_price_dollars: Opt(Type.String()),
  volume_fp: Opt(Type.String()),
  volume_24h_fp: Opt(Type.String()),
  open_interest_fp: Opt(Type.String()),
  fractional_trading_enabled: Opt(Type.Boolean()),
  price_ranges: Opt(Type.Array(KalshiPriceRange)),
});
export type KalshiMarket = Static<typeof KalshiMarket>;

export const KalshiEvent = Type.Object({
  event_ticker: Type.String(),
  series_ticker: Opt(Type.String()),
  title: Type.String(),
  sub_title: Opt(Type.String()),
  mutually_exclusive: Opt(Type.Boolean()),
  markets: Opt(Type.Array(KalshiMarket)),
});
export type KalshiEvent = Static<typeof KalshiEvent>;

export const KalshiMarketsPage = Type.Object({
  markets: Type.Array(KalshiMarket),
  cursor: Opt(Type.String()),
});
export const KalshiMarketResponse = Type.Object({ market: KalshiMarket });
export const KalshiEventsPage = Type.Object({ events: Type.Array(KalshiEvent), cursor: Opt(Type.String()) });
export const KalshiEventResponse = Type.Object({
  event: KalshiEvent,
  markets: Opt(Type.Array(KalshiMarket)),
});

/** GET /series/{ticker}: the series' fee structure (kalshi-typescript `Series`). */
export const KalshiSeriesResponse = Type.Object({
  series: Type.Object({
    ticker: Type.String(),
    fee_type: Type.String({ minLength: 1 }),
    fee_multiplier: Type.Number({ minimum: 0 }),
  }),
});

/** GET /markets/{ticker}/orderbook: bids only on each outcome, `[price_dollars, count_fp]`. */
export const KalshiOrderbook = Type.Object({
  orderbook_fp: Type.Object({ yes_dollars: Opt(Type.Array(Level)), no_dollars: Opt(Type.Array(Level)) }),
});
export type KalshiOrderbook = Static<typeof KalshiOrderbook>;

export const KalshiTrade = Type.Object({
  trade_id: Type.String(),
  ticker: Type.String(),
  count_fp: Type.String(),
  yes_price_dollars: Type.String(),
  no_price_dollars: Opt(Type.String()),
  taker_outcome_side: Opt(Type.String()),
  taker_side: Opt(Type.String()),
  created_time: Type.String(),
});
export type KalshiTrade = Static<typeof KalshiTrade>;
export const KalshiTradesPage = Type.Object({ trades: Type.Array(KalshiTrade), cursor: Opt(Type.String()) });

const Ohlc = Type.Object({
  open_dollars: Opt(Type.String()),
  high_dollars: Opt(Type.String()),
  low_dollars: Opt(Type.String()),
  close_dollars: Opt(Type.String()),
});
export const KalshiCandle = Type.Object({
  // Live answers send an integer; a recorder may have stringified it.
  end_period_ts: Type.Union([Type.Integer(), Type.String()]),
  yes_bid: Opt(Ohlc),
  yes_ask: Opt(Ohlc),
  price: Opt(Ohlc),
  volume_fp: Opt(Type.String()),
});
export type KalshiCandle = Static<typeof KalshiCandle>;
export const KalshiCandlesResponse = Type.Object({
  ticker: Opt(Type.String()),
  candlesticks: Type.Array(KalshiCandle),
});
export const KalshiBatchCandlesResponse = Type.Object({
  markets: Type.Array(Type.Object({ market_ticker: Type.String(), candlesticks: Type.Array(KalshiCandle) })),
});

/**
 * GET /historical/markets/{ticker}/candlesticks (kalshi-typescript 3.30.0 MarketCandlestickHistorical): the live
 * candle's periods with other field names, prices as plain dollar strings (`open`, not `open_dollars`) and counts
 * without the `_fp` suffix.
 */
const HistoricalOhlc = Type.Object({
  open: Opt(Type.String()),
  high: Opt(Type.String()),
  low: Opt(Type.String()),
  close: Opt(Type.String()),
});
export const KalshiHistoricalCandle = Type.Object({
  end_period_ts: Type.Union([Type.Integer(), Type.String()]),
  price: Opt(HistoricalOhlc),
  volume: Opt(Type.String()),
});
export type KalshiHistoricalCandle = Static<typeof KalshiHistoricalCandle>;
export const KalshiHistoricalCandlesResponse = Type.Object({
  ticker: Opt(Type.String()),
  candlesticks: Type.Array(KalshiHistoricalCandle),
});

/** GET /historical/cutoff (kalshi-typescript 3.30.0 GetHistoricalCutoffResponse): RFC 3339 timestamps. */
export const KalshiHistoricalCutoff = Type.Object({
  market_settled_ts: Type.String(),
  trades_created_ts: Type.String(),
  orders_updated_ts: Type.String(),
  market_positions_last_updated_ts: Opt(Type.String()),
});

/** GET /portfolio/balance, passed through as the `raw` balance (cents in `balance`). */
export const KalshiBalance = Type.Object({ balance: Type.Number(), balance_dollars: Opt(Type.String()) });

export const KalshiOrder = Type.Object({
  order_id: Type.String(),
  client_order_id: Opt(Type.String()),
  ticker: Type.String(),
  status: Type.String(),
  outcome_side: Opt(Type.String()),
  book_side: Opt(Type.String()),
  yes_price_dollars: Type.String(),
  no_price_dollars: Opt(Type.String()),
  initial_count_fp: Type.String(),
  fill_count_fp: Type.String(),
  remaining_count_fp: Type.String(),
  created_time: Opt(Type.String()),
  last_update_time: Opt(Type.String()),
  expiration_time: Opt(Type.String()),
});
export type KalshiOrder = Static<typeof KalshiOrder>;
export const KalshiOrderResponse = Type.Object({ order: KalshiOrder });
export const KalshiOrdersPage = Type.Object({ orders: Type.Array(KalshiOrder), cursor: Opt(Type.String()) });

export const KalshiCreateOrderResponse = Type.Object({
  order_id: Type.String(),
  client_order_id: Opt(Type.String()),
  fill_count: Type.String(),
  remaining_count: Type.String(),
  average_fill_price: Opt(Type.String()),
  ts_ms: Type.Number(),
});
export type KalshiCreateOrderResponse = Static<typeof KalshiCreateOrderResponse>;

export const KalshiCancelOrderResponse = Type.Object({
  order_id: Type.String(),
  reduced_by: Type.String(),
  ts_ms: Type.Number(),
});

export const KalshiFill = Type.Object({
  fill_id: Opt(Type.String()),
  trade_id: Opt(Type.String()),
  order_id: Type.String(),
  ticker: Opt(Type.String()),
  market_ticker: Opt(Type.String()),
  outcome_side: Opt(Type.String()),
  book_side: Opt(Type.String()),
  count_fp: Type.String(),
  yes_price_dollars: Type.String(),
  no_price_dollars: Opt(Type.String()),
  is_taker: Type.Boolean(),
  fee_cost: Opt(Type.String()),
  created_time: Opt(Type.String()),
  ts: Opt(Type.Number()),
});
export type KalshiFill = Static<typeof KalshiFill>;
export const KalshiFillsPage = Type.Object({ fills: Type.Array(KalshiFill), cursor: Opt(Type.String()) });

export const KalshiMarketPosition = Type.Object({
  ticker: Type.String(),
  position_fp: Type.String(),
  market_exposure_dollars: Opt(Type.String()),
});
export type KalshiMarketPosition = Static<typeof KalshiMarketPosition>;
export const KalshiPositionsPage = Type.Object({
  market_positions: Type.Array(KalshiMarketPosition),
  cursor: Opt(Type.String()),
});

// ---- WebSocket frames (trade-api/ws/v2) ----

export const KalshiWsEnvelope = Type.Object({
  type: Type.String(),
  id: Type.Optional(Type.Number()),
  sid: Type.Optional(Type.Number()),
  seq: Type.Optional(Type.Number()),
  msg: Type.Optional(Type.Unknown()),
});
export type KalshiWsEnvelope = Static<typeof KalshiWsEnvelope>;

export const KalshiWsSubscribed = Type.Object({ channel: Type.String(), sid: Type.Number() });

export const KalshiWsSnapshot = Type.Object({
  market_ticker: Type.String(),
  market_id: Opt(Type.String()),
  // A side without bids is absent (recorded); older frames used integer-cent `yes`/`no`, not read.
  yes_dollars_fp: Opt(Type.Array(Level)),
  no_dollars_fp: Opt(Type.Array(Level)),
});
export type KalshiWsSnapshot = Static<typeof KalshiWsSnapshot>;

export const KalshiWsDelta = Type.Object({
  market_ticker: Type.String(),
  price_dollars: Type.String(),
  delta_fp: Type.String(),
  side: Type.Union([Type.Literal('yes'), Type.Literal('no')]),
  ts_ms: Opt(Type.Number()),
});
export type KalshiWsDelta = Static<typeof KalshiWsDelta>;

export const KalshiWsTrade = Type.Object({
  trade_id: Type.String(),
  market_ticker: Type.String(),
  yes_price_dollars: Type.String(),
  no_price_dollars: Opt(Type.String()),
  count_fp: Opt(Type.String()),
  /** Integer contracts on frames from before the fixed-point migration (late 2025, recorded). */
  count: Opt(Type.Number()),
  taker_outcome_side: Opt(Type.String()),
  taker_side: Opt(Type.String()),
  ts: Opt(Type.Number()),
  ts_ms: Opt(Type.Number()),
});
export type KalshiWsTrade = Static<typeof KalshiWsTrade>;

export const KalshiWsFill = Type.Object({
  trade_id: Type.String(),
  order_id: Type.String(),
  market_ticker: Type.String(),
  is_taker: Type.Boolean(),
  yes_price_dollars: Type.String(),
  count_fp: Type.String(),
  fee_cost: Opt(Type.String()),
  outcome_side: Opt(Type.String()),
  book_side: Opt(Type.String()),
  ts: Opt(Type.Number()),
  ts_ms: Opt(Type.Number()),
});
export type KalshiWsFill = Static<typeof KalshiWsFill>;

export const KalshiWsUserOrder = Type.Object({
  order_id: Type.String(),
  ticker: Type.String(),
  status: Type.String(),
  outcome_side: Opt(Type.String()),
  book_side: Opt(Type.String()),
  yes_price_dollars: Type.String(),
  initial_count_fp: Type.String(),
  fill_count_fp: Type.String(),
  remaining_count_fp: Type.String(),
  created_time: Opt(Type.String()),
  last_update_time: Opt(Type.String()),
});
