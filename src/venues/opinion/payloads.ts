// TypeBox schemas of the Opinion OpenAPI JSON we read (names from the official generated client's
// types.gen.ts and the recorded payloads); only fields we use are declared. Decimal values are accepted as
// strings or numbers, since the documented type and the wire have disagreed before.
import { type Static, type TSchema, Type } from 'typebox';

const NumOrString = Type.Union([Type.Number(), Type.String()]);
const Nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

/**
 * Every answer is wrapped: `{errno, errmsg, result}` (what the SDK reads and the recorded payloads show), or
 * the `{code, msg, result}` form the current docs describe. Zero means success.
 */
export const OpinionEnvelope = Type.Object({
  errno: Nullable(Type.Number()),
  errmsg: Nullable(Type.String()),
  code: Nullable(Type.Number()),
  msg: Nullable(Type.String()),
  result: Type.Optional(Type.Unknown()),
});
export type OpinionEnvelope = Static<typeof OpinionEnvelope>;

const MarketFields = {
  marketId: Type.Integer(),
  marketTitle: Type.String(),
  status: Nullable(Type.Integer()),
  statusEnum: Nullable(Type.String()),
  yesLabel: Nullable(Type.String()),
  noLabel: Nullable(Type.String()),
  yesTokenId: Nullable(Type.String()),
  noTokenId: Nullable(Type.String()),
  resultTokenId: Nullable(Type.String()),
  conditionId: Nullable(Type.String()),
  rules: Nullable(Type.String()),
  slug: Nullable(Type.String()),
  volume: Nullable(NumOrString),
  createdAt: Nullable(Type.Number()),
  cutoffAt: Nullable(Type.Number()),
  resolvedAt: Nullable(Type.Number()),
  /** The collateral the market trades in (its quote token's address) and its chain ("56"). */
  quoteToken: Nullable(Type.String()),
  chainId: Nullable(Type.String()),
};

/** A binary market nested in a categorical one (`childMarkets[]`). */
export const OpinionChildMarket = Type.Object(MarketFields);
export type OpinionChildMarket = Static<typeof OpinionChildMarket>;

/** A market of GET /market (list) or GET /market/{id}: binary (marketType 0) or categorical (1). */
export const OpinionMarket = Type.Object({
  ...MarketFields,
  /** 0 binary, 1 categorical (the response field; the list *query* uses 2 for "all"). */
  marketType: Nullable(Type.Integer()),
  childMarkets: Nullable(Type.Array(OpinionChildMarket)),
  volume24h: Nullable(NumOrString),
  labels: Nullable(Type.Array(Type.String())),
  thumbnailUrl: Nullable(Type.String()),
  coverUrl: Nullable(Type.String()),
});
export type OpinionMarket = Static<typeof OpinionMarket>;

export const OpinionMarketList = Type.Object({
  total: Nullable(Type.Integer()),
  list: Nullable(Type.Array(OpinionMarket)),
});
export type OpinionMarketList = Static<typeof OpinionMarketList>;

/** GET /market/{id}, /market/categorical/{id}, /market/slug/{slug}: `result.data`. */
export const OpinionMarketDetail = Type.Object({ data: Nullable(OpinionMarket) });
export type OpinionMarketDetail = Static<typeof OpinionMarketDetail>;

const BookLevel = Type.Object({ price: NumOrString, size: NumOrString });

/** GET /token/orderbook: `market` is the condition id, `timestamp` milliseconds. */
export const OpinionBook = Type.Object({
  market: Nullable(Type.String()),
  tokenId: Nullable(Type.String()),
  timestamp: Type.Number(),
  bids: Nullable(Type.Array(BookLevel)),
  asks: Nullable(Type.Array(BookLevel)),
});
export type OpinionBook = Static<typeof OpinionBook>;

/** GET /token/price-history: points of `t` (Unix seconds) and `p` (price as a decimal string). */
export const OpinionPriceHistory = Type.Object({
  history: Nullable(Type.Array(Type.Object({ t: Type.Number(), p: NumOrString }))),
});
export type OpinionPriceHistory = Static<typeof OpinionPriceHistory>;

export const OpinionPosition = Type.Object({
  marketId: Type.Integer(),
  tokenId: Nullable(Type.String()),
  outcome: Nullable(Type.String()),
  outcomeSide: Nullable(Type.Integer()),
  outcomeSideEnum: Nullable(Type.String()),
  sharesOwned: NumOrString,
  avgEntryPrice: Nullable(NumOrString),
  currentValueInQuoteToken: Nullable(NumOrString),
  rootMarketId: Nullable(Type.Integer()),
});
export type OpinionPosition = Static<typeof OpinionPosition>;

/** A page of GET /positions or /positions/user/{walletAddress}. */
export const OpinionPositionPage = Type.Object({
  total: Nullable(Type.Integer()),
  list: Nullable(Type.Array(OpinionPosition)),
});
export type OpinionPositionPage = Static<typeof OpinionPositionPage>;

/** A page of a list we pass on raw (trades, positions by address): only the paging fields are checked. */
export const OpinionRawPage = Type.Object({
  total: Nullable(Type.Integer()),
  list: Nullable(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
});
export type OpinionRawPage = Static<typeof OpinionRawPage>;

/**
 * One row of GET /trade/user/{walletAddress} ("only filled trades"): only what names and dates the row is read, the
 * rest is passed on as sent. `createdAt` is Unix seconds [API][REC]; `tradeNo` is Opinion's trade number.
 */
export const OpinionUserTrade = Type.Object({
  createdAt: Type.Number(),
  tradeNo: Nullable(Type.String()),
  orderNo: Nullable(Type.String()),
  txHash: Nullable(Type.String()),
  marketId: Nullable(Type.Number()),
  outcomeSide: Nullable(Type.Number()),
  side: Nullable(Type.String()),
  shares: Nullable(Type.String()),
  price: Nullable(Type.String()),
});
export type OpinionUserTrade = Static<typeof OpinionUserTrade>;
export const OpinionUserTradePage = Type.Object({
  total: Nullable(Type.Integer()),
  list: Nullable(Type.Array(OpinionUserTrade)),
});

/** GET /user/balance?chain_id=56; balances are human units ("formatted with decimals") per quote token. */
export const OpinionBalance = Type.Object({
  walletAddress: Nullable(Type.String()),
  multiSignAddress: Nullable(Type.String()),
  chainId: Nullable(Type.String()),
  balances: Nullable(
    Type.Array(
      Type.Object({
        quoteToken: Type.String(),
        totalBalance: NumOrString,
        availableBalance: Nullable(NumOrString),
        frozenBalance: Nullable(NumOrString),
        tokenDecimals: Nullable(Type.Integer()),
      }),
    ),
  ),
});
export type OpinionBalance = Static<typeof OpinionBalance>;

/** GET /user/auth: the key's login wallet and its Safe per chain. */
export const OpinionUserAuth = Type.Object({
  walletAddress: Nullable(Type.String()),
  walletUsers: Nullable(Type.Record(Type.String(), Type.String())),
});
export type OpinionUserAuth = Static<typeof OpinionUserAuth>;

export const OpinionLabelList = Type.Object({
  list: Nullable(Type.Array(Type.Object({ labelId: Type.Integer(), labelName: Nullable(Type.String()) }))),
});

/** GET /quoteToken?chainId: each collateral and the CTF exchange contract its orders are signed for. */
export const OpinionQuoteTokenList = Type.Object({
  list: Nullable(
    Type.Array(
      Type.Object({
        quoteTokenAddress: Nullable(Type.String()),
        ctfExchangeAddress: Nullable(Type.String()),
        decimal: Nullable(Type.Integer()),
        chainId: Nullable(Type.String()),
      }),
    ),
  ),
});
export type OpinionQuoteTokenList = Static<typeof OpinionQuoteTokenList>;

/**
 * An order of GET /order, GET /order/{orderId} and POST /order (OpenAPI OrderData). `status` 1 pending, 2 finished,
 * 3 canceled, 4 expired, 5 failed; amounts are human-unit decimal strings; the numeric `side` has been documented
 * two ways, so `sideEnum` (Buy/Sell) is read first.
 */
export const OpinionOrder = Type.Object({
  orderId: Type.String(),
  marketId: Type.Integer(),
  side: Nullable(Type.Integer()),
  sideEnum: Nullable(Type.String()),
  outcome: Nullable(Type.String()),
  outcomeSide: Nullable(Type.Integer()),
  outcomeSideEnum: Nullable(Type.String()),
  price: Nullable(NumOrString),
  orderShares: Nullable(NumOrString),
  filledShares: Nullable(NumOrString),
  status: Type.Integer(),
  statusEnum: Nullable(Type.String()),
  tradingMethod: Nullable(Type.Integer()),
  createdAt: Nullable(Type.Number()),
  expiresAt: Nullable(Type.Number()),
});
export type OpinionOrder = Static<typeof OpinionOrder>;
export const OpinionOrderPage = Type.Object({
  total: Nullable(Type.Integer()),
  list: Nullable(Type.Array(OpinionOrder)),
});
export const OpinionOrderDoc = Type.Object({ orderData: OpinionOrder });
export const OpinionCancel = Type.Object({ result: Nullable(Type.Boolean()) });

/** A row of GET /trade (the key holder's fills): `feeFormatted` is the fee in human units, `fee` the same in wei. */
export const OpinionFillRow = Type.Object({
  tradeNo: Type.String(),
  orderNo: Type.String(),
  marketId: Type.Integer(),
  side: Type.String(),
  outcome: Nullable(Type.String()),
  outcomeSide: Nullable(Type.Integer()),
  outcomeSideEnum: Nullable(Type.String()),
  price: NumOrString,
  shares: NumOrString,
  feeFormatted: Nullable(NumOrString),
  createdAt: Type.Number(),
});
export type OpinionFillRow = Static<typeof OpinionFillRow>;
export const OpinionFillPage = Type.Object({
  total: Nullable(Type.Integer()),
  list: Nullable(Type.Array(OpinionFillRow)),
});
