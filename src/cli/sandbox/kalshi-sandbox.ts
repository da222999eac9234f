// Sandbox launcher for Kalshi: starts the simulator on loopback, registers a market-data API key in it (Kalshi
// signs every WebSocket connection) and one funded paper account, and points the adapter at it.
import { startKalshiSim } from '../../../sim/kalshi/index.js';
import { createKalshiAdapter } from '../../venues/kalshi/index.js';
import type { SimVenueLauncher } from '../sandbox-venues.js';

export const launchKalshiSandbox: SimVenueLauncher = async (config, world) => {
  const sim = await startKalshiSim({ seed: world?.seed, size: world?.size });
  try {
    const stream = (await sim.createAccount()).credentials;
    const adapter = createKalshiAdapter({
      restUrl: sim.url,
      wsUrl: sim.wsUrl,
      timeoutMs: config.venues.timeoutMs,
      unpaced: true,
      streamCredentials: { api_key_id: stream.api_key_id ?? '', private_key: stream.private_key ?? '' },
    });
    const account = await sim.createAccount();
    return {
      adapter,
      account,
      control: sim.control,
      createAccount: () => sim.createAccount(),
      async close() {
        try {
          await adapter.close?.();
        } finally {
          await sim.close();
        }
      },
    };
  } catch (error) {
    await sim.close();
    throw error;
  }
};
