// The adapter contract every venue implements: a frozen descriptor (capabilities as data) plus facets whose
// methods exist exactly when the descriptor declares the capability. Adapters are stateless; credentials arrive
// per call as a VenueSession and are dropped after it.
import type { CandleInterval, OrderBook, Trade } from '../domain/book.js';
import type { PriceSeries } from '../domain/candles.js';
import type { VenueCapability } from '../domain/capabilities.js';
import type { ExchangeId } from '../domain/exchanges.js';
import type { FeeSchedule } from '../domain/fees/schedule.js';
import type { TakerFeeModel } from '../domain/fees/taker-fee-model.js';
import type { Market, MarketEvent, Page } from '../domain/market.js';
import type { MarketStreamEvent, UserStreamEvent } from '../domain/stream.js';
import type { Balance, Fill, Order, OrderRequest, OrderType, Position } from '../domain/trading.js';
import type { WalletActivityItem, WalletActivityQuery } from '../domain/wallet-activity.js';

// What an adapter declares: the venue's own capabilities (the server's cross-venue ones are derived from them).
export {
  VENUE_CAPABILITIES as CAPABILITIES,
  type VenueCapability as Capability,
} from '../domain/capabilities.js';

/** `polling`: the capability works, emulated by polling the venue rather than a native stream. */
export type Support = 'supported' | 'unsupported' | 'polling';

export interface CredentialField {
  name: string;
  required: boolean;
  secret: boolean;
  description: string;
}

export interface VenueDescriptor {
  id: ExchangeId;
  name: string;
  has: Readonly<Record<VenueCapability, Support>>;
  features: {
    orderTypes: readonly OrderType[];
    /** Minimum seconds between now and a gtd expiration. */
    gtdMinLeadSeconds: number | null;
    maxBookDepth: number;
    candleIntervals: readonly CandleInterval[];
    /**
     * The market stream carries the venue's public trades (`trade` events): the book recorder hears them there and
     * polls `fetchTrades` only for venues where this is false.
     */
    streamTrades: boolean;
    /**
     * The fee module that computes this venue's taker fee from what it publishes (domain/fees/taker-fee-model.ts),
     * or null when it publishes no curve: routing, arbitrage and net prices need it.
     */
    takerFeeModel: TakerFeeModel | null;
    /**
     * The smallest value (price × size, USD) of an order the exchange takes, and which orders it binds: every
     * order, or a marketable buy only (an ioc/fok buy). Absent: none published. Routing and paired execution plan
     * no leg below it. `replacesMinSize`: the orders it binds have no minimum size (Polymarket's share minimum
     * binds limit orders and market sells only).
     */
    minOrderValue?: { usd: number; orders: 'all' | 'marketable_buy'; replacesMinSize: boolean };
  };
  credentials: readonly CredentialField[];
  onboarding: readonly ('self' | 'managed')[];
  /** What `GET /balance` raw carries, e.g. "micro-USDC string" or "cents". */
  balanceUnit: string;
  /** The venue's own published limits, which our transport respects. */
  rateLimit: { requestsPerSecond: number; burst: number };
}

export interface LoggerLike {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface VenueContext {
  signal: AbortSignal;
  requestId: string;
  logger: LoggerLike;
  /** The calling customer, for venue-side attribution and logs; never used to pick credentials. */
  tenant: string | null;
  /** Told of every successful venue answer's body (`omnibook record`); never set on the server's own calls. */
  capture?: PayloadCapture;
}

/**
 * A venue answer or stream frame as received: what `omnibook record` writes as a fixture. Request headers and query
 * strings are never part of it (signatures and keys travel there); bodies are redacted by the recorder.
 */
export interface CapturedPayload {
  venue: ExchangeId;
  kind: 'http' | 'ws';
  /** Our label of the call (`VenueRequest.operation`), or `ws` for a stream frame. */
  operation: string;
  method?: string;
  /** The path on the wire, without the query string. */
  path?: string;
  body: string;
}

export type PayloadCapture = (payload: CapturedPayload) => void;

export interface VenueSession {
  exchange: ExchangeId;
  credentials: Readonly<Record<string, string>>;
  source: 'stored' | 'managed' | 'per_request' | 'builder';
}

export interface PingOutcome {
  reachable: boolean;
  authenticated: boolean;
  message: string;
}

export interface CatalogFacet {
  fetchMarketsPage?(ctx: VenueContext, cursor: string | null): Promise<Page<Market>>;
  fetchEventsPage?(ctx: VenueContext, cursor: string | null): Promise<Page<MarketEvent>>;
  fetchMarket?(ctx: VenueContext, nativeId: string): Promise<Market | null>;
}

/** A price-history window in Unix seconds, both ends inclusive, and the candle interval it will be built into. */
export interface HistoryQuery {
  interval: CandleInterval;
  startTs: number;
  endTs: number;
}

/** One page of a market's public trades, newest first, inside [startTs, endTs] (Unix seconds, inclusive). */
export interface TradesQuery {
  limit: number;
  startTs: number | null;
  endTs: number | null;
  /** The adapter's own cursor from the previous page of the same query; null for the newest page. */
  cursor: string | null;
}

export interface TradesPage {
  /** At most `limit`, newest first; fewer (even none) when the venue's pages ran out or a page budget did. */
  trades: Trade[];
  /** Where the next page starts (opaque to callers), or null when the venue has no older trade in the window. */
  cursor: string | null;
  /** Which venue feed the trades come from, e.g. `kalshi_rest_trades`. */
  sourceChannel: string;
}

/** A long-lived stream's context: no request id or per-request deadline; the signal ends the stream. */
export interface StreamContext {
  signal: AbortSignal;
  logger: LoggerLike;
  /**
   * Told of every stream frame that failed its decoder (the drift alarm); the registry's guard supplies it, so a
   * stream reports what it could not read instead of only logging it.
   */
  drift?: DriftSink;
  /** Told of every stream frame received (`omnibook record`). */
  capture?: PayloadCapture;
}

/** Receives an error that may be (or be caused by) a VenuePayloadError; anything else is ignored. */
export type DriftSink = (error: unknown) => void;

export interface StreamTarget {
  market: Market;
  outcome: string;
}

/**
 * One upstream connection carrying book and trade updates for a changing set of instruments. The adapter restores
 * its subscriptions after a reconnect and sends a fresh snapshot for each (preceded by `resync` when a gap was
 * seen), so a consumer never needs to know a reconnect happened.
 */
export interface MarketStream extends AsyncIterable<MarketStreamEvent> {
  /** Throws AppError (400) synchronously for an outcome the market does not have. */
  subscribe(targets: readonly StreamTarget[]): void;
  unsubscribe(targets: readonly StreamTarget[]): void;
  close(): Promise<void>;
}

/** The session owner's order and fill updates. */
export interface UserStream extends AsyncIterable<UserStreamEvent> {
  close(): Promise<void>;
}

export interface MarketDataFacet {
  fetchOrderBook?(ctx: VenueContext, market: Market, outcome: string): Promise<OrderBook>;
  /**
   * The venue's price history of one outcome inside the window, at the finest resolution it gives for the
   * interval: price points, or its own candles of one period that nests in the interval's. Callers build the
   * candles (`domain/candles.ts`); an adapter never rolls up itself.
   */
  fetchPriceHistory?(
    ctx: VenueContext,
    market: Market,
    outcome: string,
    query: HistoryQuery,
  ): Promise<PriceSeries>;
  fetchTrades?(ctx: VenueContext, market: Market, outcome: string, query: TradesQuery): Promise<TradesPage>;
  fetchUserActivity?(ctx: VenueContext, address: string, limit: number): Promise<Record<string, unknown>>;
  /**
   * A wallet's public activity items at or after `query.sinceMs`, oldest first, at most `query.max` (declared as
   * watch_address: WebSocket wallet subscriptions poll it). Each item's id is stable across reads.
   */
  fetchWalletActivity?(
    ctx: VenueContext,
    address: string,
    query: WalletActivityQuery,
  ): Promise<WalletActivityItem[]>;
  /**
   * The taker fee parameters of one market as the venue publishes them (its fee fields, or the knowledge that it
   * publishes none); `domain/fees/` turns them and a book walk into a fee.
   */
  fetchFeeSchedule?(ctx: VenueContext, market: Market, outcome: string): Promise<FeeSchedule>;
  /** Native stream, or polling with change detection when the descriptor says `websocket: 'polling'`. */
  openMarketStream?(ctx: StreamContext): MarketStream;
}

/** What is known of an order that may have reached the exchange, to find it there without sending it again. */
export interface OrderRef {
  marketId: string;
  clientOrderId: string;
  /** The exchange's id when it was known before sending (Polymarket's order hash) or from its answer. */
  orderId: string | null;
  /** When the order was sent (Unix ms): the lookup window starts a little before it. */
  sentAtMs: number;
  /**
   * The order's terms as journalled, for a venue whose orders carry neither our id nor a hash (Opinion): there the
   * order is found by them.
   */
  terms?: Pick<OrderRequest, 'outcome' | 'side' | 'price' | 'size'>;
}

/** Called by createOrder after everything is checked and signed, immediately before the order goes out. */
export interface SendHooks {
  /**
   * `orderId` is the exchange's id when the client computes it (Polymarket's order hash), else null. Throwing
   * stops the order: it is not sent.
   */
  beforeSend(ids: { orderId: string | null }): Promise<void>;
}

export interface TradingFacet {
  createOrder?(
    ctx: VenueContext,
    session: VenueSession,
    order: OrderRequest,
    hooks?: SendHooks,
  ): Promise<Order>;
  /**
   * The exchange's word on an order we may have sent: the order, or null when the exchange has no such order.
   * Present with createOrder (the order journal's reconciler needs it); throws 503 when the exchange cannot say.
   */
  lookupOrder?(ctx: VenueContext, session: VenueSession, ref: OrderRef): Promise<Order | null>;
  getOrder?(ctx: VenueContext, session: VenueSession, orderId: string): Promise<Order>;
  listOpenOrders?(ctx: VenueContext, session: VenueSession, marketId: string | null): Promise<Order[]>;
  cancelOrder?(ctx: VenueContext, session: VenueSession, orderId: string): Promise<Order>;
  fetchOrderHistory?(ctx: VenueContext, session: VenueSession, marketId: string | null): Promise<Order[]>;
  fetchFills?(
    ctx: VenueContext,
    session: VenueSession,
    marketId: string | null,
    limit: number,
  ): Promise<Fill[]>;
  fetchPositions?(ctx: VenueContext, session: VenueSession, marketId: string | null): Promise<Position[]>;
  /** `refresh` asks the venue to recompute first, where it can (declared as refresh_balance). */
  fetchBalance?(ctx: VenueContext, session: VenueSession, options?: { refresh: boolean }): Promise<Balance>;
  openUserStream?(ctx: StreamContext, session: VenueSession): UserStream;
  /**
   * Polymarket: the deposit wallet of the session's signer, created on the venue when it does not exist yet
   * (the venue's wallet-creation path). Idempotent: `created` is false when it already existed.
   */
  ensureDepositWallet?(
    ctx: VenueContext,
    session: VenueSession,
  ): Promise<{ address: string; created: boolean }>;
  /** Polymarket: the session's owner key and funding wallet (approvals and CTF operations act for it). */
  onchainSigner?(ctx: VenueContext, session: VenueSession): Promise<OnchainSigner>;
  /**
   * Polymarket: contract calls made by the session's deposit wallet, gaslessly through the venue's relayer, signed
   * by the owner; resolves once the relayer reports the transaction mined or failed.
   */
  relayWalletCalls?(
    ctx: VenueContext,
    session: VenueSession,
    calls: readonly RelayedCall[],
  ): Promise<RelayedTransaction>;
}

/** One contract call a wallet makes (value 0), encoded by the caller. */
export interface RelayedCall {
  to: `0x${string}`;
  data: `0x${string}`;
}

/** A gasless transaction as the venue's relayer reports it: its id, the chain hash once known, and its state. */
export interface RelayedTransaction {
  transactionId: string;
  transactionHash: string | null;
  /** The relayer's state, e.g. STATE_MINED, STATE_CONFIRMED, STATE_FAILED. */
  state: string;
}

/** Who acts on chain for a session: the signing key's account and the wallet that holds the funds. */
export interface OnchainSigner {
  /** The session's private key (0x-prefixed), for transactions the owner sends itself. */
  privateKey: `0x${string}`;
  owner: `0x${string}`;
  /** The funding wallet: the owner itself (EOA), or its proxy, Safe or deposit wallet. */
  wallet: `0x${string}`;
  /** How the wallet is controlled: 0 EOA, 1 proxy, 2 Safe, 3 deposit wallet (Polymarket's numbering). */
  signatureType: number;
}

export interface VenueAdapter {
  readonly descriptor: VenueDescriptor;
  readonly catalog: CatalogFacet;
  readonly marketData: MarketDataFacet;
  readonly trading: TradingFacet;
  /** Checks reachability, and authentication when a session is given. Must not throw for an unreachable venue. */
  ping(ctx: VenueContext, session: VenueSession | null): Promise<PingOutcome>;
  /** Releases pooled connections; called once when the server stops. */
  close?(): Promise<void>;
}
