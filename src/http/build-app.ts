// Builds the Fastify application from ready dependencies; it never listens (the composition root does), so
// tests and benchmarks build the very same app.

import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { OnboardingService } from '../services/accounts/onboarding-service.js';
import type { SessionResolver } from '../services/accounts/sessions.js';
import type { WalletService } from '../services/accounts/wallet-service.js';
import type { BuilderService } from '../services/builder/builder-service.js';
import type { FeeEscrow } from '../services/builder/fee-escrow.js';
import type { Impersonation } from '../services/builder/impersonation.js';
import type { EventsService } from '../services/catalogue/events-service.js';
import type { MarketsService } from '../services/catalogue/markets-service.js';
import type { ExchangeCapabilities, ExchangesService } from '../services/exchanges-service.js';
import type { HealthService } from '../services/health-service.js';
import type { KeysAdminService } from '../services/keys-admin-service.js';
import type { ExecutionPriceService } from '../services/market-data/execution-price-service.js';
import type { MarketTargets } from '../services/market-data/market-target.js';
import type { OrderbookHistoryService } from '../services/market-data/orderbook-history-service.js';
import type { OrderbookService } from '../services/market-data/orderbook-service.js';
import type { PriceService } from '../services/market-data/price-service.js';
import type { TradesService } from '../services/market-data/trades-service.js';
import type { UserActivityService } from '../services/market-data/user-activity-service.js';
import type { ApprovalsService } from '../services/onchain/approvals-service.js';
import type { CtfService } from '../services/onchain/ctf-service.js';
import type { PingService } from '../services/ping-service.js';
import type { AccountService } from '../services/trading/account-service.js';
import type { OrdersService } from '../services/trading/orders-service.js';
import type { UsageService } from '../services/usage-service.js';
import type { WsUsageView } from '../services/ws-usage.js';
import type { AdmissionControl } from '../tenancy/admission/admission.js';
import type { ApiKeyService } from '../tenancy/api-keys.js';
import { servedCapabilities } from './capability-routes.js';
import { installAuthentication } from './plugins/authenticate.js';
import { installConsole } from './plugins/console.js';
import { installErrorHandling } from './plugins/error-handler.js';
import { installFiniteNumberGuard } from './plugins/finite-numbers.js';
import { clientErrorHandler, frameworkErrorHandler } from './plugins/framework-errors.js';
import { lazyChildLoggerFactory } from './plugins/lazy-child-logger.js';
import type { HttpMetrics } from './plugins/metrics.js';
import { installDocsUi, installOpenApi } from './plugins/openapi.js';
import { requestIdGenerator } from './plugins/request-id.js';
import { installShutdownGate, type ShutdownGate } from './plugins/shutdown-gate.js';
import { installWellFormedTextGuard } from './plugins/well-formed-text.js';
import { accountsRoutes } from './routes/accounts-routes.js';
import { builderRoutes } from './routes/builder-routes.js';
import { type CrossVenueServices, crossVenueRoutes } from './routes/crossvenue-routes.js';
import { exchangesRoutes } from './routes/exchanges-routes.js';
import { executionPriceRoutes } from './routes/execution-price-routes.js';
import { keysRoutes } from './routes/keys-routes.js';
import { marketsRoutes } from './routes/markets-routes.js';
import { onchainRoutes } from './routes/onchain-routes.js';
import { orderbookRoutes } from './routes/orderbook-routes.js';
import { pingRoutes } from './routes/ping-routes.js';
import { priceRoutes } from './routes/price-routes.js';
import { systemRoutes } from './routes/system-routes.js';
import { tradesRoutes } from './routes/trades-routes.js';
import { tradingRoutes } from './routes/trading-routes.js';
import { usageRoutes } from './routes/usage-routes.js';
import { userActivityRoutes } from './routes/user-activity-routes.js';
import { ErrorBody } from './schemas/common.js';

export interface AppDeps {
  version: string;
  logger: Logger;
  accessLog: boolean;
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  trustProxy: boolean;
  keys: ApiKeyService;
  admission: AdmissionControl;
  exchanges: ExchangesService;
  ping: PingService;
  health: HealthService;
  keysAdmin: KeysAdminService;
  usage: UsageService;
  markets: MarketsService;
  events: EventsService;
  targets: MarketTargets;
  orderbook: OrderbookService;
  executionPrice: ExecutionPriceService;
  /** One bet across exchanges: GET /orderbook/consolidated (wire contract §7). */
  crossVenue: CrossVenueServices;
  orderbookHistory: OrderbookHistoryService;
  prices: PriceService;
  trades: TradesService;
  userActivity: UserActivityService;
  orders: OrdersService;
  account: AccountService;
  metrics: HttpMetrics;
  /** The venue session of a private call: per-request credentials, else the customer's stored or managed ones. */
  sessions: SessionResolver;
  onboarding: OnboardingService;
  wallet: WalletService;
  /** The builder program: end-users, pool, escrow configuration (builder keys only). */
  builder: BuilderService;
  /** X-Builder-Customer-Id on the order endpoints. */
  impersonation: Impersonation;
  /** The deployed fee escrow; null while none is (orders carrying fee_auth are refused). */
  feeEscrow: FeeEscrow | null;
  /** GET/POST /approvals (polymarket, on chain). */
  approvals: ApprovalsService;
  /** POST /polymarket/ctf/redeem, /merge, /split. */
  ctf: CtfService;
  /** The WebSocket gateway (GET /ws and /api/v1/ws), registered on the root app; absent: not served. */
  websocket?: { register(app: FastifyInstance): void };
  /** The gateway's usage meter (GET /ws/usage); absent with no gateway. */
  wsUsage?: WsUsageView;
  /** The MCP endpoint (`/mcp`, src/mcp/), registered on the root app beside /api/v1; absent: not served. */
  mcp?: { register(app: FastifyInstance): void };
}

export const API_PREFIX = '/api/v1';

export interface BuiltApp {
  app: FastifyInstance;
  shutdown: ShutdownGate;
}

export async function buildApp(deps: AppDeps): Promise<BuiltApp> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    childLoggerFactory: lazyChildLoggerFactory,
    logController: new LogController({
      disableRequestLogging: !deps.accessLog,
      requestIdLogLabel: 'request_id',
    }),
    bodyLimit: deps.bodyLimitBytes,
    requestTimeout: deps.requestTimeoutMs,
    trustProxy: deps.trustProxy,
    // Our own ids; a client's X-Request-Id only behind a trusted proxy (plugins/request-id.ts).
    requestIdHeader: false,
    genReqId: requestIdGenerator(deps.trustProxy),
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Our shutdown gate answers 503 in the contract's error shape instead.
    return503OnClosing: false,
    ajv: {
      customOptions: { coerceTypes: 'array', allErrors: true, removeAdditional: false, useDefaults: true },
    },
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('impersonated', null);
  app.addSchema(ErrorBody);
  installErrorHandling(app);
  installFiniteNumberGuard(app);
  installWellFormedTextGuard(app);
  const shutdown = installShutdownGate(app);
  deps.metrics.install(app);
  await installOpenApi(app, deps.version);
  systemRoutes(app, deps.health, deps.metrics);

  let matrix: ExchangeCapabilities[] = [];
  await app.register(
    async (api) => {
      installAuthentication(api, {
        keys: deps.keys,
        admission: deps.admission,
        impersonation: deps.impersonation,
      });
      exchangesRoutes(api, () => matrix);
      pingRoutes(api, deps.ping);
      usageRoutes(api, deps.usage, deps.wsUsage);
      keysRoutes(api, deps.keysAdmin);
      marketsRoutes(api, deps.markets, deps.events);
      orderbookRoutes(api, deps.orderbook, deps.orderbookHistory);
      executionPriceRoutes(api, deps.executionPrice);
      crossVenueRoutes(api, deps.crossVenue);
      priceRoutes(api, deps.prices);
      tradesRoutes(api, deps.trades);
      userActivityRoutes(api, deps.userActivity);
      tradingRoutes(api, deps.orders, deps.account, deps.feeEscrow);
      accountsRoutes(api, deps.onboarding, deps.wallet);
      builderRoutes(api, deps.builder);
      onchainRoutes(api, deps.approvals, deps.ctf);
    },
    { prefix: API_PREFIX },
  );

  deps.websocket?.register(app);
  deps.mcp?.register(app);
  await installDocsUi(app);
  // The web console: static files that call the public API above like any client.
  await installConsole(app);
  // Flags follow the routes really registered, so GET /exchanges cannot promise a route this build lacks.
  app.addHook('onReady', async () => {
    matrix = deps.exchanges.matrix(servedCapabilities(app));
  });
  return { app, shutdown };
}
