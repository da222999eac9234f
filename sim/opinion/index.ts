// Public entry of the Opinion simulator: builds the shared world, phrases it as Opinion markets and serves
// the OpenAPI on loopback. `url` is the REST base (…/openapi, as the official SDK's host); `apiKey` is the
// operator key our service uses for public data. Imports nothing from src/.
import type { AddressInfo } from 'node:net';
import { getAddress } from 'viem';
import { SimClock, type SimControlHooks } from '../shared/control.js';
import { SimFaults } from '../shared/faults.js';
import { createWorld } from '../shared/world.js';
import { OpinionAccounts } from './accounts.js';
import { OpinionCatalogue } from './catalogue.js';
import { OpinionOrders } from './orders.js';
import { walletHex } from './phrasing.js';
import { renderTrade } from './portfolio.js';
import { createOpinionServer, type MarketTypeReading, type OpinionSimState } from './server.js';

export interface OpinionSimOptions {
  seed?: number;
  size?: number;
  now?: Date;
  port?: number;
  /** How GET /market reads `marketType` (default `sdk`); see MarketTypeReading. */
  marketTypeReading?: MarketTypeReading;
}

export interface OpinionSimAccount {
  /** Exactly our adapter's credential JSON (X-Exchange-Credentials): the OpenAPI key and the wallet's key. */
  credentials: { api_key: string; private_key: string };
  /** The account's login wallet (EOA), the address Opinion's by-address endpoints take. */
  address: string;
}

export interface OpinionSim {
  /** REST base URL, ending in /openapi. */
  url: string;
  /** Base URL of the /__sim/* control surface. */
  control: string;
  /** The operator's API key (public data; holds no wallet). */
  apiKey: string;
  /**
   * Opens a funded paper account; `positions` seeds that many open positions and the buys behind them, `allowance`
   * (base units) limits what its Safe has approved the exchange to spend.
   */
  createAccount(options?: { positions?: number; allowance?: string }): Promise<OpinionSimAccount>;
  /** The CTF exchange contract orders are signed for (GET /quoteToken's ctfExchangeAddress). */
  exchangeAddress: string;
  close(): Promise<void>;
}

export async function startOpinionSim(options: OpinionSimOptions = {}): Promise<OpinionSim> {
  const world = createWorld({ seed: options.seed, size: options.size, now: options.now });
  const catalogue = new OpinionCatalogue(world, world.seed);
  const accounts = new OpinionAccounts(catalogue, world.seed);
  const clock = new SimClock();
  const state: OpinionSimState = { step: 0 };
  // [sim] The exchange contract's address: GET /quoteToken names it; Opinion's own is not in the SDK.
  const orders = new OpinionOrders(catalogue, world.seed, getAddress(walletHex('exchange', world.seed, 0)));
  const open = (positions: unknown, allowance?: unknown): OpinionSimAccount => {
    const account = accounts.create({
      positions: typeof positions === 'number' && Number.isInteger(positions) ? positions : 0,
      ...(typeof allowance === 'string' && /^\d{1,78}$/.test(allowance)
        ? { allowance: BigInt(allowance) }
        : {}),
      nowMs: clock.now(),
    });
    return {
      credentials: { api_key: account.apiKey, private_key: account.privateKey },
      address: account.wallet,
    };
  };
  const hooks: SimControlHooks = {
    manifest: () => catalogue.manifest,
    advance: (steps) => {
      state.step += steps;
      return state.step;
    },
    createAccount: (body) => open(body.positions, body.allowance),
    fund: (address, amount) => {
      if (!accounts.fund(address, BigInt(amount))) throw new RangeError(`no account holds ${address}`);
    },
    trade: (address) => {
      if (!accounts.byAddress(address)) throw new RangeError(`no account holds ${address}`);
      const trade = accounts.trade(address, clock.now(), state.step);
      if (!trade) throw new RangeError('no activated market has an ask');
      return renderTrade(trade);
    },
  };
  const server = createOpinionServer(
    catalogue,
    accounts,
    new SimFaults(),
    clock,
    state,
    hooks,
    orders,
    options.marketTypeReading,
  );
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/openapi`,
    control: base,
    apiKey: accounts.operatorKey,
    exchangeAddress: orders.exchangeAddress,
    createAccount: async (opts = {}) => open(opts.positions, opts.allowance),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
