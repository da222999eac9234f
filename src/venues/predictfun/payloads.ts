// TypeBox schemas of the Predict.fun JSON we read: the `{success, data, cursor}` envelope, categories (events)
// with nested markets, the YES-quoted orderbook, order matches, positions, the account, sign-in documents, and the
// JSON-RPC answers of the chain balance read. Only the fields we use are declared; the rest pass through.
import { type Static, type TSchema, Type } from 'typebox';

const Nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
/** Amounts the venue sends as numbers in one place and decimal strings in another. */
const NumOrString = Type.Union([Type.Number(), Type.String()]);
/** uint256 values in wei (1e18) as decimal strings. */
const Wei = Type.String({ pattern: '^[0-9]+$' });

/** A success envelope around `data`; list endpoints add `cursor` (null on the last page). */
export const envelope = <T extends TSchema>(data: T) =>
  Type.Object({ success: Type.Literal(true), data, cursor: Nullable(Type.String()) });

const Quote = Type.Object({ price: Type.Number(), size: Type.Number() });

export const PredictfunOutcome = Type.Object({
  name: Type.String(),
  /** 1 = the YES side the book is quoted in, 2 = its complement. */
  indexSet: Type.Integer(),
  onChainId: Type.String(),
  status: Nullable(Type.String()),
  bestBid: Nullable(Quote),
  bestAsk: Nullable(Quote),
});
export type PredictfunOutcome = Static<typeof PredictfunOutcome>;

export const PredictfunMarket = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  question: Type.String(),
  description: Nullable(Type.String()),
  categorySlug: Type.String(),
  conditionId: Nullable(Type.String()),
  status: Type.String(),
  tradingStatus: Nullable(Type.String()),
  decimalPrecision: Nullable(Type.Integer()),
  feeRateBps: Nullable(Type.Number()),
  isNegRisk: Nullable(Type.Boolean()),
  isYieldBearing: Nullable(Type.Boolean()),
  createdAt: Nullable(Type.String()),
  imageUrl: Nullable(Type.String()),
  outcomes: Type.Array(PredictfunOutcome),
});
export type PredictfunMarket = Static<typeof PredictfunMarket>;

export const PredictfunCategory = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  status: Type.String(),
  startsAt: Nullable(Type.String()),
  endsAt: Nullable(Type.String()),
  createdAt: Nullable(Type.String()),
  imageUrl: Nullable(Type.String()),
  isNegRisk: Nullable(Type.Boolean()),
  markets: Type.Array(PredictfunMarket),
});
export type PredictfunCategory = Static<typeof PredictfunCategory>;

const Level = Type.Tuple([NumOrString, NumOrString]);

export const PredictfunBook = Type.Object({
  marketId: Type.Integer(),
  updateTimestampMs: Type.Number(),
  bids: Type.Array(Level),
  asks: Type.Array(Level),
});
export type PredictfunBook = Static<typeof PredictfunBook>;

const MatchLeg = Type.Object({
  amount: Wei,
  /** What the leg paid: SHARES (a buying taker, in outcome shares) or COLLATERAL (a selling taker, in USDT). */
  fee: Nullable(Type.Object({ amount: Wei, type: Type.String() })),
  price: Wei,
  quoteType: Type.String(),
  signer: Type.String(),
  hash: Nullable(Type.String()),
  outcome: Type.Object({
    indexSet: Type.Integer(),
    name: Nullable(Type.String()),
    onChainId: Nullable(Type.String()),
  }),
});

export const PredictfunMatch = Type.Object({
  amountFilled: Wei,
  priceExecuted: Wei,
  executedAt: Type.String(),
  /** Absent until the match has an on-chain settlement. */
  settlementId: Nullable(Type.String()),
  transactionHash: Nullable(Type.String()),
  taker: MatchLeg,
  makers: Type.Array(MatchLeg),
  market: Type.Object({ id: Type.Integer() }),
});
export type PredictfunMatch = Static<typeof PredictfunMatch>;

export const PredictfunPosition = Type.Object({
  id: Type.String(),
  /** Shares in wei. */
  amount: Wei,
  averageBuyPriceUsd: Nullable(NumOrString),
  valueUsd: Nullable(NumOrString),
  pnlUsd: Nullable(NumOrString),
  market: Type.Object({ id: Type.Integer() }),
  outcome: Type.Object({ indexSet: Type.Integer(), name: Type.String(), onChainId: Nullable(Type.String()) }),
});
export type PredictfunPosition = Static<typeof PredictfunPosition>;

/** An order as GET /v1/orders and /v1/orders/{hash} show it: the signed struct under `order` (ccxt's recorded docs). */
export const PredictfunOrderDoc = Type.Object({
  id: NumOrString,
  /** Shares in wei. */
  amount: Wei,
  amountFilled: Wei,
  marketId: Type.Integer(),
  status: Type.String(),
  strategy: Type.String(),
  isNegRisk: Nullable(Type.Boolean()),
  isYieldBearing: Nullable(Type.Boolean()),
  order: Type.Object({
    hash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }),
    salt: NumOrString,
    maker: Type.String(),
    tokenId: Type.String(),
    makerAmount: Wei,
    takerAmount: Wei,
    expiration: NumOrString,
    side: Type.Union([Type.Literal(0), Type.Literal(1)]),
  }),
});
export type PredictfunOrderDoc = Static<typeof PredictfunOrderDoc>;

/** POST /v1/orders answers with the order's identifiers only. */
export const PredictfunCreatedOrder = Type.Object({
  orderHash: Type.String(),
  orderId: Nullable(NumOrString),
  code: Nullable(Type.String()),
});

/** POST /v1/orders/remove-by-hash, answered without a data envelope. */
export const PredictfunRemoved = Type.Object({
  success: Type.Literal(true),
  removed: Type.Array(Type.String()),
  rejected: Type.Array(Type.String()),
  noop: Type.Array(Type.String()),
});

export const PredictfunAccount = Type.Object({ address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }) });

export const PredictfunAuthMessage = Type.Object({ message: Type.String({ minLength: 1 }) });
export const PredictfunAuthToken = Type.Object({ token: Type.String({ minLength: 1 }) });

/** Any list page, when only the raw documents are passed on (wallet activity). */
export const PredictfunRawPage = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  cursor: Nullable(Type.String()),
});

/** A JSON-RPC 2.0 answer (one element of a batch). */
export const JsonRpcAnswer = Type.Object({
  id: Type.Union([Type.Number(), Type.String(), Type.Null()]),
  result: Type.Optional(Type.String()),
  error: Type.Optional(Type.Object({ code: Type.Number(), message: Type.String() })),
});
export type JsonRpcAnswer = Static<typeof JsonRpcAnswer>;
export const JsonRpcBatch = Type.Array(JsonRpcAnswer);
