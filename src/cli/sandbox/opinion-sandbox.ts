// Sandbox launcher for Opinion: starts the Opinion simulator with the requested world, points the adapter at
// it with the simulator's operator key (the stand-in for OPINION_API_KEY) and opens one funded paper account.
import { startOpinionSim } from '../../../sim/opinion/index.js';
import { createOpinionAdapter } from '../../venues/opinion/index.js';
import type { SimVenueLauncher } from '../sandbox-venues.js';

export const launchOpinionSandbox: SimVenueLauncher = async (config, world = {}) => {
  const sim = await startOpinionSim({ seed: world.seed, size: world.size });
  const adapter = createOpinionAdapter({
    restUrl: sim.url,
    apiKey: sim.apiKey,
    pollIntervalMs: config.venues.opinion.pollIntervalMs,
    timeoutMs: config.venues.timeoutMs,
    unpaced: true,
  });
  try {
    const account = await sim.createAccount();
    return {
      adapter,
      account,
      control: sim.control,
      createAccount: () => sim.createAccount(),
      close: async () => {
        try {
          await adapter.close?.();
        } finally {
          await sim.close();
        }
      },
    };
  } catch (error) {
    await adapter.close?.();
    await sim.close();
    throw error;
  }
};
