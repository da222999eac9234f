// TypeBox schemas of the Polymarket JSON we read (Gamma markets/events, CLOB books). Only the fields we use are
// declared; the rest pass through. Numbers that Polymarket sends sometimes as numbers and sometimes as decimal
// strings are declared as both.
import { type Static, Type } from 'typebox';

const NumOrString = Type.Union([Type.Number(), Type.String()]);
const Nullable = <T extends Parameters<typeof Type.Optional>[0]>(t: T) =>
  Type.Optional(Type.Union([t, Type.Null()]));

export const PolymarketGammaEventRef = Type.Object({
  id: Type.String(),
  title: Nullable(Type.String()),
  slug: Nullable(Type.String()),
});

export const PolymarketGammaMarket = Type.Object({
  id: Type.String(),
  question: Type.String(),
  conditionId: Type.String(),
  slug: Nullable(Type.String()),
  description: Nullable(Type.String()),
  /** JSON-encoded string arrays, e.g. "[\"Yes\", \"No\"]". */
  outcomes: Nullable(Type.String()),
  outcomePrices: Nullable(Type.String()),
  clobTokenIds: Nullable(Type.String()),
  active: Nullable(Type.Boolean()),
  closed: Nullable(Type.Boolean()),
  archived: Nullable(Type.Boolean()),
  negRisk: Nullable(Type.Boolean()),
  umaResolutionStatus: Nullable(Type.String()),
  volume: Nullable(NumOrString),
  volumeNum: Nullable(Type.Number()),
  volume24hr: Nullable(Type.Number()),
  liquidity: Nullable(NumOrString),
  liquidityNum: Nullable(Type.Number()),
  bestBid: Nullable(Type.Number()),
  bestAsk: Nullable(Type.Number()),
  lastTradePrice: Nullable(Type.Number()),
  orderPriceMinTickSize: Nullable(Type.Number()),
  orderMinSize: Nullable(Type.Number()),
  groupItemTitle: Nullable(Type.String()),
  endDate: Nullable(Type.String()),
  startDate: Nullable(Type.String()),
  createdAt: Nullable(Type.String()),
  updatedAt: Nullable(Type.String()),
  gameStartTime: Nullable(Type.String()),
  image: Nullable(Type.String()),
  icon: Nullable(Type.String()),
  events: Type.Optional(Type.Array(PolymarketGammaEventRef)),
});
export type PolymarketGammaMarket = Static<typeof PolymarketGammaMarket>;

export const PolymarketGammaEvent = Type.Object({
  id: Type.String(),
  title: Type.String(),
  slug: Nullable(Type.String()),
  active: Nullable(Type.Boolean()),
  closed: Nullable(Type.Boolean()),
  archived: Nullable(Type.Boolean()),
  volume: Nullable(NumOrString),
  endDate: Nullable(Type.String()),
  markets: Type.Optional(Type.Array(PolymarketGammaMarket)),
});
export type PolymarketGammaEvent = Static<typeof PolymarketGammaEvent>;

const BookLevel = Type.Object({ price: Type.String(), size: Type.String() });

export const PolymarketBook = Type.Object({
  market: Type.String(),
  asset_id: Type.String(),
  /** Milliseconds since the epoch as a string; absent in early V1 captures. */
  timestamp: Type.Optional(Type.String()),
  bids: Type.Array(BookLevel),
  asks: Type.Array(BookLevel),
  tick_size: Type.Optional(Type.String()),
  min_order_size: Type.Optional(Type.String()),
  neg_risk: Type.Optional(Type.Boolean()),
});
export type PolymarketBook = Static<typeof PolymarketBook>;

export const PolymarketGammaEventList = Type.Array(PolymarketGammaEvent);

/** Gamma keyset pages: `{markets|events, next_cursor?}`; the cursor is absent (or empty) on the last page. */
export const PolymarketGammaMarketsKeyset = Type.Object({
  markets: Type.Array(PolymarketGammaMarket),
  next_cursor: Nullable(Type.String()),
});
export const PolymarketGammaEventsKeyset = Type.Object({
  events: Type.Array(PolymarketGammaEvent),
  next_cursor: Nullable(Type.String()),
});

/** CLOB `GET /markets/{condition_id}` (the SDK's getMarket): read for the slug Gamma knows the market by. */
export const PolymarketClobMarket = Type.Object({
  condition_id: Type.String(),
  market_slug: Type.String({ minLength: 1 }),
});

/** CLOB `GET /clob-markets/{condition_id}`: the compact market parameters order building needs (V2). */
export const PolymarketClobMarketInfo = Type.Object({
  c: Type.Optional(Type.String()),
  /** tokens: `t` token id, `o` outcome name */
  t: Type.Array(Type.Union([Type.Object({ t: Type.String(), o: Type.String() }), Type.Null()])),
  /** minimum tick size */
  mts: NumOrString,
  /** minimum order size */
  mos: Type.Optional(NumOrString),
  /** neg risk */
  nr: Type.Optional(Type.Boolean()),
  /** fee details: rate, exponent, taker only */
  fd: Type.Optional(
    Type.Union([
      Type.Object({
        r: Type.Optional(Type.Number({ minimum: 0 })),
        e: Type.Optional(Type.Integer({ minimum: 0 })),
        to: Type.Optional(Type.Boolean()),
      }),
      Type.Null(),
    ]),
  ),
});
export type PolymarketClobMarketInfo = Static<typeof PolymarketClobMarketInfo>;

export const PolymarketApiCreds = Type.Object({
  apiKey: Type.String({ minLength: 1 }),
  secret: Type.String({ minLength: 1 }),
  passphrase: Type.String({ minLength: 1 }),
});

/** `POST /order` answer. `makingAmount`/`takingAmount` are decimal strings in human units. */
export const PolymarketOrderResponse = Type.Object({
  success: Type.Optional(Type.Boolean()),
  errorMsg: Type.Optional(Type.String()),
  orderID: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  makingAmount: Type.Optional(Type.String()),
  takingAmount: Type.Optional(Type.String()),
  transactionsHashes: Type.Optional(Nullable(Type.Array(Type.String()))),
  tradeIDs: Type.Optional(Nullable(Type.Array(Type.String()))),
});
export type PolymarketOrderResponse = Static<typeof PolymarketOrderResponse>;

/** `GET /data/order/{id}` and items of `GET /data/orders`; also the user channel's `order` event. */
export const PolymarketOpenOrder = Type.Object({
  id: Type.String(),
  status: Type.String(),
  market: Type.String(),
  asset_id: Type.String(),
  side: Type.String(),
  original_size: Type.String(),
  size_matched: Type.String(),
  price: Type.String(),
  outcome: Type.String(),
  created_at: NumOrString,
  expiration: Type.Optional(NumOrString),
  order_type: Type.Optional(Type.String()),
  owner: Type.Optional(Type.String()),
  maker_address: Type.Optional(Type.String()),
});
export type PolymarketOpenOrder = Static<typeof PolymarketOpenOrder>;

/** Cursor-paged CLOB lists: the cursor `LTE=` marks the end. */
export const clobPage = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({
    data: Type.Array(item),
    next_cursor: Nullable(Type.String()),
    limit: Type.Optional(Type.Number()),
    count: Type.Optional(Type.Number()),
  });

export const PolymarketMakerOrder = Type.Object({
  order_id: Type.String(),
  owner: Type.Optional(Type.String()),
  maker_address: Type.Optional(Type.String()),
  matched_amount: Type.String(),
  price: Type.String(),
  fee_rate_bps: Type.Optional(NumOrString),
  asset_id: Type.String(),
  outcome: Type.String(),
  side: Type.Optional(Type.String()),
});

/** A user trade (`GET /data/trades` item, user channel `trade` event). */
export const PolymarketUserTrade = Type.Object({
  id: Type.String(),
  taker_order_id: Type.String(),
  market: Type.String(),
  asset_id: Type.String(),
  side: Type.String(),
  size: Type.String(),
  fee_rate_bps: Type.Optional(NumOrString),
  price: Type.String(),
  status: Type.String(),
  match_time: NumOrString,
  outcome: Type.String(),
  owner: Type.Optional(Type.String()),
  maker_address: Type.Optional(Type.String()),
  maker_orders: Type.Array(PolymarketMakerOrder),
  transaction_hash: Type.Optional(Nullable(Type.String())),
  trader_side: Type.Optional(Type.String()),
});
export type PolymarketUserTrade = Static<typeof PolymarketUserTrade>;

/** `DELETE /order` (and `/orders`) answer. */
export const PolymarketCancelResponse = Type.Object({
  canceled: Type.Optional(Nullable(Type.Array(Type.String()))),
  not_canceled: Type.Optional(Nullable(Type.Record(Type.String(), Type.String()))),
});

/** `GET /balance-allowance`: base-unit strings (6 decimals); V2 reports allowances per spender. */
export const PolymarketBalanceAllowance = Type.Object({
  balance: Type.String(),
  allowances: Type.Optional(Type.Record(Type.String(), Type.String())),
  allowance: Type.Optional(Type.String()),
});

/** `GET /prices-history`: price points, not candles. */
export const PolymarketPriceHistory = Type.Object({
  history: Type.Array(Type.Object({ t: Type.Number(), p: Type.Number() })),
});

/** Data API `GET /trades` item (the public tape); also the TRADE rows of `/activity`. */
export const PolymarketDataTrade = Type.Object({
  proxyWallet: Type.Optional(Type.String()),
  side: Type.String(),
  asset: Type.String(),
  conditionId: Type.String(),
  size: Type.Number(),
  price: Type.Number(),
  timestamp: Type.Number(),
  outcome: Type.Optional(Type.String()),
  outcomeIndex: Type.Optional(Type.Number()),
  transactionHash: Type.Optional(Nullable(Type.String())),
});
export type PolymarketDataTrade = Static<typeof PolymarketDataTrade>;
export const PolymarketDataTradeList = Type.Array(PolymarketDataTrade);

/**
 * Data API `GET /activity` item: TRADE rows carry the tape's fields, SPLIT / MERGE / REDEEM / REWARD rows fewer; only
 * what names the row is read, the rest is passed on as sent.
 */
export const PolymarketDataActivity = Type.Object({
  type: Type.String(),
  timestamp: Type.Number(),
  transactionHash: Type.Optional(Nullable(Type.String())),
  conditionId: Type.Optional(Nullable(Type.String())),
  asset: Type.Optional(Nullable(Type.String())),
  side: Type.Optional(Nullable(Type.String())),
  size: Type.Optional(Nullable(Type.Number())),
  price: Type.Optional(Nullable(Type.Number())),
  usdcSize: Type.Optional(Nullable(Type.Number())),
});
export type PolymarketDataActivity = Static<typeof PolymarketDataActivity>;
export const PolymarketDataActivityList = Type.Array(PolymarketDataActivity);

/** Data API `GET /positions` item. */
export const PolymarketDataPosition = Type.Object({
  asset: Type.String(),
  conditionId: Type.String(),
  size: Type.Number(),
  avgPrice: Nullable(Type.Number()),
  curPrice: Nullable(Type.Number()),
  outcome: Type.String(),
  outcomeIndex: Type.Optional(Type.Number()),
});
export type PolymarketDataPosition = Static<typeof PolymarketDataPosition>;
export const PolymarketDataPositionList = Type.Array(PolymarketDataPosition);

/** Data API `GET /value`. */
export const PolymarketDataValue = Type.Array(Type.Object({ user: Type.String(), value: Type.Number() }));

/** Market channel `price_change` (current schema: one frame, many levels, `size` absolute, "0" removes). */
export const PolymarketWsPriceChange = Type.Object({
  market: Type.Optional(Type.String()),
  timestamp: Type.Optional(NumOrString),
  price_changes: Type.Array(
    Type.Object({ asset_id: Type.String(), price: Type.String(), size: Type.String(), side: Type.String() }),
  ),
});

/** Market channel `price_change`, early flat schema: one level per frame at the top level. */
export const PolymarketWsPriceChangeFlat = Type.Object({
  asset_id: Type.String(),
  price: Type.String(),
  size: Type.String(),
  side: Type.String(),
  timestamp: Type.Optional(NumOrString),
});

export const PolymarketWsLastTrade = Type.Object({
  asset_id: Type.String(),
  market: Type.String(),
  price: Type.String(),
  size: Type.String(),
  side: Type.String(),
  timestamp: NumOrString,
  transaction_hash: Type.Optional(Nullable(Type.String())),
});

export const PolymarketWsTickSizeChange = Type.Object({
  asset_id: Type.String(),
  new_tick_size: Type.String(),
});

/** User channel `order` event: an open-order record plus the kind of change. */
export const PolymarketWsOrder = Type.Intersect([
  PolymarketOpenOrder,
  Type.Object({ type: Type.Optional(Type.String()), timestamp: Type.Optional(NumOrString) }),
]);
