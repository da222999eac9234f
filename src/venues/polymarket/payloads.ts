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
