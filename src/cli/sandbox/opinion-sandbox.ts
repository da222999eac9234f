// Sandbox launcher for Opinion: starts the Opinion simulator with the requested world, points the adapter at
// it with the simulator's operator key (the stand-in for OPINION_API_KEY) and opens one funded paper account.
import { startOpinionSim } from '../../../sim/opinion/index.js';
import { createOpinionAdapter } from '../../venues/opinion/index.js';
import type { SimVenueLauncher } from '../sandbox-venues.js';
import { assembleSimVenue } from './assemble-sim-venue.js';

export const launchOpinionSandbox: SimVenueLauncher = async (config, world = {}) => {
  const sim = await startOpinionSim({ seed: world.seed, size: world.size });
  return assembleSimVenue(sim, {
    adapter: () =>
      createOpinionAdapter({
        restUrl: sim.url,
        apiKey: sim.apiKey,
        pollIntervalMs: config.venues.opinion.pollIntervalMs,
        timeoutMs: config.venues.timeoutMs,
        unpaced: true,
      }),
    firstAccount: () => sim.createAccount(),
    nextAccount: () => sim.createAccount(),
  });
};
