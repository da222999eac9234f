// Sandbox launcher for Predict.fun: starts the simulator (REST API and its BNB Chain RPC) with the given world,
// points the adapter at it with the simulator's API key, and opens one funded paper wallet.
import { startPredictfunSim } from '../../../sim/predictfun/index.js';
import { createPredictfunAdapter } from '../../venues/predictfun/index.js';
import type { SimVenueLauncher } from '../sandbox-venues.js';

export const launchPredictfunSandbox: SimVenueLauncher = async (config, world) => {
  const sim = await startPredictfunSim({ seed: world?.seed, size: world?.size });
  const adapter = createPredictfunAdapter({
    restUrl: sim.url,
    rpcUrl: sim.rpcUrl,
    collateralToken: sim.collateralToken,
    apiKey: sim.apiKey,
    pollIntervalMs: config.venues.predictfun.pollIntervalMs,
    timeoutMs: config.venues.timeoutMs,
    unpaced: true,
  });
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
};
