// `omnibook sandbox`: starts each exchange simulator on loopback, points that venue's adapter at it, opens one
// funded paper account per venue and writes them to <data-dir>/sandbox-accounts.json — the documented way
// for a new user or a script to trade in the sandbox.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectChain, type OnChain } from '../chain/chain.js';
import { deployFeeEscrow, type FeeEscrowDeployment } from '../chain/sandbox/fee-escrow-deploy.js';
import { type SandboxChain, startSandboxChain } from '../chain/sandbox/sandbox-chain.js';
import type { Config } from '../config/schema.js';
import type { ExchangeId } from '../domain/exchanges.js';
import type { VenueAdapter } from '../venues/port.js';
import { launchKalshiSandbox } from './sandbox/kalshi-sandbox.js';
import { launchLimitlessSandbox } from './sandbox/limitless-sandbox.js';
import { launchOpinionSandbox } from './sandbox/opinion-sandbox.js';
import { launchPolymarketSandbox } from './sandbox/polymarket-sandbox.js';
import { launchPredictfunSandbox } from './sandbox/predictfun-sandbox.js';

export interface SandboxAccount {
  /** Exactly the JSON a client puts (base64) in X-Exchange-Credentials. */
  credentials: Record<string, string>;
  address?: string;
}

export interface RunningSimVenue {
  adapter: VenueAdapter;
  /** The funded paper account written to sandbox-accounts.json under the exchange's id. */
  account: SandboxAccount;
  /** Further named accounts written beside it (e.g. `polymarket_deposit_wallet`), for the venue's other flows. */
  extraAccounts?: Readonly<Record<string, SandboxAccount>>;
  /** Base URL of the simulator's /__sim/* control surface (faults, clock, accounts), for tests and demos. */
  control: string;
  /** Opens another funded paper account. */
  createAccount(): Promise<SandboxAccount>;
  close(): Promise<void>;
}

/**
 * Starts one venue's simulator and builds its adapter against it. `config` carries the venue timeouts; the world
 * options let tests and benchmarks choose the catalogue size and seed.
 */
export type SimVenueLauncher = (config: Config, world?: SimWorldOptions) => Promise<RunningSimVenue>;

export interface SimWorldOptions {
  seed?: number;
  /** Number of propositions in the shared world (the sandbox default is small). */
  size?: number;
  /** The sandbox chain, for the venues that act on one (polymarket). */
  chain?: SandboxChain;
}

export const SIM_VENUE_LAUNCHERS: Partial<Record<ExchangeId, SimVenueLauncher>> = {
  polymarket: launchPolymarketSandbox,
  kalshi: launchKalshiSandbox,
  limitless: launchLimitlessSandbox,
  opinion: launchOpinionSandbox,
  predictfun: launchPredictfunSandbox,
};

export interface SandboxVenues {
  venues: VenueAdapter[];
  /** The local chain (null with --no-chain), connected as the runtime's chain. */
  chain: OnChain | null;
  /** Our FeeEscrow on the local chain (null with --no-chain): builder orders' fees are escrowed there. */
  feeEscrow: FeeEscrowDeployment | null;
  accountsFile: string;
  close(): Promise<void>;
}

export async function startSandboxVenues(config: Config): Promise<SandboxVenues> {
  const running: Array<[ExchangeId, RunningSimVenue]> = [];
  let chain: SandboxChain | undefined;
  let feeEscrow: FeeEscrowDeployment | null = null;
  const close = async () => {
    await Promise.allSettled(running.map(([, r]) => r.close()));
    await chain?.close();
  };
  try {
    if (config.chain.enabled) {
      chain = await startSandboxChain();
      const treasury = config.builder.treasuryAddress as `0x${string}` | undefined;
      feeEscrow = await deployFeeEscrow(chain, treasury ? { treasury } : {});
    }
    for (const [id, launch] of Object.entries(SIM_VENUE_LAUNCHERS) as Array<[ExchangeId, SimVenueLauncher]>) {
      running.push([id, await launch(config, chain ? { chain } : {})]);
    }
  } catch (error) {
    await close();
    throw error;
  }
  const accounts = Object.fromEntries(
    running.flatMap(([id, r]) => [[id, r.account], ...Object.entries(r.extraAccounts ?? {})]),
  );
  const accountsFile = join(config.dataDir, 'sandbox-accounts.json');
  // Paper credentials for local simulators: kept readable by the owner only.
  writeFileSync(accountsFile, `${JSON.stringify(accounts, null, 2)}\n`, { mode: 0o600 });
  // The mode above applies only to a file this call creates (and through the umask): the paper keys stay 0600.
  chmodSync(accountsFile, 0o600);
  return {
    venues: running.map(([, r]) => r.adapter),
    chain: chain ? connectSandboxChain(chain, config) : null,
    feeEscrow,
    accountsFile,
    close,
  };
}

/** The runtime's view of the sandbox chain: the same client code as live, on the local RPC. */
export function connectSandboxChain(chain: SandboxChain, config: Config): OnChain {
  return connectChain({
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    contracts: chain.contracts,
    timeoutMs: config.venues.timeoutMs,
  });
}
