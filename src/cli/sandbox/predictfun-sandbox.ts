// Sandbox launcher for Predict.fun: starts the simulator (REST API and its BNB Chain RPC) with the given world,
// points the adapter at it with the simulator's API key, and opens one funded paper wallet.
import { startPredictfunSim } from '../../../sim/predictfun/index.js';
import { createPredictfunAdapter } from '../../venues/predictfun/index.js';
import type { SimVenueLauncher } from '../sandbox-venues.js';
import { assembleSimVenue } from './assemble-sim-venue.js';

export const launchPredictfunSandbox: SimVenueLauncher = async (config, world) => {
  const sim = await startPredictfunSim({ seed: world?.seed, size: world?.size });
  return assembleSimVenue(sim, {
    adapter: () =>
      createPredictfunAdapter({
        restUrl: sim.url,
        rpcUrl: sim.rpcUrl,
        collateralToken: sim.collateralToken,
        apiKey: sim.apiKey,
        pollIntervalMs: config.venues.predictfun.pollIntervalMs,
        timeoutMs: config.venues.timeoutMs,
        unpaced: true,
      }),
    firstAccount: () => sim.createAccount(),
    nextAccount: () => sim.createAccount(),
  });
};
