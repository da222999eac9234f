// Public entry of the Polymarket simulator: builds the catalogue from the shared world and serves Gamma, the CLOB
// (REST), the Data API and the CLOB WebSocket host on separate loopback listeners, each also serving /__sim/*.
// Imports nothing from src/.
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
import { Streams } from './streams.js';

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
}

export interface PolymarketSimAccount {
  credentials: {
    private_key: string;
    clob_api_key: string;
    clob_api_secret: string;
    clob_api_passphrase: string;
  };
  address: string;
}

export interface PolymarketSim {
  urls: { gamma: string; clob: string; data: string; wsMarket: string; wsUser: string };
  /** Where /__sim/* is served (every listener serves it too). */
  control: string;
  createAccount(opts?: { collateral?: string; approved?: boolean }): Promise<PolymarketSimAccount>;
  close(): Promise<void>;
}

const DEFAULT_COLLATERAL = '10000000000';

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
  const exchange = new Exchange(cat, accounts, () => clock.now());
  const faults = new SimFaults();
  const newWalletBalance = /^\d+$/.test(opts.newWalletBalance ?? '') ? Number(opts.newWalletBalance) : 0;
  const pm: PmContext = {
    cat,
    exchange,
    accounts,
    clock,
    authWindowSeconds: opts.authWindowSeconds ?? 300,
    newWalletBalance,
  };

  const createAccount = async (
    o: { collateral?: unknown; approved?: unknown } = {},
  ): Promise<PolymarketSimAccount> => {
    const privateKey = generatePrivateKey();
    const { address } = privateKeyToAccount(privateKey);
    const wallet = accounts.wallet(address);
    const collateral =
      typeof o.collateral === 'string' && /^\d+$/.test(o.collateral) ? o.collateral : DEFAULT_COLLATERAL;
    wallet.collateral += Number(collateral);
    wallet.approved = o.approved !== false;
    // Funded here, so a later L1 login must not add the new-wallet balance again.
    wallet.onboarded = true;
    const key = accounts.createKey(address, '0');
    if (!key) throw new Error('fresh wallet already had an API key');
    return {
      credentials: {
        private_key: privateKey,
        clob_api_key: key.key,
        clob_api_secret: key.secret,
        clob_api_passphrase: key.passphrase,
      },
      address,
    };
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
  const [gammaPort, clobPort, dataPort, wsPort] = await Promise.all([
    listen(gamma),
    listen(clob),
    listen(data),
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
      wsMarket: `ws://127.0.0.1:${wsPort}/ws/market`,
      wsUser: `ws://127.0.0.1:${wsPort}/ws/user`,
    },
    control: http(clobPort),
    createAccount: (o) => createAccount(o),
    close: async () => {
      clearInterval(expiry);
      await live.close();
      await Promise.all([closeServer(gamma), closeServer(clob), closeServer(data), closeServer(live.server)]);
    },
  };
}
