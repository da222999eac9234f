// Sandbox launcher for Limitless: starts the simulator on loopback, points the adapter at it and opens a funded
// paper account holding a few positions (Limitless is data only here, so positions cannot be traded into).
import { startLimitlessSim } from '../../../sim/limitless/index.js';
import { createLimitlessAdapter } from '../../venues/limitless/index.js';
import type { SimVenueLauncher } from '../sandbox-venues.js';

/** 10,000 paper USDC (6 decimals). */
const PAPER_USDC = '10000000000';

export const launchLimitlessSandbox: SimVenueLauncher = async (config, world) => {
  const sim = await startLimitlessSim({ seed: world?.seed, size: world?.size });
  const adapter = createLimitlessAdapter({
    restUrl: sim.url,
    wsUrl: sim.wsUrl,
    timeoutMs: config.venues.timeoutMs,
    unpaced: true,
  });
  try {
    const account = await sim.createAccount({ holdings: 3, fund: PAPER_USDC });
    return {
      adapter,
      account,
      control: sim.control,
      createAccount: () => sim.createAccount({ fund: PAPER_USDC }),
      async close() {
        try {
          await adapter.close();
        } finally {
          await sim.close();
        }
      },
    };
  } catch (error) {
    await adapter.close();
    await sim.close();
    throw error;
  }
};
