// Public entry of the Polymarket simulator: builds the catalogue from the shared world and serves Gamma, the CLOB
// (REST), the Data API and the CLOB WebSocket host on separate loopback listeners, each also serving /__sim/*.
// Imports nothing from src/.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { SimClock, type SimControl } from '../shared/control.js';
import { SimFaults } from '../shared/faults.js';
import { SimRequestLog } from '../shared/request-log.js';
import { createWorld } from '../shared/world.js';
import { Accounts } from './accounts.js';
import { Catalogue } from './catalogue.js';
import { privateClobRoutes } from './clob-private.js';
import { publicClobRoutes } from './clob-public.js';
import type { PmContext } from './context.js';
import { dataRoutes } from './data-routes.js';
import { Exchange } from './exchange.js';
import { gammaRoutes } from './gamma-routes.js';
import { listener } from './http-util.js';
import { type BuilderCreds, relayerRoutes } from './relayer-routes.js';
import { Streams } from './streams.js';
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
   * Accounts created at or after this instant may trade only through a deposit wallet (ISO time; default
   * 2026-05-01T00:00:00Z — the exact day of Polymarket's May 2026 cutover is not in our sources).
   */
  depositWalletCutover?: string;
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
  approved?: boolean;
  kind?: PolymarketSimAccountKind;
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
  };

  const createAccount = async (
    o: { collateral?: unknown; approved?: unknown; kind?: unknown } = {},
  ): Promise<PolymarketSimAccount> => {
    const privateKey = generatePrivateKey();
    const { address } = privateKeyToAccount(privateKey);
    const kind: PolymarketSimAccountKind = o.kind === 'deposit' ? 'deposit' : 'legacy';
    const collateral =
      typeof o.collateral === 'string' && /^\d+$/.test(o.collateral) ? o.collateral : DEFAULT_COLLATERAL;
    const fund = (at: string) => {
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
      made.deposit = wallets.deploy(address, 'deposit').address;
      fund(made.deposit);
      accounts.wallet(address).onboarded = true;
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
    },
    requests: new SimRequestLog(),
  };
  streams = new Streams(pm, control, opts.wsIdleTimeoutMs ?? 60_000);
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
  return {
    urls: {
      gamma: http(gammaPort),
      clob: http(clobPort),
      data: http(dataPort),
      relayer: http(relayerPort),
      wsMarket: `ws://127.0.0.1:${wsPort}/ws/market`,
      wsUser: `ws://127.0.0.1:${wsPort}/ws/user`,
    },
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
