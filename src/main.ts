// The composition root: builds every dependency from a Config, wires them together, and owns start and stop.
// Nothing else constructs infrastructure, so tests get the real thing by calling createRuntime with test config.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Hex } from 'viem';
import { connectChain, type OnChain } from './chain/chain.js';
import { FeeEscrowContract } from './chain/fee-escrow/fee-escrow-contract.js';
import { POLYGON_V2_CONTRACTS, type PolymarketContracts } from './chain/polymarket-contracts.js';
import type { Config } from './config/schema.js';
import type { BackgroundJob } from './domain/background-job.js';
import { loadLexicon } from './domain/matching/lexicon.js';
import { type BuiltApp, buildApp } from './http/build-app.js';
import { HttpMetrics } from './http/plugins/metrics.js';
import { BookRecorder } from './ingestion/book-recorder.js';
import { BookRecorderJob } from './ingestion/book-recorder-job.js';
import { CatalogSync } from './ingestion/catalog-sync.js';
import { CatalogSyncJob } from './ingestion/catalog-sync-job.js';
import { McpEndpoint } from './mcp/http-endpoint.js';
import { ArbitrageScanner } from './realtime/arbitrage-hub.js';
import { BookHub } from './realtime/book-hub.js';
import { ClusterBooks } from './realtime/cluster-feed.js';
import { ConnectionSeats } from './realtime/connection-seats.js';
import { FillFeeds } from './realtime/fill-feeds.js';
import { WebSocketGateway } from './realtime/gateway.js';
import type { ReplayPacer } from './realtime/replay-pacing.js';
import { type RemoteSubscriptions, SubscriptionQuota } from './realtime/subscription-quota.js';
import { WalletHub } from './realtime/wallet-hub.js';
import { OnboardingService } from './services/accounts/onboarding-service.js';
import { WalletService } from './services/accounts/wallet-service.js';
import { BuilderService } from './services/builder/builder-service.js';
import type { FeeEscrow } from './services/builder/fee-escrow.js';
import { FeeEscrowService } from './services/builder/fee-escrow-service.js';
import { FeeSettlementJob } from './services/builder/fee-settlement-job.js';
import { Impersonation } from './services/builder/impersonation.js';
import { KeyChanges } from './services/builder/key-changes.js';
import { EventsService } from './services/catalogue/events-service.js';
import { MarketsService } from './services/catalogue/markets-service.js';
import { ArbitrageExecutionService } from './services/crossvenue/arbitrage-execution-service.js';
import { ArbitrageService } from './services/crossvenue/arbitrage-service.js';
import { ConsolidatedBookService } from './services/crossvenue/consolidated-book-service.js';
import { RouteLegs } from './services/crossvenue/route-legs.js';
import { RouteOrdersService } from './services/crossvenue/route-orders-service.js';
import { RouteQuoteService } from './services/crossvenue/route-quote-service.js';
import { Twins } from './services/crossvenue/twins.js';
import { ExchangesService } from './services/exchanges-service.js';
import { HealthService, type ReplayHealth } from './services/health-service.js';
import { KeysAdminService } from './services/keys-admin-service.js';
import { ExecutionPriceService } from './services/market-data/execution-price-service.js';
import { LiveBooks } from './services/market-data/live-books.js';
import { type MarketTarget, MarketTargets } from './services/market-data/market-target.js';
import { OrderbookHistoryService } from './services/market-data/orderbook-history-service.js';
import { OrderbookService } from './services/market-data/orderbook-service.js';
import { PriceService } from './services/market-data/price-service.js';
import { TradesService } from './services/market-data/trades-service.js';
import { UserActivityService } from './services/market-data/user-activity-service.js';
import { MatchingService } from './services/matching/matching-service.js';
import { ApprovalsService } from './services/onchain/approvals-service.js';
import { CtfService } from './services/onchain/ctf-service.js';
import { PingService } from './services/ping-service.js';
import { AccountService } from './services/trading/account-service.js';
import { OrderReconcilerJob } from './services/trading/order-reconciler-job.js';
import { OrdersService } from './services/trading/orders-service.js';
import { UsageService } from './services/usage-service.js';
import { WsUsage, type WsUsageView } from './services/ws-usage.js';
import { ClusterWsUsage } from './services/ws-usage-cluster.js';
import { ApiKeysRepo } from './store/api-keys-repo.js';
import { BookSnapshotsRepo } from './store/book-snapshots-repo.js';
import { BuilderRepo } from './store/builder-repo.js';
import { CredentialsRepo } from './store/credentials-repo.js';
import { openStore, type Store } from './store/database.js';
import { EventsRepo } from './store/events-repo.js';
import { FeeEscrowsRepo } from './store/fee-escrows-repo.js';
import { LinksRepo } from './store/links-repo.js';
import { MarketsRepo } from './store/markets-repo.js';
import { MatchStateRepo } from './store/match-state-repo.js';
import { ORDER_INTENTS_FILE, OrderIntentLog } from './store/order-intent-log.js';
import { OrderJournalRepo } from './store/order-journal-repo.js';
import { RecordedTradesRepo } from './store/recorded-trades-repo.js';
import { RouteOrdersRepo } from './store/route-orders-repo.js';
import { ServerLock } from './store/server-lock.js';
import { SyncStateRepo } from './store/sync-state-repo.js';
import { UsageRepo } from './store/usage-repo.js';
import type { AdmissionControl } from './tenancy/admission/admission.js';
import { MemoryAdmission } from './tenancy/admission/memory-admission.js';
import { RedisAdmission } from './tenancy/admission/redis-admission.js';
import { ApiKeyService } from './tenancy/api-keys.js';
import { UsageFlushJob } from './tenancy/usage-flush-job.js';
import { CredentialsStore } from './vault/credentials-store.js';
import { EndUserKeys } from './vault/end-user-keys.js';
import { loadKeyring } from './vault/keyring-source.js';
import { REDACT_PATHS, REDACTED, redactUrl } from './vault/redaction.js';
import { SessionResolver } from './vault/session-resolver.js';
import type { VenueAdapter } from './venues/port.js';
import { VenueRegistry } from './venues/registry.js';

export interface RuntimeOptions {
  /** Where JSON logs go; standard error by default so standard output stays for the CLI's own lines. */
  logDestination?: DestinationStream;
  venues?: readonly VenueAdapter[];
  /** PostgreSQL schema (tests isolate themselves in one). */
  pgSchema?: string;
  /** Redis key namespace (tests isolate themselves in one). */
  redisNamespace?: string;
  /** Clock of the in-process rate limiter (Redis uses its own); tests hold it still or move it themselves. */
  admissionClock?: () => number;
  /** Runs after the server and jobs stopped, before the database closes (the sandbox stops its simulators). */
  onStop?: () => Promise<void>;
  /**
   * The chain approvals and CTF operations act on (the sandbox passes its local one); absent, `config.chain.rpcUrl`
   * decides, and null means none (those routes answer 501).
   */
  chain?: OnChain | null;
  /**
   * The deployed FeeEscrow on `chain` and the operator key that pulls and settles fees (the sandbox deploys one and
   * passes it); absent or null, orders carrying fee_auth are refused (501).
   */
  feeEscrow?: { address: Hex; operatorKey: Hex } | null;
  /**
   * SQLite mode: the data directory's lock, taken already by the caller (the sandbox, before it writes its files
   * there); absent, it is taken here. Either way the runtime releases it when it stops or fails to start.
   */
  lock?: ServerLock | null;
  /**
   * A replay (`omnibook replay`, src/replay/): the recorded clock every answer is dated by, the pacer of `--fast`
   * WebSocket readers, and what /healthz says of the replay. Absent, the wall clock.
   */
  replay?: { clock: () => number; pacer: ReplayPacer | null; describe: () => ReplayHealth };
}

/** The configured chain: Polygon's RPC and Polymarket's V2 contracts with any overrides; null without an RPC URL. */
function configuredChain(config: Config): OnChain | null {
  if (!config.chain.enabled || !config.chain.rpcUrl) return null;
  return connectChain({
    rpcUrl: config.chain.rpcUrl,
    chainId: config.chain.chainId,
    contracts: { ...POLYGON_V2_CONTRACTS, ...(config.chain.contracts as Partial<PolymarketContracts>) },
    timeoutMs: config.venues.timeoutMs,
  });
}

/** The FeeEscrow of config.builder.escrow, when it is complete and on the runtime's chain; null otherwise. */
function configuredEscrow(config: Config, chain: OnChain | null): { address: Hex; operatorKey: Hex } | null {
  const escrow = config.builder.escrow;
  if (!escrow || !chain) return null;
  if (escrow.chainId !== chain.chain.id) {
    throw new Error(
      `builder.escrow.chainId ${escrow.chainId} is not the configured chain's (${chain.chain.id})`,
    );
  }
  if (!escrow.operatorKey) return null;
  return { address: escrow.address as Hex, operatorKey: escrow.operatorKey as Hex };
}

export interface Runtime {
  readonly config: Config;
  readonly logger: Logger;
  readonly store: Store;
  readonly keys: ApiKeyService;
  readonly app: BuiltApp['app'];
  /** Walks the venues' catalogues into the store; `runAll()` runs (or joins) a pass on demand. */
  readonly catalogSync: CatalogSync;
  /** Links markets across exchanges; the catalogue sync runs it at the end of every pass. */
  readonly matching: MatchingService;
  /** The background sync started by listen(); null when config.catalogue.sync is off. */
  readonly catalogSyncJob: CatalogSyncJob | null;
  /** Books followed on the venues' streams (the recorder holds them; GET /orderbook answers from them). */
  readonly liveBooks: LiveBooks;
  /**
   * Records book snapshots for GET /orderbook history; null when config.recorder.enabled is off. The WebSocket
   * gateway records each book a client subscribes to with `recordWhileHeld(target)`.
   */
  readonly bookRecorder: BookRecorder | null;
  /** Records the configured books and the top N (started by listen()); null when the recorder is off. */
  readonly bookRecorderJob: BookRecorderJob | null;
  /** Settles escrowed builder fees in the background (started by listen()); null while no fee escrow is wired in. */
  readonly feeSettlementJob: FeeSettlementJob | null;
  /**
   * The order journal. On SQLite it holds new rows and acceptances behind for up to BEHIND_MS: whoever reads the
   * table past it (tests) calls `flush()` first.
   */
  readonly orderJournal: OrderJournalRepo;
  /** Listens on the configured host and port; resolves to the base URL. */
  listen(): Promise<string>;
  /** Stops accepting, lets in-flight requests finish, stops workers, flushes counters, closes connections. */
  stop(): Promise<void>;
}

/** How long a list total (and a venue's "no such market") is reused: counting a million rows is not free. */
const CATALOGUE_TOTALS_TTL_MS = 30_000;
/**
 * List and search pages kept in memory (100–150 KiB a page of 100, so about a thousand pages): a write through this
 * node drops them at once; another node's writes (in a cluster only the sync leader and on-demand lookups write)
 * once this node has read the store's catalogue version, at most every `checkMs`. At 64 MiB the bench's 440 searches, sent
 * in a cycle, overflowed it and least-recently-used eviction then kept none of them.
 */
const CATALOGUE_PAGE_CACHE = { maxBytes: 128 * 2 ** 20, checkMs: 5_000 };

/**
 * An order the exchange still has no record of this long after it was sent is reported rejected; before that its
 * absence proves nothing (the request may still be on its way) and it stays pending.
 */
const ORDER_ABSENT_AFTER_MS = 15 * 60_000;
/** How often the order reconciler looks for unsettled journal rows. */
const ORDER_RECONCILE_INTERVAL_MS = 5_000;
/** Items at most in a wallet subscription's first message (the newest of the history window). */
const WALLET_SNAPSHOT_ITEMS = 50;
/** How long a balance read is reused for the same customer and credentials (refresh=true reads again). */
const BALANCE_TTL_MS = 5_000;

/** How long after the listener closes idle keep-alive sockets start being closed. */
const IDLE_SWEEP_DELAY_MS = 250;

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'omnibook' },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      // Only what an operator needs from a request; never headers or bodies, and no secret-looking query values.
      serializers: {
        req: (req: { method?: string; url?: string; id?: string }) => ({
          method: req.method,
          url: req.url === undefined ? undefined : redactUrl(req.url),
        }),
        res: (res: { statusCode?: number }) => ({ status: res.statusCode }),
        err: pino.stdSerializers.err,
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ fd: 2, sync: false }),
  );
}

export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  // What answers are dated by: the wall clock, or a replay's recorded one.
  const clock = options.replay?.clock ?? Date.now;
  const clockS = () => Math.floor(clock() / 1000);
  const logger = createLogger(config.logLevel, options.logDestination);
  // SQLite mode: this process owns the data directory while it runs (server-lock.ts); taken before anything opens.
  const lock = options.lock ?? ServerLock.forStore(config);
  let store: Store;
  try {
    store = openStore({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
    });
  } catch (error) {
    lock?.release();
    throw error;
  }
  const closers: Array<() => Promise<unknown>> = [() => store.close()];
  store.walCheckpointer?.on('failed', (err) =>
    logger.error({ err }, 'WAL checkpointer failed: checkpoints run on the event loop again'),
  );
  try {
    const applied = await store.migrate();
    if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');

    const usageRepo = new UsageRepo(store.db);
    const redisPrefix = options.redisNamespace ?? config.redisPrefix;
    let admission: AdmissionControl;
    let redis: Redis | null = null;
    if (config.redisUrl) {
      const client = new Redis(config.redisUrl, {
        lazyConnect: true,
        maxRetriesPerRequest: 2,
        connectTimeout: 5_000,
      });
      client.on('error', (err) => logger.warn({ err }, 'redis error'));
      await client.connect();
      closers.unshift(() => client.quit());
      redis = client;
      admission = new RedisAdmission(client, usageRepo, redisPrefix);
    } else {
      admission = new MemoryAdmission(usageRepo, options.admissionClock);
    }

    const apiKeysRepo = new ApiKeysRepo(store.db);
    const keys = new ApiKeyService(apiKeysRepo, config.auth.keyCacheTtlMs);
    if (config.adminKey) await keys.ensure(config.adminKey, { name: 'OMNIBOOK_ADMIN_KEY', tier: 'admin' });

    // Before any venue: a master key that cannot be read stops the start, not the first onboarding.
    const keyring = loadKeyring({
      masterKey: config.vault.masterKey,
      previousMasterKeys: config.vault.previousMasterKeys,
      keyFile: join(config.dataDir, 'master.key'),
    });
    const credentials = new CredentialsStore(new CredentialsRepo(store.db, store.sqliteReader), keyring);

    if (config.databaseUrl && config.vault.masterKey === undefined) {
      logger.warn(
        "the master key comes from this node's key file: every node sharing this database needs the same key (set OMNIBOOK_MASTER_KEY)",
      );
    }

    const circuitLog = logger.child({ component: 'circuit-breaker' });
    const registry = new VenueRegistry(
      options.venues ?? [],
      config.venues.circuitBreaker.enabled
        ? {
            policy: config.venues.circuitBreaker,
            onTransition: (exchange, from, to) =>
              (to === 'open' ? circuitLog.warn : circuitLog.info).call(
                circuitLog,
                { exchange, from, to },
                `${exchange} circuit ${to}`,
              ),
          }
        : undefined,
    );
    const exchanges = new ExchangesService(registry, { recordsBooks: config.recorder.enabled });
    const marketsRepo = new MarketsRepo(store.db, store.dialect, store.sqliteReader, store.pgReader);
    const eventsRepo = new EventsRepo(store.db);

    const usageJob = new UsageFlushJob(admission, config.usage.flushIntervalMs);
    const syncState = new SyncStateRepo(store.db);
    const links = new LinksRepo(store.db);
    loadLexicon(config.matching.lexiconPaths);
    const matching = new MatchingService({
      minTier: config.matching.minTier,
      markets: marketsRepo,
      links,
      state: new MatchStateRepo(store.db),
      logger: logger.child({ component: 'matching' }),
    });
    const catalogSync = new CatalogSync({
      observer: matching,
      venues: () => registry.list(),
      markets: marketsRepo,
      events: eventsRepo,
      state: syncState,
      logger: logger.child({ component: 'catalogue-sync' }),
    });
    const catalogSyncJob = config.catalogue.sync
      ? new CatalogSyncJob({
          sync: catalogSync,
          state: syncState,
          logger: logger.child({ component: 'catalogue-sync' }),
          refreshIntervalMs: config.catalogue.refreshIntervalMs,
          leaseTtlMs: config.catalogue.leaseTtlMs,
        })
      : null;
    const markets = new MarketsService(marketsRepo, eventsRepo, links, exchanges, {
      totalsTtlMs: CATALOGUE_TOTALS_TTL_MS,
      pageCache: CATALOGUE_PAGE_CACHE,
      missTtlMs: CATALOGUE_TOTALS_TTL_MS,
      venueTimeoutMs: config.venues.timeoutMs,
      observer: matching,
    });
    const targets = new MarketTargets(markets, exchanges);
    const liveBooks = new LiveBooks(logger.child({ component: 'live-books' }));
    const snapshotsRepo = new BookSnapshotsRepo(store.db);
    const recordedTrades = new RecordedTradesRepo(store.db);
    const bookRecorder = config.recorder.enabled
      ? new BookRecorder({
          books: liveBooks,
          sink: snapshotsRepo,
          trades: recordedTrades,
          intervalMs: config.recorder.intervalMs,
          logger: logger.child({ component: 'book-recorder' }),
        })
      : null;
    const bookRecorderJob = bookRecorder
      ? new BookRecorderJob({
          recorder: bookRecorder,
          targets,
          topMarkets: (exchange, n) => marketsRepo.topByVolume(exchange, n),
          exchanges: () =>
            registry
              .list()
              .filter((v) => exchanges.offers(v, 'fetch_orderbook_history'))
              .map((v) => v.descriptor.id),
          // Book states and trades share the retention rule: whole UTC days older than retentionDays.
          dropBefore: async (day) =>
            (await snapshotsRepo.dropBefore(day)) + (await recordedTrades.dropBefore(day)),
          books: config.recorder.books,
          topN: config.recorder.topN,
          refreshIntervalMs: config.recorder.refreshIntervalMs,
          retentionDays: config.recorder.retentionDays,
          logger: logger.child({ component: 'book-recorder' }),
          ...(catalogSyncJob ? { catalogueReady: () => catalogSyncJob.whenPasses(1) } : {}),
        })
      : null;
    // One resolver for every private route: per-request credentials, else the stored or managed ones.
    const sessions = new SessionResolver(credentials);
    // SQLite: rows are logged before their orders are sent and committed behind (order-intent-log.ts).
    const intents = store.sqliteWriter ? new OrderIntentLog(join(config.dataDir, ORDER_INTENTS_FILE)) : null;
    if (intents) closers.push(async () => intents.close());
    const journal = new OrderJournalRepo(store.db, store.sqliteWriter, intents);
    const orders = new OrdersService({
      exchanges,
      targets,
      sessions,
      journal,
      timeoutMs: config.venues.timeoutMs,
      absentAfterMs: ORDER_ABSENT_AFTER_MS,
      // Three deadlines, as for a row never marked sent: the request was answered or abandoned long before.
      immediateAbsentAfterMs: config.venues.timeoutMs * 3,
      sendDeadlineMs: config.venues.timeoutMs * 3,
      ...(options.replay ? { clock } : {}),
    });
    const orderReconciler = new OrderReconcilerJob({
      orders,
      journal,
      exchanges,
      logger: logger.child({ component: 'order-reconciler' }),
      intervalMs: ORDER_RECONCILE_INTERVAL_MS,
      graceMs: config.venues.timeoutMs * 3,
      timeoutMs: config.venues.timeoutMs,
    });
    const jobs: BackgroundJob[] = [usageJob, orderReconciler];
    if (catalogSyncJob) jobs.push(catalogSyncJob);
    if (bookRecorderJob) jobs.push(bookRecorderJob);
    const metrics = new HttpMetrics(
      () => jobs,
      () => registry.circuits(),
      registry.drift,
    );
    const health = new HealthService({
      mode: config.mode,
      dialect: store.dialect,
      pingDatabase: () => store.ping(),
      rateLimiterBackend: admission.backend,
      jobs: () => jobs,
      registry,
      startedAt: Date.now(),
      ...(catalogSyncJob ? { catalogue: () => catalogSyncJob.catalogue() } : {}),
      ...(options.replay ? { replay: options.replay.describe } : {}),
    });

    // Several nodes on one Redis: usage totals are the cluster's, and each book has one upstream feed among them.
    const nodeId = randomUUID();
    const wsUsage = new WsUsage();
    const recordWhileHeld = bookRecorder
      ? (target: MarketTarget) => bookRecorder.recordWhileHeld(target)
      : undefined;
    let wsUsageView: WsUsageView = wsUsage;
    let remoteSubscriptions: RemoteSubscriptions | null = null;
    let clusterBooks: ClusterBooks | null = null;
    if (redis) {
      const clusterUsage = new ClusterWsUsage({
        redis,
        local: wsUsage,
        prefix: redisPrefix,
        nodeId,
        flushMs: config.websocket.usageFlushMs,
        logger: logger.child({ component: 'ws-usage' }),
      });
      jobs.push(clusterUsage);
      wsUsageView = clusterUsage;
      remoteSubscriptions = clusterUsage;
      const subscriber = redis.duplicate({ lazyConnect: true });
      subscriber.on('error', (err) => logger.warn({ err }, 'redis error (book channels)'));
      await subscriber.connect();
      closers.unshift(() => subscriber.quit());
      clusterBooks = new ClusterBooks({
        redis,
        subscriber,
        books: liveBooks,
        prefix: redisPrefix,
        nodeId,
        leaseMs: config.websocket.feedLeaseMs,
        logger: logger.child({ component: 'shared-books' }),
        ...(recordWhileHeld ? { recordWhileHeld } : {}),
      });
    }
    const orderbook = new OrderbookService(targets, clusterBooks ?? liveBooks, config.venues.timeoutMs);
    const twins = new Twins(targets, links);
    const executionPrice = new ExecutionPriceService(targets, orderbook, config.venues.timeoutMs);
    const arbitrage = new ArbitrageService(links, targets, orderbook, executionPrice, exchanges);

    // The builder program. A deactivated end-user's key stops working on every node at once (KeyChanges).
    let keyChangeChannel: { publisher: Redis; subscriber: Redis; channel: string } | null = null;
    if (redis) {
      const subscriber = redis.duplicate({ lazyConnect: true });
      subscriber.on('error', (err) => logger.warn({ err }, 'redis error (key changes)'));
      await subscriber.connect();
      closers.unshift(() => subscriber.quit());
      keyChangeChannel = { publisher: redis, subscriber, channel: `${redisPrefix}:key-changes` };
    }
    const keyChanges = new KeyChanges(keyChangeChannel, logger.child({ component: 'key-changes' }));
    await keyChanges.start();
    const onboarding = new OnboardingService(exchanges, credentials, config.venues.timeoutMs);
    const runtimeChain = options.chain === undefined ? configuredChain(config) : options.chain;
    // Fee escrow where a FeeEscrow is deployed and wired in (the sandbox); elsewhere fee_auth is refused (501).
    let feeEscrow: FeeEscrow | null = null;
    let feeSettlementJob: FeeSettlementJob | null = null;
    const escrowAt = options.feeEscrow ?? configuredEscrow(config, runtimeChain);
    if (escrowAt && runtimeChain) {
      const contract = new FeeEscrowContract(
        runtimeChain,
        escrowAt.address,
        escrowAt.operatorKey,
        config.chain.receiptTimeoutMs,
      );
      const fees = new FeeEscrowsRepo(store.db);
      const escrowService: FeeEscrowService = new FeeEscrowService({
        contract,
        treasury: await contract.treasury(),
        journal,
        fees,
        config: config.builder,
        tierOf: (principal) => builder.tierOf(principal),
      });
      feeEscrow = escrowService;
      feeSettlementJob = new FeeSettlementJob({
        escrow: escrowService,
        fees,
        journal,
        orders,
        exchanges,
        leases: syncState,
        logger: logger.child({ component: 'fee-settlement' }),
        intervalMs: config.builder.feeSettlement.intervalMs,
        leaseTtlMs: config.builder.feeSettlement.leaseTtlMs,
        graceMs: config.venues.timeoutMs * 3,
        timeoutMs: config.venues.timeoutMs,
      });
      jobs.push(feeSettlementJob);
    }
    const builder = new BuilderService({
      repo: new BuilderRepo(store.db),
      apiKeys: apiKeysRepo,
      keys,
      endUserKeys: new EndUserKeys(keyring),
      credentials,
      onboarding,
      config: config.builder,
      escrow: feeEscrow,
      changed: () => keyChanges.changed(),
    });
    const impersonation = new Impersonation(builder, apiKeysRepo, config.auth.keyCacheTtlMs);
    keyChanges.onChange(() => keys.forget());
    keyChanges.onChange(() => impersonation.forget());

    const websocket = new WebSocketGateway({
      keys,
      usage: wsUsage,
      quota: new SubscriptionQuota(wsUsage, remoteSubscriptions, logger.child({ component: 'websocket' })),
      targets,
      exchanges,
      wallets: new WalletHub({
        pollMs: config.websocket.walletPollMs,
        historyMs: config.websocket.walletHistoryMs,
        overlapMs: config.websocket.walletOverlapMs,
        recentItems: WALLET_SNAPSHOT_ITEMS,
        timeoutMs: config.venues.timeoutMs,
        maxWatchers: config.websocket.maxWalletWatchers,
        logger: logger.child({ component: 'wallet-watch' }),
      }),
      fills: new FillFeeds(credentials, logger.child({ component: 'fill-feeds' })),
      hub: new BookHub(clusterBooks ?? liveBooks, {
        staleAfterMs: config.websocket.heartbeatMs * 3,
        maxPolledBooks: config.websocket.maxPolledBooks,
        // With the shared feed the recorder follows the book where it is fed (ClusterBooks), not on every node.
        ...(recordWhileHeld && !clusterBooks ? { recordWhileHeld } : {}),
        now: clock,
      }),
      ...(options.replay?.pacer ? { pacer: options.replay.pacer } : {}),
      logger: logger.child({ component: 'websocket' }),
      twins,
      arbitrage: { service: arbitrage, scanner: new ArbitrageScanner() },
      heartbeatMs: config.websocket.heartbeatMs,
      // A revocation nobody announces (the CLI) reaches the sockets about when REST refuses the key; a cache of
      // 0 ms still reads the open connections' keys back only a few times a second.
      revocationSweepMs: Math.max(config.auth.keyCacheTtlMs, 250),
      seats: new ConnectionSeats({
        maxUnauthenticated: config.websocket.maxUnauthenticated,
        perCustomer: config.websocket.maxConnectionsPerCustomer,
      }),
      limits: {
        authTimeoutMs: config.websocket.authTimeoutMs,
        controlPerSecond: 3,
        floodCloseAfter: config.websocket.floodCloseAfter,
        // Three a second are admitted; more waiting than this means handling has stalled (a slow venue lookup).
        maxPending: 16,
        slowBytes: 1 << 20,
        hopelessBytes: 8 << 20,
        defaultDepth: 50,
      },
    });

    // A deactivated end-user's open WebSockets end at once, on whichever node holds them.
    keyChanges.onChange(() => {
      websocket.dropRevoked().catch((err: unknown) => {
        logger.warn(
          { err },
          'closing the WebSockets of revoked keys failed; they end at their next reconnect',
        );
      });
    });

    const onchain = {
      exchanges,
      sessions,
      chain: runtimeChain,
      timeoutMs: config.venues.timeoutMs,
      receiptTimeoutMs: config.chain.receiptTimeoutMs,
    };
    const routeQuote = new RouteQuoteService(twins, orderbook, executionPrice, exchanges, sessions);
    const routeLegs = new RouteLegs(orders, journal, exchanges, sessions, config.venues.timeoutMs);
    const routeOrdersRepo = new RouteOrdersRepo(store.db);
    const mcp = config.mcp.enabled
      ? new McpEndpoint({
          version: VERSION,
          keys,
          admission,
          limits: {
            maxSessions: config.mcp.maxSessions,
            maxSessionsPerKey: config.mcp.maxSessionsPerKey,
            idleMs: config.mcp.sessionIdleMs,
          },
          bodyLimitBytes: config.mcp.bodyLimitBytes,
        })
      : undefined;
    const { app, shutdown } = await buildApp({
      version: VERSION,
      logger,
      accessLog: config.accessLog,
      bodyLimitBytes: config.http.bodyLimitBytes,
      requestTimeoutMs: config.http.requestTimeoutMs,
      trustProxy: config.http.trustProxy,
      keys,
      admission,
      exchanges,
      ping: new PingService(
        registry,
        exchanges,
        config.venues.timeoutMs,
        sessions,
        options.replay ? clock : undefined,
      ),
      health,
      // A key revoked through the API closes its WebSockets at once, here and (with Redis) on every node.
      keysAdmin: new KeysAdminService(keys, () => keyChanges.changed()),
      usage: new UsageService(admission, wsUsageView),
      wsUsage: wsUsageView,
      markets,
      events: new EventsService(eventsRepo, marketsRepo, links, exchanges, CATALOGUE_TOTALS_TTL_MS),
      targets,
      orderbook,
      executionPrice,
      crossVenue: {
        consolidated: new ConsolidatedBookService(twins, orderbook, executionPrice),
        routeQuote,
        arbitrage,
        routeOrders: new RouteOrdersService({
          quotes: routeQuote,
          legs: routeLegs,
          repo: routeOrdersRepo,
          exchanges,
          sessions,
          ...(options.replay ? { clock } : {}),
        }),
        arbitrageExecution: new ArbitrageExecutionService({
          targets,
          links,
          orderbook,
          fees: executionPrice,
          legs: routeLegs,
          repo: routeOrdersRepo,
          sessions,
          ...(options.replay ? { clock } : {}),
        }),
      },
      orderbookHistory: new OrderbookHistoryService(targets, snapshotsRepo, config.recorder.enabled, clockS),
      prices: new PriceService(targets, config.venues.timeoutMs, clockS),
      trades: new TradesService(targets, config.venues.timeoutMs, clockS),
      userActivity: new UserActivityService(registry, exchanges, config.venues.timeoutMs),
      orders,
      account: new AccountService({
        exchanges,
        sessions,
        timeoutMs: config.venues.timeoutMs,
        // A replay's paper balance changes with each step and costs nothing to read: a cached one would depend on
        // how fast the replay runs.
        balanceTtlMs: options.replay ? 0 : BALANCE_TTL_MS,
      }),
      metrics,
      sessions,
      onboarding,
      wallet: new WalletService(credentials),
      builder,
      impersonation,
      feeEscrow,
      approvals: new ApprovalsService(onchain),
      ctf: new CtfService(onchain),
      websocket,
      ...(mcp ? { mcp } : {}),
    });

    let stopping: Promise<void> | null = null;
    return {
      config,
      logger,
      store,
      keys,
      app,
      catalogSync,
      matching,
      catalogSyncJob,
      liveBooks,
      bookRecorder,
      bookRecorderJob,
      feeSettlementJob,
      orderJournal: journal,
      async listen() {
        await app.listen({ host: config.host, port: config.port });
        for (const job of jobs) job.start();
        const address = app.server.address();
        const port = typeof address === 'object' && address ? address.port : config.port;
        const host = config.host.includes(':') ? `[${config.host}]` : config.host;
        return `http://${host}:${port}`;
      },
      stop() {
        stopping ??= (async () => {
          shutdown.begin();
          // The catalogue sync writes in synchronous batches: stopping it first keeps the event loop free to read
          // the requests that arrive while the listener closes.
          const syncStopped = catalogSyncJob?.stop();
          // A short drain lets load balancers see /healthz fail and stop sending before the listener closes.
          if (config.shutdownDrainMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDrainMs));
          await syncStopped;
          // Keep-alive sockets that finish a response after close began would otherwise hold close() open. The
          // sweep starts late so a connection accepted just now has its request read, not closed as "idle".
          let sweeper: NodeJS.Timeout | undefined;
          const sweepStart = setTimeout(() => {
            sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
          }, IDLE_SWEEP_DELAY_MS);
          try {
            await app.close();
          } finally {
            clearTimeout(sweepStart);
            clearInterval(sweeper);
          }

          await mcp?.close();
          for (const job of jobs) await job.stop();
          // Updates the order journal wrote behind are written before the store closes.
          await journal.flush().catch((err) => logger.warn({ err }, 'writing the order journal failed'));
          // Shared feeds are handed over (leases released) before this node's own streams end.
          await clusterBooks?.close().catch((err) => logger.warn({ err }, 'releasing shared books failed'));
          // Book streams end before the adapters that carry them close.
          orderbook.close();
          await liveBooks.close().catch((err) => logger.warn({ err }, 'closing book streams failed'));
          await Promise.allSettled(registry.list().map((venue) => venue.close?.()));
          await options.onStop?.().catch((err) => logger.warn({ err }, 'stop hook failed'));
          await admission.close().catch((err) => logger.error({ err }, 'final usage flush failed'));
          for (const close of closers) await close().catch((err) => logger.warn({ err }, 'close failed'));
          // Last of all, once the journal and its intent log are closed.
          lock?.release();
          logger.flush();
        })();
        return stopping;
      },
    };
  } catch (error) {
    for (const close of closers) await close().catch(() => undefined);
    lock?.release();
    throw error;
  }
}
