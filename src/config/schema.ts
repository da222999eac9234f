// The configuration schema: one TypeBox object is the type, the defaults and the validation of every setting.
import { type Static, Type } from 'typebox';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const EvmAddress = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
const BuilderTier = Type.Object({
  /** The fee a builder's end-users pay on an order's notional, in basis points. */
  feeBps: Type.Integer({ minimum: 0, maximum: 10_000 }),
  /** The share of a collected fee paid to the builder's affiliate address, in basis points of the fee. */
  affiliateFeeBps: Type.Integer({ minimum: 0, maximum: 10_000 }),
});

export const ConfigSchema = Type.Object({
  mode: Type.Union([Type.Literal('serve'), Type.Literal('sandbox'), Type.Literal('replay')]),
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  dataDir: Type.String({ minLength: 1 }),
  /** PostgreSQL connection string; when absent the embedded SQLite file under dataDir is used. */
  databaseUrl: Type.Optional(Type.String({ minLength: 1 })),
  /** Redis connection string; when absent rate limits and counters are in-process. */
  redisUrl: Type.Optional(Type.String({ minLength: 1 })),
  /** Prefix of every Redis key and channel (env OMNIBOOK_REDIS_PREFIX): several deployments can share one Redis. */
  redisPrefix: Type.String({ minLength: 1, maxLength: 100 }),
  /** When set, an admin-tier key with exactly this value is ensured at start. */
  adminKey: Type.Optional(Type.String({ minLength: 16 })),
  logLevel: Type.Enum(LOG_LEVELS),
  /** Log one line per request at info level (off by default: each line costs throughput). */
  accessLog: Type.Boolean(),
  http: Type.Object({
    bodyLimitBytes: Type.Integer({ minimum: 1024 }),
    requestTimeoutMs: Type.Integer({ minimum: 0 }),
    trustProxy: Type.Boolean(),
  }),
  auth: Type.Object({
    /** How long a verified key stays cached in memory; bounds how late a revocation takes effect. */
    keyCacheTtlMs: Type.Integer({ minimum: 0 }),
  }),
  usage: Type.Object({
    /** How often monthly request counters are written to the database. */
    flushIntervalMs: Type.Integer({ minimum: 50 }),
  }),
  catalogue: Type.Object({
    /** Run the background catalogue sync (env OMNIBOOK_CATALOGUE_SYNC=0 turns it off). */
    sync: Type.Boolean(),
    /** Pause between two passes over every venue (the incremental refresh). */
    refreshIntervalMs: Type.Integer({ minimum: 100 }),
    /** How long the sync lease outlives its holder; a crashed leader is replaced after about this long. */
    leaseTtlMs: Type.Integer({ minimum: 300 }),
  }),
  /** Cross-venue matching (README "Markets and events"). */
  matching: Type.Object({
    /**
     * The lowest confidence tier published (served as matched_markets / related_markets); lower links are stored
     * unpublished. The default is the lowest tier whose precision `npm run eval:matching` measured ≥ 0.95 on every
     * real labelled set.
     */
    minTier: Type.Union([Type.Literal('HIGH'), Type.Literal('MEDIUM'), Type.Literal('LOW')]),
    /** Operator lexicon files (same form as src/domain/matching/lexicon/*.json), merged over the built-in one. */
    lexiconPaths: Type.Array(Type.String({ minLength: 1 })),
  }),
  /** The order-book recorder behind GET /orderbook history (README "Order book history"). */
  recorder: Type.Object({
    /** Record books and serve their history; off, the historical mode of GET /orderbook answers 501. */
    enabled: Type.Boolean(),
    /** Books always recorded: `svc_id` (every outcome of the market) or `svc_id:outcome`. */
    books: Type.Array(Type.String({ minLength: 3, maxLength: 600 })),
    /** Also record every outcome of each exchange's N most-traded active markets (by volume, from the catalogue). */
    topN: Type.Integer({ minimum: 0, maximum: 1000 }),
    /** How often that top N is recomputed from the catalogue. */
    refreshIntervalMs: Type.Integer({ minimum: 1000 }),
    /** At most one snapshot per book per interval; a book that did not change writes nothing. */
    intervalMs: Type.Integer({ minimum: 10 }),
    /** Snapshots older than this many days are deleted (whole UTC days). */
    retentionDays: Type.Integer({ minimum: 1 }),
  }),
  /** The WebSocket gateway (GET /ws). */
  websocket: Type.Object({
    /** Heartbeat period; books are announced stale to a client after three missed beats (stale_after_ms). */
    heartbeatMs: Type.Integer({ minimum: 100 }),
    /** A connection that has not sent auth within this long is closed (wire contract §6: 15 s). */
    authTimeoutMs: Type.Integer({ minimum: 100 }),
    /** Connections not yet authenticated this node holds at once; past it an upgrade is refused (429). */
    maxUnauthenticated: Type.Integer({ minimum: 1 }),
    /**
     * Authenticated connections one customer may hold on this node, by its key's tier (0: no limit); one more is
     * refused after auth (error 3001, close 4008).
     */
    maxConnectionsPerCustomer: Type.Object({
      free: Type.Integer({ minimum: 0 }),
      pro: Type.Integer({ minimum: 0 }),
      scale: Type.Integer({ minimum: 0 }),
      admin: Type.Integer({ minimum: 0 }),
    }),
    /**
     * Frames refused for rate (past the 3 a second) within one second after which the socket is closed (1008);
     * those refusals get one `rate_limited` answer per second.
     */
    floodCloseAfter: Type.Integer({ minimum: 1 }),
    /** Time between two polls of a watched wallet's public activity (wallet subscriptions). */
    walletPollMs: Type.Integer({ minimum: 100 }),
    /** How far back a wallet subscription's first message (its snapshot) looks. */
    walletHistoryMs: Type.Integer({ minimum: 0 }),
    /** How late a venue may publish a wallet's activity item (against the newest seen) and still be delivered. */
    walletOverlapMs: Type.Integer({ minimum: 0 }),
    /**
     * Wallet addresses this node polls at most for its clients (each one a venue request every walletPollMs),
     * shared fairly between customers: README "WebSocket limits".
     */
    maxWalletWatchers: Type.Integer({ minimum: 1 }),
    /** Books of polled venues (websocket: polling) this node holds at most for its clients, shared the same way. */
    maxPolledBooks: Type.Integer({ minimum: 1 }),
    /**
     * With Redis: how often this node adds its usage counters to the cluster's totals and refreshes its live counts
     * (which expire when a node stops refreshing them: ten periods, at least 2 s).
     */
    usageFlushMs: Type.Integer({ minimum: 20 }),
    /**
     * With Redis: the lease on one book's upstream feed. Its holder renews it every third of this; when a holder
     * dies, another node watching the book takes the feed over after at most this long.
     */
    feedLeaseMs: Type.Integer({ minimum: 300 }),
  }),
  /** Where each exchange lives. `serve` uses these; `sandbox` replaces them with its simulators' loopback URLs. */
  venues: Type.Object({
    polymarket: Type.Object({
      gammaUrl: Type.String(),
      clobUrl: Type.String(),
      dataUrl: Type.String(),
      wsMarketUrl: Type.String(),
      wsUserUrl: Type.String(),
      relayerUrl: Type.String(),
      /** Assets one market WebSocket carries; more are spread over more sockets (the venue serves about 500). */
      wsAssetsPerConnection: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    }),
    kalshi: Type.Object({
      restUrl: Type.String(),
      wsUrl: Type.String(),
      /** API key for the market-data WebSocket (Kalshi signs every WS handshake); without it streams poll REST. */
      streamApiKeyId: Type.Optional(Type.String({ minLength: 1 })),
      /** PEM private key of that API key. */
      streamPrivateKey: Type.Optional(Type.String({ minLength: 1 })),
    }),
    limitless: Type.Object({ restUrl: Type.String(), wsUrl: Type.String() }),
    opinion: Type.Object({
      restUrl: Type.String(),
      wsUrl: Type.String(),
      /**
       * The operator's Opinion OpenAPI key (env OPINION_API_KEY). Opinion requires a key even for market data;
       * without one, Opinion's public data answers 503 "OPINION_API_KEY not configured".
       */
      apiKey: Type.Optional(Type.String({ minLength: 1 })),
      /** How often a subscribed Opinion book is polled for the book stream. */
      pollIntervalMs: Type.Integer({ minimum: 100 }),
    }),
    predictfun: Type.Object({
      restUrl: Type.String(),
      wsUrl: Type.String(),
      /**
       * Operator-level Predict.fun API key (x-api-key). Mainnet wants it on every request, market data included;
       * without it public calls answer 503 "PREDICTFUN_API_KEY not configured". The testnet host needs none.
       */
      apiKey: Type.Optional(Type.String({ minLength: 1 })),
      /** BNB Chain JSON-RPC endpoint: balances are USDT `balanceOf` reads, Predict.fun has no balance endpoint. */
      rpcUrl: Type.String(),
      /** The collateral token (BSC USDT, 18 decimals) whose balance GET /balance reports. */
      collateralToken: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
      /** How often a subscribed book is polled for the WebSocket feed (the REST limit is 240 requests/minute). */
      pollIntervalMs: Type.Integer({ minimum: 100 }),
    }),
    /** Per-call deadline for venue requests. */
    timeoutMs: Type.Integer({ minimum: 100 }),
    /**
     * Heartbeat period of the Polymarket and Kalshi market streams (both document 10 s); a socket with no frame for
     * three periods is replaced (a stalled feed: its books go stale until the new connection's snapshot).
     */
    streamHeartbeatMs: Type.Integer({ minimum: 50 }),
    /**
     * One circuit breaker per venue in front of every adapter request: after `failureThreshold` upstream failures
     * in a row (5xx, 429 after backoff, timeout, unreachable, malformed payload) the venue is not called for
     * `openMs` (requests answer 503 retryable with Retry-After at once), then one probe decides.
     */
    circuitBreaker: Type.Object({
      enabled: Type.Boolean(),
      failureThreshold: Type.Integer({ minimum: 1 }),
      openMs: Type.Integer({ minimum: 10 }),
    }),
  }),
  /**
   * Polygon, where Polymarket's approvals and CTF split/merge/redeem happen (README "On chain"). `serve` uses
   * `rpcUrl` (none: those routes answer 503); `sandbox` starts its own local chain unless `enabled` is false
   * (`--no-chain`). Contract addresses are Polymarket's V2 set unless overridden.
   */
  chain: Type.Object({
    enabled: Type.Boolean(),
    rpcUrl: Type.Optional(Type.String({ minLength: 1 })),
    chainId: Type.Integer({ minimum: 1 }),
    /** Overrides of Polymarket's V2 contract addresses (names as in src/chain/polymarket-contracts.ts). */
    contracts: Type.Partial(
      Type.Object({
        collateral: EvmAddress,
        conditionalTokens: EvmAddress,
        exchange: EvmAddress,
        negRiskExchange: EvmAddress,
        negRiskAdapter: EvmAddress,
        collateralAdapter: EvmAddress,
        negRiskCollateralAdapter: EvmAddress,
      }),
    ),
    /** How long POST /approvals waits for each transaction's receipt. */
    receiptTimeoutMs: Type.Integer({ minimum: 100 }),
  }),
  /** The master key that seals stored credentials and managed wallet keys (README "Accounts and credentials"). */
  vault: Type.Object({
    /**
     * OMNIBOOK_MASTER_KEY: 32 bytes as 64 hex digits or base64. Absent, `<dataDir>/master.key` is read, or created
     * (mode 0600) on first run.
     */
    masterKey: Type.Optional(Type.String({ minLength: 1 })),
    /** OMNIBOOK_MASTER_KEY_PREVIOUS (comma-separated): earlier keys, kept only until `omnibook vault rotate` ran. */
    previousMasterKeys: Type.Array(Type.String({ minLength: 1 })),
  }),
  /** The builder program (README "Builder program"). */
  builder: Type.Object({
    /** QPS pool of a builder at its first use of the builder routes (spec §8: 500). */
    qpsPool: Type.Number({ minimum: 1, maximum: 1e9 }),
    /** qps_limit of an end-user created without one. */
    defaultUserQps: Type.Number({ minimum: 1, maximum: 1e9 }),
    /** Tier of a builder at its first use of the builder routes. */
    // The names of src/domain/builder-tiers.ts (config imports nothing internal).
    tier: Type.Enum(['iron', 'bronze', 'silver', 'gold', 'platinum']),
    /** Fee and revenue share per tier; higher tiers earn a higher share. */
    tiers: Type.Object({
      iron: BuilderTier,
      bronze: BuilderTier,
      silver: BuilderTier,
      gold: BuilderTier,
      platinum: BuilderTier,
    }),
    /** Where the fee's remainder (after the affiliate's share) goes. */
    treasuryAddress: Type.Optional(EvmAddress),
    /** The affiliate address fees are shared with, unless an order names another. */
    affiliateAddress: Type.Optional(EvmAddress),
    /** The smallest fee accepted, in USDC base units (6 decimals), and as basis points of the order's notional. */
    minFeeUsdc: Type.String({ pattern: '^[0-9]{1,30}$' }),
    minFeeBps: Type.Integer({ minimum: 0, maximum: 10_000 }),
    /**
     * The deployed FeeEscrow contract (src/chain/fee-escrow/FeeEscrow.sol) on `chain` (its chainId must be
     * chain.chainId), and the key of its operator — the account this server pulls and settles fees with
     * (OMNIBOOK_FEE_ESCROW_OPERATOR_KEY). Without all three, or without a chain, fee escrow is not available on this
     * server and GET /builder/escrow/config says so (fee_escrow_enabled false). The sandbox deploys its own.
     */
    escrow: Type.Optional(
      Type.Object({
        address: EvmAddress,
        chainId: Type.Integer({ minimum: 1 }),
        operatorKey: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
      }),
    ),
    /**
     * The background settlement of escrowed fees (fee-settlement-job.ts): how often one node (the holder of the
     * `fee-settlement` lease) looks for fees still held, and how long that lease outlives its holder.
     */
    feeSettlement: Type.Object({
      intervalMs: Type.Integer({ minimum: 50 }),
      leaseTtlMs: Type.Integer({ minimum: 300 }),
    }),
  }),
  /** The MCP endpoint (`/mcp`, streamable HTTP): its sessions live in this node's memory, so each is bounded. */
  mcp: Type.Object({
    enabled: Type.Boolean(),
    /** Sessions this node holds at once; past it a new session is refused (503, retryable). */
    maxSessions: Type.Integer({ minimum: 1 }),
    /** Sessions one API key holds on this node; a new one past it closes that key's least recently used one. */
    maxSessionsPerKey: Type.Integer({ minimum: 1 }),
    /** A session unused for this long is closed; the client's next request is a 404 and it starts a new one. */
    sessionIdleMs: Type.Integer({ minimum: 1_000 }),
    /** Largest body of one POST /mcp (a JSON-RPC message or batch); larger is a 413. */
    bodyLimitBytes: Type.Integer({ minimum: 1024 }),
  }),
  /** After SIGTERM, how long new requests get 503 before the listener closes. */
  shutdownDrainMs: Type.Integer({ minimum: 0 }),
  shutdownGraceMs: Type.Integer({ minimum: 0 }),
});

export type Config = Static<typeof ConfigSchema>;

export const DEFAULT_CONFIG: Config = {
  mode: 'serve',
  host: '127.0.0.1',
  port: 8080,
  dataDir: './data',
  redisPrefix: 'omnibook',
  logLevel: 'info',
  accessLog: false,
  http: { bodyLimitBytes: 1_048_576, requestTimeoutMs: 30_000, trustProxy: false },
  auth: { keyCacheTtlMs: 1_000 },
  usage: { flushIntervalMs: 5_000 },
  catalogue: { sync: true, refreshIntervalMs: 60_000, leaseTtlMs: 30_000 },
  matching: { minTier: 'MEDIUM', lexiconPaths: [] },
  websocket: {
    heartbeatMs: 10_000,
    authTimeoutMs: 15_000,
    maxUnauthenticated: 1_000,
    maxConnectionsPerCustomer: { free: 10, pro: 200, scale: 2_000, admin: 0 },
    floodCloseAfter: 100,
    walletPollMs: 5_000,
    walletHistoryMs: 86_400_000,
    walletOverlapMs: 120_000,
    maxWalletWatchers: 200,
    maxPolledBooks: 100,
    usageFlushMs: 1_000,
    feedLeaseMs: 3_000,
  },
  recorder: {
    enabled: true,
    books: [],
    topN: 5,
    refreshIntervalMs: 300_000,
    intervalMs: 1_000,
    retentionDays: 30,
  },
  venues: {
    polymarket: {
      gammaUrl: 'https://gamma-api.polymarket.com',
      clobUrl: 'https://clob.polymarket.com',
      dataUrl: 'https://data-api.polymarket.com',
      wsMarketUrl: 'wss://ws-subscriptions-clob.polymarket.com/ws/market',
      wsUserUrl: 'wss://ws-subscriptions-clob.polymarket.com/ws/user',
      relayerUrl: 'https://relayer-v2.polymarket.com',
    },
    // The hosts docs.kalshi.com documents today; api.elections.kalshi.com still answers the same API.
    kalshi: {
      restUrl: 'https://external-api.kalshi.com/trade-api/v2',
      wsUrl: 'wss://external-api-ws.kalshi.com/trade-api/ws/v2',
    },
    limitless: { restUrl: 'https://api.limitless.exchange', wsUrl: 'wss://ws.limitless.exchange' },
    opinion: {
      restUrl: 'https://openapi.opinion.trade/openapi',
      wsUrl: 'wss://ws.opinion.trade',
      pollIntervalMs: 2_000,
    },
    predictfun: {
      restUrl: 'https://api.predict.fun',
      wsUrl: 'wss://ws.predict.fun/ws',
      rpcUrl: 'https://bsc-dataseed.bnbchain.org',
      collateralToken: '0x55d398326f99059fF775485246999027B3197955',
      pollIntervalMs: 2_000,
    },
    timeoutMs: 10_000,
    streamHeartbeatMs: 10_000,
    circuitBreaker: { enabled: true, failureThreshold: 5, openMs: 10_000 },
  },
  chain: { enabled: true, chainId: 137, contracts: {}, receiptTimeoutMs: 60_000 },
  vault: { previousMasterKeys: [] },
  builder: {
    qpsPool: 500,
    defaultUserQps: 5,
    tier: 'iron',
    tiers: {
      iron: { feeBps: 50, affiliateFeeBps: 2_000 },
      bronze: { feeBps: 50, affiliateFeeBps: 3_000 },
      silver: { feeBps: 50, affiliateFeeBps: 4_000 },
      gold: { feeBps: 50, affiliateFeeBps: 5_000 },
      platinum: { feeBps: 50, affiliateFeeBps: 6_000 },
    },
    minFeeUsdc: '10000',
    minFeeBps: 10,
    feeSettlement: { intervalMs: 10_000, leaseTtlMs: 30_000 },
  },
  mcp: {
    enabled: true,
    maxSessions: 1_000,
    maxSessionsPerKey: 10,
    sessionIdleMs: 900_000,
    bodyLimitBytes: 262_144,
  },
  shutdownDrainMs: 200,
  shutdownGraceMs: 10_000,
};
