// Public entry of the Polymarket simulator: builds the catalogue from the shared world and serves Gamma, the CLOB
// (REST), the Data API and the CLOB WebSocket host on separate loopback listeners, each also serving /__sim/*.
// Imports nothing from src/.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { SimClock, type SimControl, SimControlInputError } from '../shared/control.js';
import { SimFaults } from '../shared/faults.js';
import { SimRequestLog } from '../shared/request-log.js';
import { createWorld } from '../shared/world.js';
import { Accounts } from './accounts.js';
import { Catalogue, HOUSE_ADDRESS } from './catalogue.js';
import { SimChain, type SimChainOptions } from './chain.js';
import { listCatalogueOnChain, resolveCatalogueMarket } from './chain-markets.js';
import { privateClobRoutes } from './clob-private.js';
import { publicClobRoutes } from './clob-public.js';
import type { PmContext } from './context.js';
import { dataRoutes } from './data-routes.js';
import { Exchange } from './exchange.js';
import { gammaRoutes } from './gamma-routes.js';
import { listener } from './http-util.js';
import { type BuilderCreds, createDepositWallet, relayerRoutes } from './relayer-routes.js';
import { Streams } from './streams.js';
import { settleOnChain } from './trade-chain.js';
import { WalletRegistry } from './wallet-registry.js';

export interface PolymarketSimOptions {
  /** Passed to createWorld; size is the number of propositions. */
  seed?: number;
  size?: number;
  now?: Date;
  /**
   * Paper collateral (pUSD base units, 6 decimals) given to any wallet the first time it authenticates (L1) — how
   * wallets created by our managed onboarding get paper money in the sandbox. Default "0".
   */
  newWalletBalance?: string;
  /** HMAC/L1 timestamp tolerance in seconds against the wall clock (default 300). */
  authWindowSeconds?: number;
  /** WebSocket connections that send nothing (not even PING) for this long are closed (default 60 000 ms). */
  wsIdleTimeoutMs?: number;
  /**
   * Assets one market-channel connection is served (default 500): past it the venue accepts the subscription and
   * delivers nothing for the extra assets (NautilusTrader PR #2915; docs/venues/polymarket-sim.md).
   */
  wsMaxAssetsPerConnection?: number;
  /**
   * Accounts created at or after this instant may trade only through a deposit wallet (ISO time; default
   * 2026-05-01T00:00:00Z — the exact day of Polymarket's May 2026 cutover is not in our sources).
   */
  depositWalletCutover?: string;
  /**
   * The sandbox chain: with it, paper accounts also get their collateral as real tokens on chain (and a legacy
   * account's EOA some gas), deposit wallets are deployed there as ERC-1271 contracts (type-3 orders are checked by
   * their isValidSignature), the relayer runs deposit-wallet batches through them, and /__sim/chain/* prepares and
   * resolves conditions on the real ConditionalTokens contract.
   */
  chain?: SimChainOptions;
  /**
   * With a chain: how many catalogue markets (in catalogue order) are listed on it — conditions prepared by the
   * simulator as oracle, ids taken from the chain, resolved markets' payouts reported (default 50).
   */
  chainMarkets?: number;
}

/**
 * `legacy`: an account from before the cutover, with a Polymarket proxy and a Gnosis Safe, each funded, that may
 * sign as 0, 1 or 2. `deposit`: a new account whose funds sit in its deposit wallet (signature type 3 only).
 */
export type PolymarketSimAccountKind = 'legacy' | 'deposit';

export interface PolymarketSimAccount {
  /** Session credentials as our API takes them; a deposit account also carries signature_type "3" and its funder. */
  credentials: {
    private_key: string;
    clob_api_key: string;
    clob_api_secret: string;
    clob_api_passphrase: string;
    signature_type?: string;
    funder_address?: string;
  };
  /** The signing EOA (the API key's address). */
  address: string;
  kind: PolymarketSimAccountKind;
  /** The account's contract wallets (legacy: proxy and safe; deposit: deposit). */
  wallets: { proxy?: string; safe?: string; deposit?: string };
}

export interface PolymarketSimAccountOptions {
  collateral?: string;
  /** Default true; with a chain the account's wallets are also set up approved on chain, where its trades settle. */
  approved?: boolean;
  kind?: PolymarketSimAccountKind;
  /** With a chain: whether a legacy account's EOA gets gas (default true). */
  gas?: boolean;
  /**
   * A deposit account whose type-3 orders the CLOB refuses although its key and wallet are right, as it still does
   * for some accounts (py-clob-client-v2 #70, #103): `the order signer address has to be the address of the API KEY`.
   */
  deposit_orders_refused?: boolean;
}

export interface PolymarketSim {
  urls: { gamma: string; clob: string; data: string; relayer: string; wsMarket: string; wsUser: string };
  /** The builder credentials the simulated relayer accepts (the operator's, in production from config). */
  relayerAuth: BuilderCreds;
  /** Where /__sim/* is served (every listener serves it too). */
  control: string;
  createAccount(opts?: PolymarketSimAccountOptions): Promise<PolymarketSimAccount>;
  close(): Promise<void>;
}

const DEFAULT_COLLATERAL = '10000000000';
const DEFAULT_CUTOVER = '2026-05-01T00:00:00Z';
const YEAR_MS = 365 * 24 * 3600 * 1000;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startPolymarketSim(opts: PolymarketSimOptions = {}): Promise<PolymarketSim> {
  const world = createWorld({ seed: opts.seed, size: opts.size, now: opts.now });
  const cat = new Catalogue(world, world.seed);
  const clock = new SimClock();
  const accounts = new Accounts();
  const cutover = Date.parse(opts.depositWalletCutover ?? DEFAULT_CUTOVER);
  if (!Number.isFinite(cutover)) throw new Error('depositWalletCutover must be an ISO date-time');
  const wallets = new WalletRegistry(cutover, () => clock.now());
  const exchange = new Exchange(cat, accounts, () => clock.now());
  const faults = new SimFaults();
  const newWalletBalance = /^\d+$/.test(opts.newWalletBalance ?? '') ? Number(opts.newWalletBalance) : 0;
  const pm: PmContext = {
    cat,
    exchange,
    accounts,
    wallets,
    clock,
    authWindowSeconds: opts.authWindowSeconds ?? 300,
    newWalletBalance,
    chain: opts.chain ? await SimChain.connect(opts.chain) : null,
  };

  if (pm.chain) {
    const chain = pm.chain;
    await listCatalogueOnChain(chain, cat, opts.chainMarkets ?? 50);
    // The house market maker trades on chain too: its account has approved both exchanges.
    await chain.approveExchanges(HOUSE_ADDRESS, { splits: true });
    exchange.settler = (t) => settleOnChain(chain, cat, accounts, t);
  }

  const createAccount = async (
    o: {
      collateral?: unknown;
      approved?: unknown;
      kind?: unknown;
      gas?: unknown;
      deposit_orders_refused?: unknown;
    } = {},
  ): Promise<PolymarketSimAccount> => {
    const privateKey = generatePrivateKey();
    const { address } = privateKeyToAccount(privateKey);
    const kind: PolymarketSimAccountKind = o.kind === 'deposit' ? 'deposit' : 'legacy';
    const collateral =
      typeof o.collateral === 'string' && /^\d+$/.test(o.collateral) ? o.collateral : DEFAULT_COLLATERAL;
    const onChain: string[] = [];
    const fund = (at: string) => {
      onChain.push(at);
      const wallet = accounts.wallet(at);
      wallet.collateral += Number(collateral);
      wallet.approved = o.approved !== false;
      // Funded here, so a later L1 login must not add the new-wallet balance again.
      wallet.onboarded = true;
    };
    const made: PolymarketSimAccount['wallets'] = {};
    if (kind === 'legacy') {
      wallets.profile(address, Math.min(clock.now(), cutover) - YEAR_MS);
      made.proxy = wallets.deploy(address, 'proxy').address;
      made.safe = wallets.deploy(address, 'safe').address;
      for (const at of [address, made.proxy, made.safe]) fund(at);
    } else {
      wallets.profile(address, Math.max(clock.now(), cutover));
      made.deposit = (await createDepositWallet(pm, address)).address;
      if (o.deposit_orders_refused === true) wallets.refuseDepositOrders(address);
      fund(made.deposit);
      accounts.wallet(address).onboarded = true;
    }
    if (pm.chain) {
      // A legacy account's Safe and proxy wallet are contracts on chain, where the relayer can drive them.
      if (made.safe) await pm.chain.placeSafe(address, made.safe);
      if (made.proxy) await pm.chain.placeProxyWallet(made.proxy);
      for (const at of onChain) await pm.chain.fundCollateral(at, BigInt(collateral));
      if (kind === 'legacy' && o.gas !== false) await pm.chain.fundGas(address, 10n ** 19n);
      // An account created approved has approved the exchanges on chain too, where its trades settle.
      if (o.approved !== false) for (const at of onChain) await pm.chain.approveExchanges(at);
    }
    // CLOB API keys are bound to the signing EOA, also for deposit-wallet trading (docs/venues/polymarket-sim.md).
    const key = accounts.createKey(address, '0');
    if (!key) throw new Error('fresh wallet already had an API key');
    return {
      credentials: {
        private_key: privateKey,
        clob_api_key: key.key,
        clob_api_secret: key.secret,
        clob_api_passphrase: key.passphrase,
        ...(made.deposit ? { signature_type: '3', funder_address: made.deposit } : {}),
      },
      address,
      kind,
      wallets: made,
    };
  };
  const relayerAuth: BuilderCreds = {
    key: randomUUID(),
    secret: randomBytes(32).toString('base64url'),
    passphrase: randomBytes(32).toString('hex'),
  };

  let streams: Streams | null = null;
  let urls: PolymarketSim['urls'] | null = null;
  const control: SimControl = {
    faults,
    clock,
    hooks: {
      manifest: () => cat.manifest(),
      advance: (steps) => exchange.advance(steps),
      onClockAdvanced: (nowMs) => {
        exchange.expire(nowMs);
      },
      dropStreams: () => streams?.drop() ?? 0,
      streamSubscriptions: () => streams?.subscriptions() ?? {},
      createAccount: (body) => createAccount(body),
      fund: (address, amount) => {
        accounts.wallet(address).collateral += Number(amount);
      },
      extra: async (method, path, body) => {
        const route = `${method} ${path}`;
        if (route === 'POST /__sim/markets') return listMarket(cat, exchange);
        if (route === 'POST /__sim/polymarket/protocol-v2') return moveToProtocolV2(cat, exchange, body);
        // Where each host listens (the WebSocket host has a port of its own), for tests that talk to it directly.
        if (route === 'GET /__sim/urls') return { status: 200, body: urls };
        return chainControl(pm.chain, cat, method, path, body);
      },
    },
    requests: new SimRequestLog(),
  };
  streams = new Streams(pm, control, opts.wsIdleTimeoutMs ?? 60_000, opts.wsMaxAssetsPerConnection ?? 500);
  exchange.feed = streams;

  const gamma = createServer(listener('gamma', gammaRoutes(pm), control));
  const clob = createServer(listener('clob', [...publicClobRoutes(pm), ...privateClobRoutes(pm)], control));
  const data = createServer(listener('data', dataRoutes(pm), control));
  const relayer = createServer(listener('relayer', relayerRoutes(pm, relayerAuth), control));
  const [gammaPort, clobPort, dataPort, relayerPort, wsPort] = await Promise.all([
    listen(gamma),
    listen(clob),
    listen(data),
    listen(relayer),
    listen(streams.server),
  ]);
  // GTD orders expire on the simulator's clock even when nobody moves it.
  const expiry = setInterval(() => exchange.expire(clock.now()), 1000);
  expiry.unref();

  const http = (port: number | undefined) => `http://127.0.0.1:${port}`;
  const live = streams;
  urls = {
    gamma: http(gammaPort),
    clob: http(clobPort),
    data: http(dataPort),
    relayer: http(relayerPort),
    wsMarket: `ws://127.0.0.1:${wsPort}/ws/market`,
    wsUser: `ws://127.0.0.1:${wsPort}/ws/user`,
  };
  return {
    urls,
    control: http(clobPort),
    relayerAuth,
    createAccount: (o) => createAccount(o),
    close: async () => {
      clearInterval(expiry);
      await live.close();
      await Promise.all([
        closeServer(gamma),
        closeServer(clob),
        closeServer(data),
        closeServer(relayer),
        closeServer(live.server),
      ]);
    },
  };
}

/**
 * POST /__sim/markets: Polymarket lists one more market (the next active binary proposition of the world it had not
 * listed) → { condition_id, slug, question }; 409 when there is none left. Gamma's cached lists are keyed by the
 * exchange's version, so bumping it makes the new market show in the next page walk.
 */
function listMarket(cat: Catalogue, exchange: Exchange): { status: number; body: unknown } {
  const m = cat.listNext();
  if (!m) return { status: 409, body: { error: 'every active binary proposition is listed already' } };
  exchange.version += 1;
  return { status: 201, body: { condition_id: cat.conditionId(m), slug: m.slug, question: m.question } };
}

/**
 * POST /__sim/polymarket/protocol-v2 {condition_id}: the market moves to Protocol V2 (ExchangeV3, structured
 * position ids, Gamma `version: "v2"`) → { condition_id, position_ids }. Only for a market nobody has traded.
 */
function moveToProtocolV2(
  cat: Catalogue,
  exchange: Exchange,
  body: Record<string, unknown>,
): { status: number; body: unknown } {
  const id = body.condition_id;
  const m = typeof id === 'string' ? cat.byConditionId(id) : undefined;
  if (!m) throw new SimControlInputError('condition_id of a listed market is required');
  if (cat.isOnChain(m)) throw new SimControlInputError('a market listed on the sandbox chain stays on V1');
  const ids = cat.listOnProtocolV2(m);
  exchange.version += 1;
  return { status: 200, body: { condition_id: cat.conditionId(m), position_ids: ids } };
}

/**
 * /__sim/chain/* (with a chain): POST conditions → a new binary condition with the simulator as oracle;
 * POST resolve {condition_id, winner: Yes|No} reports its payouts (a listed catalogue market's too, which then shows
 * as resolved); POST fund {address, collateral?, gas?} mints
 * collateral (base units) and sets the native balance (wei); POST approve {address} sets the address up as having
 * approved both exchanges for collateral and outcome tokens (anvil impersonation), where its trades settle.
 */
async function chainControl(
  chain: SimChain | null,
  cat: Catalogue,
  method: string,
  path: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: unknown } | null> {
  if (!path.startsWith('/__sim/chain/')) return null;
  if (!chain) return { status: 404, body: { error: 'this simulator runs without a chain' } };
  const route = `${method} ${path}`;
  if (route === 'POST /__sim/chain/conditions') {
    const c = await chain.createCondition();
    return {
      status: 201,
      body: {
        condition_id: c.conditionId,
        question_id: c.questionId,
        position_ids: c.positionIds,
        oracle: chain.oracle,
      },
    };
  }
  if (route === 'POST /__sim/chain/resolve') {
    const { condition_id: conditionId, winner } = body;
    if (typeof conditionId !== 'string' || (winner !== 'Yes' && winner !== 'No')) {
      throw new SimControlInputError('condition_id (string) and winner (Yes or No) are required');
    }
    const market = cat.byConditionId(conditionId);
    if (market && market.status !== 'active') throw new SimControlInputError('that market is not active');
    // The NegRiskAdapter refuses a second YES in one neg-risk market; say so rather than send a doomed report.
    if (market && winner === 'Yes' && market.event.markets.some((o) => o !== market && o.yesWon === true))
      throw new SimControlInputError('another option of this neg-risk event already resolved Yes');
    const tx = market
      ? resolveCatalogueMarket(chain, cat, market, winner)
      : chain.resolve(conditionId, winner);
    const hash = await tx;
    if (!hash) throw new SimControlInputError('not a condition this simulator prepared');
    return { status: 200, body: { tx_hash: hash } };
  }
  if (route === 'POST /__sim/chain/fund') {
    const { address, collateral, gas } = body;
    const uint = (v: unknown) => v === undefined || (typeof v === 'string' && /^\d{1,30}$/.test(v));
    if (
      typeof address !== 'string' ||
      !/^0x[0-9a-fA-F]{40}$/.test(address) ||
      !uint(collateral) ||
      !uint(gas)
    ) {
      throw new SimControlInputError('address, and collateral / gas as base-unit integer strings');
    }
    if (typeof collateral === 'string') await chain.fundCollateral(address, BigInt(collateral));
    if (typeof gas === 'string') await chain.fundGas(address, BigInt(gas));
    return { status: 200, body: { ok: true } };
  }
  if (route === 'POST /__sim/chain/approve') {
    // Set-up for a wallet whose keys the caller does not hold (a managed deposit wallet): as if it had approved.
    const { address } = body;
    if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address))
      throw new SimControlInputError('address is required');
    await chain.approveExchanges(address);
    return { status: 200, body: { ok: true } };
  }
  return null;
}
