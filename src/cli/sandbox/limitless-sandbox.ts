// Sandbox launcher for Limitless: starts the simulator on loopback, points the adapter at it and opens a funded
// paper account holding a few positions; its credentials carry the wallet key that signs its orders.
import { startLimitlessSim } from '../../../sim/limitless/index.js';
import { createLimitlessAdapter } from '../../venues/limitless/index.js';
import type { SimVenueLauncher } from '../sandbox-venues.js';
import { assembleSimVenue } from './assemble-sim-venue.js';

/** 10,000 paper USDC (6 decimals). */
const PAPER_USDC = '10000000000';

export const launchLimitlessSandbox: SimVenueLauncher = async (config, world) => {
  const sim = await startLimitlessSim({ seed: world?.seed, size: world?.size });
  return assembleSimVenue(sim, {
    adapter: () =>
      createLimitlessAdapter({
        restUrl: sim.url,
        wsUrl: sim.wsUrl,
        timeoutMs: config.venues.timeoutMs,
        unpaced: true,
      }),
    firstAccount: () => sim.createAccount({ holdings: 3, fund: PAPER_USDC }),
    nextAccount: () => sim.createAccount({ fund: PAPER_USDC }),
  });
};
