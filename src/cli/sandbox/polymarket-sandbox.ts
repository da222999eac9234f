// Sandbox wiring for Polymarket: starts the simulator on loopback, points the real adapter at its hosts and opens
// the paper accounts written to sandbox-accounts.json (a legacy account, and a post-cutover deposit-wallet one). Wallets first seen later (managed onboarding) are
// given a paper balance by the simulator itself.
import { startPolymarketSim } from '../../../sim/polymarket/index.js';
import type { Config } from '../../config/schema.js';
import { createPolymarketAdapter } from '../../venues/polymarket/index.js';
import type { RunningSimVenue, SimWorldOptions } from '../sandbox-venues.js';
import { assembleSimVenue } from './assemble-sim-venue.js';

/** 1,000 pUSD for every wallet the simulator has not seen before. */
const NEW_WALLET_PAPER_BALANCE = '1000000000';

export async function launchPolymarketSandbox(
  config: Config,
  world: SimWorldOptions = {},
): Promise<RunningSimVenue> {
  const { chain, ...shape } = world;
  const sim = await startPolymarketSim({
    ...shape,
    newWalletBalance: NEW_WALLET_PAPER_BALANCE,
    ...(chain
      ? {
          chain: {
            rpcUrl: chain.rpcUrl,
            chainId: chain.chainId,
            contracts: chain.contracts,
            minterKey: chain.minterKey,
          },
        }
      : {}),
  });
  return assembleSimVenue(sim, {
    adapter: () =>
      createPolymarketAdapter({
        gammaUrl: sim.urls.gamma,
        clobUrl: sim.urls.clob,
        dataUrl: sim.urls.data,
        relayerUrl: sim.urls.relayer,
        relayerAuth: sim.relayerAuth,
        wsMarketUrl: sim.urls.wsMarket,
        wsUserUrl: sim.urls.wsUser,
        timeoutMs: config.venues.timeoutMs,
        streamHeartbeatMs: config.venues.streamHeartbeatMs,
        ...(config.venues.polymarket.wsAssetsPerConnection
          ? { wsAssetsPerConnection: config.venues.polymarket.wsAssetsPerConnection }
          : {}),
        unpaced: true,
      }),
    firstAccount: () => sim.createAccount(),
    nextAccount: () => sim.createAccount(),
    // An account opened after the deposit-wallet cutover: it trades only through its deposit wallet
    // (signature_type 3, funder_address = the wallet), as new Polymarket accounts must.
    extraAccounts: async () => {
      const { credentials, address } = await sim.createAccount({ kind: 'deposit' });
      return { polymarket_deposit_wallet: { credentials, address } };
    },
  });
}
