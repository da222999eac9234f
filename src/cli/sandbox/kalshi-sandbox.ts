// Sandbox launcher for Kalshi: starts the simulator on loopback, registers a market-data API key in it (Kalshi
// signs every WebSocket connection) and one funded paper account, and points the adapter at it.
import { startKalshiSim } from '../../../sim/kalshi/index.js';
import { createKalshiAdapter } from '../../venues/kalshi/index.js';
import type { SimVenueLauncher } from '../sandbox-venues.js';
import { assembleSimVenue } from './assemble-sim-venue.js';

export const launchKalshiSandbox: SimVenueLauncher = async (config, world) => {
  const sim = await startKalshiSim({ seed: world?.seed, size: world?.size });
  return assembleSimVenue(sim, {
    adapter: async () => {
      const stream = (await sim.createAccount()).credentials;
      return createKalshiAdapter({
        restUrl: sim.url,
        wsUrl: sim.wsUrl,
        timeoutMs: config.venues.timeoutMs,
        streamHeartbeatMs: config.venues.streamHeartbeatMs,
        unpaced: true,
        streamCredentials: { api_key_id: stream.api_key_id ?? '', private_key: stream.private_key ?? '' },
      });
    },
    firstAccount: () => sim.createAccount(),
    nextAccount: () => sim.createAccount(),
  });
};
