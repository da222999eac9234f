// TypeBox schemas of the Limitless JSON we read (api.limitless.exchange and the /markets Socket.IO feed). Only the
// fields we use are declared; the rest pass through. Numeric scalars are declared as number-or-string: the SDK and
// Limitless's web app type them as numbers, but the recorded payloads (ccxt) carry them as strings.
import { type Static, type TSchema, Type } from 'typebox';

const NumStr = Type.Union([Type.Number(), Type.String()]);
const Nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

const TradePair = Type.Array(Type.Number());

/** A CLOB market: stand-alone, or a child of a negRisk group (then it may name its `group`). */
export const LimitlessMarket = Type.Object({
  id: NumStr,
  slug: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  status: Type.String(),
  expired: Nullable(Type.Boolean()),
  expirationTimestamp: Nullable(NumStr),
  createdAt: Nullable(Type.String()),
  updatedAt: Nullable(Type.String()),
  conditionId: Nullable(Type.String()),
  tokens: Nullable(Type.Object({ yes: Type.String(), no: Type.String() })),
  /** [YES, NO]. */
  prices: Nullable(Type.Array(Type.Number())),
  tradePrices: Nullable(
    Type.Object({
      buy: Type.Object({ market: TradePair, limit: TradePair }),
      sell: Type.Object({ market: TradePair, limit: TradePair }),
    }),
  ),
  tradeType: Nullable(Type.String()),
  marketType: Nullable(Type.String()),
  volume: Nullable(NumStr),
  volumeFormatted: Nullable(NumStr),
  winningOutcomeIndex: Nullable(Type.Number()),
  categories: Nullable(Type.Array(Type.String())),
  imageUrl: Nullable(Type.String()),
  logo: Nullable(Type.String()),
  group: Nullable(Type.Object({ slug: Type.Optional(Type.String()), title: Type.Optional(Type.String()) })),
});
export type LimitlessMarket = Static<typeof LimitlessMarket>;

/** A row of /markets/active, /markets/search or GET /markets/{slug}: a market, or a group with `markets`. */
export const LimitlessRow = Type.Intersect([
  LimitlessMarket,
  Type.Object({ markets: Type.Optional(Type.Array(LimitlessMarket)) }),
]);
export type LimitlessRow = Static<typeof LimitlessRow>;

export const LimitlessActivePage = Type.Object({
  data: Type.Array(LimitlessRow),
  totalMarketsCount: NumStr,
});
export type LimitlessActivePage = Static<typeof LimitlessActivePage>;

const BookLevel = Type.Object({ price: NumStr, size: NumStr });

/** GET /markets/{slug}/orderbook and the `orderbook` of an orderbookUpdate frame: the YES book, sizes × 1e6. */
export const LimitlessOrderbook = Type.Object({
  bids: Type.Array(BookLevel),
  asks: Type.Array(BookLevel),
  tokenId: Type.String(),
  adjustedMidpoint: Nullable(NumStr),
  lastTradePrice: Nullable(NumStr),
});
export type LimitlessOrderbook = Static<typeof LimitlessOrderbook>;

export const LimitlessOrderbookUpdate = Type.Object({
  marketSlug: Type.String(),
  orderbook: LimitlessOrderbook,
  timestamp: Nullable(NumStr),
});
export type LimitlessOrderbookUpdate = Static<typeof LimitlessOrderbookUpdate>;

const PricePoint = Type.Object({ timestamp: NumStr, price: NumStr });
const PriceSeries = Type.Object({ title: Nullable(Type.String()), prices: Type.Array(PricePoint) });

/** GET /markets/{slug}/historical-price: one series for a market, one per option for a group. */
export const LimitlessPriceHistory = Type.Union([PriceSeries, Type.Array(PriceSeries)]);
export type LimitlessPriceHistory = Static<typeof LimitlessPriceHistory>;

/** GET /markets/{slug}/events: the matched-trade feed. */
export const LimitlessFeedPage = Type.Object({
  events: Type.Array(
    Type.Object({
      createdAt: Type.String(),
      matchedSize: NumStr,
      price: NumStr,
      /** 0 BUY, 1 SELL: the taker's side. */
      side: NumStr,
      tokenId: Type.String(),
      txHash: Nullable(Type.String()),
      profile: Nullable(Type.Object({ account: Nullable(Type.String()) })),
    }),
  ),
  page: Nullable(NumStr),
  totalPages: Nullable(NumStr),
});
export type LimitlessFeedPage = Static<typeof LimitlessFeedPage>;

const PositionSide = Type.Object({ cost: NumStr, fillPrice: NumStr });

/** GET /portfolio/positions and /portfolio/{account}/positions. CLOB amounts are 6-decimal integers. */
export const LimitlessPositions = Type.Object({
  clob: Type.Array(
    Type.Object({
      market: Type.Object({ slug: Type.String() }),
      positions: Nullable(Type.Object({ yes: PositionSide, no: PositionSide })),
      tokensBalance: Type.Object({ yes: NumStr, no: NumStr }),
      latestTrade: Nullable(
        Type.Object({ latestYesPrice: Nullable(NumStr), latestNoPrice: Nullable(NumStr) }),
      ),
    }),
  ),
  /** Legacy AMM markets: amounts are human decimal strings. */
  amm: Type.Array(
    Type.Object({
      market: Type.Object({ slug: Nullable(Type.String()) }),
      outcomeIndex: Type.Number(),
      outcomeTokenAmount: NumStr,
      averageFillPrice: Nullable(NumStr),
      latestTrade: Nullable(Type.Object({ outcomeTokenPrice: Nullable(NumStr) })),
    }),
  ),
  group: Type.Optional(Type.Array(Type.Unknown())),
});
export type LimitlessPositions = Static<typeof LimitlessPositions>;

/** GET /portfolio/pnl-chart: `currentValue` is the realised PnL in USD, the spec's Limitless "balance". */
export const LimitlessPnlChart = Type.Object({ currentValue: Type.Number() });

/** Documents passed through to clients as they are. */
export const LimitlessDocument = Type.Record(Type.String(), Type.Unknown());

/** `venue` of a market as GET /markets/{slug} names it: the exchange contract orders are signed for (SDK `Venue`). */
export const LimitlessMarketVenue = Type.Object({
  slug: Type.String(),
  tokens: Nullable(Type.Object({ yes: Type.String(), no: Type.String() })),
  venue: Nullable(Type.Object({ exchange: Type.String(), adapter: Nullable(Type.String()) })),
});
export type LimitlessMarketVenue = Static<typeof LimitlessMarketVenue>;

/** GET /profiles/{account}: `id` is the ownerId orders carry, `rank.feeRateBps` the fee rate they sign. */
export const LimitlessProfile = Type.Object({
  id: NumStr,
  account: Type.String(),
  rank: Nullable(Type.Object({ feeRateBps: Nullable(NumStr) })),
});

/** An order as the create answer, the status batch and user-orders carry it (SDK `CreatedOrder` plus its state). */
export const LimitlessOrder = Type.Object({
  id: Type.String(),
  createdAt: Nullable(Type.String()),
  updatedAt: Nullable(Type.String()),
  makerAmount: NumStr,
  takerAmount: NumStr,
  tokenId: Type.String(),
  side: Type.Union([Type.Number(), Type.String()]),
  price: Nullable(NumStr),
  orderType: Nullable(Type.String()),
  marketSlug: Nullable(Type.String()),
  clientOrderId: Nullable(Type.String()),
  status: Nullable(Type.String()),
  originalSize: Nullable(NumStr),
  remainingSize: Nullable(NumStr),
});
export type LimitlessOrder = Static<typeof LimitlessOrder>;

export const LimitlessMatch = Type.Object({
  id: Type.String(),
  createdAt: Nullable(Type.String()),
  matchedSize: NumStr,
  orderId: Nullable(Type.String()),
  price: Nullable(NumStr),
  role: Nullable(Type.String()),
});
export type LimitlessMatch = Static<typeof LimitlessMatch>;

export const LimitlessExecution = Type.Object({
  clientOrderId: Nullable(Type.String()),
  feeRateBps: Nullable(Type.Number()),
  effectiveFeeBps: Nullable(Type.Number()),
  matched: Nullable(Type.Boolean()),
  settlementStatus: Nullable(Type.String()),
  totalsRaw: Nullable(
    Type.Object({
      contractsGross: Type.String(),
      contractsFee: Type.String(),
      usdGross: Type.String(),
      usdFee: Type.String(),
    }),
  ),
});
export type LimitlessExecution = Static<typeof LimitlessExecution>;

/** POST /orders answer (SDK `RawOrderResponse`). */
export const LimitlessCreateOrderResponse = Type.Object({
  order: LimitlessOrder,
  makerMatches: Nullable(Type.Array(LimitlessMatch)),
  execution: Nullable(LimitlessExecution),
});

/** GET /markets/{slug}/user-orders. */
export const LimitlessUserOrders = Type.Object({ orders: Type.Array(LimitlessOrder) });

/** POST /orders/status/batch. */
export const LimitlessStatusBatch = Type.Object({
  results: Type.Array(
    Type.Object({
      index: Type.Number(),
      status: Type.String(),
      data: Nullable(
        Type.Object({
          order: Type.Object({ order: LimitlessOrder }),
          makerMatches: Nullable(Type.Array(LimitlessMatch)),
          execution: Nullable(LimitlessExecution),
        }),
      ),
    }),
  ),
});
export type LimitlessStatusBatch = Static<typeof LimitlessStatusBatch>;
