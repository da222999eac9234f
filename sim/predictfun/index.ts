// Public entry of the Predict.fun simulator: the REST API (with /__sim controls) and a BNB Chain JSON-RPC endpoint
// for on-chain balances, both on loopback, built from the shared world. Imports nothing from src/.

import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimClock, type SimControl } from '../shared/control.js';
import { SimFaults } from '../shared/faults.js';
import { SimRequestLog } from '../shared/request-log.js';
import { createWorld } from '../shared/world.js';
import { DEFAULT_BALANCE_WEI, type NewAccountOptions, PfAccounts, type SeededPosition } from './accounts.js';
import { BNB_CHAIN_ID, BNB_TESTNET_CHAIN_ID, PfAuth } from './auth.js';
import { PfCatalog } from './catalog.js';
import { PfOrders } from './orders.js';
import { BSC_TESTNET_USDT, BSC_USDT, createRpcServer } from './rpc.js';
import { createPredictfunServer } from './server.js';
import { PfState } from './state.js';

export { BSC_TESTNET_USDT, BSC_USDT } from './rpc.js';

export interface PredictfunSimOptions {
  seed?: number;
  size?: number;
  now?: Date;
  /** The operator API key the simulator accepts in x-api-key; random when left out. */
  apiKey?: string;
  /**
   * `mainnet` (default): every /v1 call needs the API key, as on api.predict.fun. `testnet`: as
   * api-testnet.predict.fun, calls need no key (wallet routes still need a JWT) and the chain is BNB testnet (97).
   */
  network?: 'mainnet' | 'testnet';
  /** Lifetime of the JWTs POST /v1/auth issues (the venue's are 24 h); shorter ones let tests watch renewal. */
  jwtLifetimeSeconds?: number;
}

/** The credentials JSON a client of our API sends for Predict.fun, and where the account's funds live. */
export interface PredictfunSimAccount {
  credentials: Record<string, string>;
  address: string;
}

export interface PredictfunSim {
  /** REST base URL (paths under /v1). */
  url: string;
  /** Base URL of the /__sim/* control surface (the same server). */
  control: string;
  /** BNB Chain JSON-RPC endpoint holding the paper USDT balances. */
  rpcUrl: string;
  /** The collateral token the RPC answers balanceOf for. */
  collateralToken: string;
  /** The key mainnet mode requires; testnet mode accepts calls with or without it. */
  apiKey: string;
  network: 'mainnet' | 'testnet';
  chainId: number;
  createAccount(opts?: AccountRequest): Promise<PredictfunSimAccount>;
  close(): Promise<void>;
}

/** Body of POST /__sim/accounts: a Predict account instead of a bare EOA, an opening balance, seeded holdings. */
export interface AccountRequest {
  predict_account?: boolean;
  /** USDT in wei, as a decimal string. */
  balance?: string;
  /** The USDT allowance granted to the exchange, in wei; unlimited when left out. */
  allowance?: string;
  positions?: Array<{ market_id: number; outcome: 'Yes' | 'No'; shares: number; average_price: number }>;
}

export async function startPredictfunSim(options: PredictfunSimOptions = {}): Promise<PredictfunSim> {
  const world = createWorld({ seed: options.seed, size: options.size, now: options.now });
  const clock = new SimClock();
  const catalog = new PfCatalog(world);
  const state = new PfState(world, catalog, clock);
  const accounts = new PfAccounts();
  const apiKey = options.apiKey ?? `pf_sim_${randomBytes(16).toString('hex')}`;
  const network = options.network ?? 'mainnet';
  const chainId = network === 'testnet' ? BNB_TESTNET_CHAIN_ID : BNB_CHAIN_ID;
  const collateralToken = network === 'testnet' ? BSC_TESTNET_USDT : BSC_USDT;
  const auth = new PfAuth(
    {
      apiKey,
      requireApiKey: network === 'mainnet',
      chainId,
      jwtLifetimeSeconds: options.jwtLifetimeSeconds,
    },
    accounts,
    clock,
  );

  const createAccount = (body: Record<string, unknown> = {}): PredictfunSimAccount => {
    const made = accounts.create(accountOptions(body, catalog));
    const credentials: Record<string, string> = { private_key: made.privateKey };
    if (made.predictAccount) credentials.predict_account = made.predictAccount;
    return { credentials, address: made.address };
  };

  const control: SimControl = {
    faults: new SimFaults(),
    clock,
    hooks: {
      manifest: () => catalog.manifest,
      advance: (steps) => state.advance(steps),
      createAccount,
      fund: (address, amount) => accounts.fund(address, BigInt(amount)),
      trade: (address) => {
        const wallet = accounts.find(address);
        if (!wallet) throw new RangeError(`no paper account at ${address}`);
        const match = state.paperTrade(wallet.address);
        if (!match) throw new RangeError('no trading market has an ask');
        // The buy's shares and cost land in the wallet, as settlement would put them there.
        const shares = BigInt(match.amountFilled);
        const price = BigInt(match.priceExecuted);
        wallet.balanceWei -= (shares * price) / 10n ** 18n;
        wallet.positions.push({
          marketId: match.market.id,
          indexSet: 1,
          amountWei: shares - BigInt(match.taker.fee.amount),
          averageBuyPriceUsd: String(Number(price / 10n ** 12n) / 1e6),
        });
        return { ...match };
      },
    },
    requests: new SimRequestLog(),
  };

  const orders = new PfOrders(state, accounts, clock, chainId);
  state.bookView = (ref, house) => orders.liveBook(ref, house);
  const api = createPredictfunServer({ state, auth, accounts, orders, control });
  const rpc = createRpcServer(accounts, () => 40_000_000 + state.step, { chainId, usdt: collateralToken });
  const apiPort = await listen(api);
  const rpcPort = await listen(rpc);
  const url = `http://127.0.0.1:${apiPort}`;
  return {
    url,
    control: url,
    rpcUrl: `http://127.0.0.1:${rpcPort}`,
    collateralToken,
    apiKey,
    network,
    chainId,
    createAccount: async (opts) => createAccount((opts ?? {}) as Record<string, unknown>),
    close: async () => {
      await Promise.all([closeServer(api), closeServer(rpc)]);
    },
  };
}

/** Validates a POST /__sim/accounts body; a bad one throws (rendered as 400 by the control surface). */
function accountOptions(body: Record<string, unknown>, catalog: PfCatalog): NewAccountOptions {
  const out: NewAccountOptions = {};
  if (body.predict_account !== undefined) {
    if (typeof body.predict_account !== 'boolean') throw new SyntaxError('predict_account must be a boolean');
    out.predictAccount = body.predict_account;
  }
  if (body.balance !== undefined) {
    if (typeof body.balance !== 'string' || !/^\d+$/.test(body.balance)) {
      throw new SyntaxError('balance must be a wei integer string');
    }
    out.balanceWei = BigInt(body.balance);
  } else {
    out.balanceWei = DEFAULT_BALANCE_WEI;
  }
  if (body.allowance !== undefined) {
    if (typeof body.allowance !== 'string' || !/^\d+$/.test(body.allowance)) {
      throw new SyntaxError('allowance must be a wei integer string');
    }
    out.allowanceWei = BigInt(body.allowance);
  }
  if (body.positions !== undefined) {
    if (!Array.isArray(body.positions)) throw new SyntaxError('positions must be an array');
    out.positions = body.positions.map((raw): SeededPosition => {
      const p = (raw ?? {}) as Record<string, unknown>;
      const marketId = p.market_id;
      if (typeof marketId !== 'number' || !catalog.market(marketId)) {
        throw new SyntaxError('positions[].market_id must be a listed market id');
      }
      if (p.outcome !== 'Yes' && p.outcome !== 'No')
        throw new SyntaxError('positions[].outcome must be Yes or No');
      const { shares, average_price: avg } = p;
      if (typeof shares !== 'number' || !(shares > 0) || typeof avg !== 'number' || !(avg > 0 && avg < 1)) {
        throw new SyntaxError('positions[] need shares > 0 and 0 < average_price < 1');
      }
      return {
        marketId,
        indexSet: p.outcome === 'Yes' ? 1 : 2,
        amountWei: BigInt(Math.round(shares * 1e6)) * 10n ** 12n,
        averageBuyPriceUsd: String(avg),
      };
    });
  }
  return out;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
}
