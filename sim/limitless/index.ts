// Public entry of the Limitless simulator: builds the world and listens on loopback. Imports nothing from src/.
import type { AddressInfo } from 'node:net';
import { SimClock } from '../shared/control.js';
import { SimFaults } from '../shared/faults.js';
import { createWorld } from '../shared/world.js';
import { LimitlessAccounts } from './auth.js';
import { createLimitlessServer } from './server.js';

export interface LimitlessSim {
  url: string;
  close(): Promise<void>;
  registerAccount(): Promise<{ credentials: Record<string, string>; address?: string }>;
}

export async function startLimitlessSim(
  opts: { port?: number; seed?: number; size?: number } = {},
): Promise<LimitlessSim> {
  const accounts = new LimitlessAccounts();
  const world = createWorld({ seed: opts.seed, size: opts.size });
  const server = createLimitlessServer(world, accounts, new SimFaults(), new SimClock());
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    registerAccount: async () => {
      const a = accounts.register();
      return {
        credentials: { api_key: a.apiKey, token_id: a.tokenId, secret: a.secret },
        address: a.address,
      };
    },
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
