// Public entry of the Kalshi simulator: the shared world phrased as Kalshi series/events/markets, trade API v2
// and its WebSocket on one loopback port, RSA-PSS API keys, and the /__sim/* controls. Imports nothing from src/.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type SimAccount, SimClock, type SimControl } from '../shared/control.js';
import { SimFaults } from '../shared/faults.js';
import { SimRequestLog } from '../shared/request-log.js';
import { createWorld } from '../shared/world.js';
import { KalshiKeys } from './auth.js';
import { buildCatalog } from './catalog.js';
import { SimExchange } from './exchange.js';
import { API_PREFIX, createKalshiServer } from './server.js';
import { KalshiHub, WS_PATH } from './ws.js';

export interface KalshiSimOptions {
  seed?: number;
  size?: number;
  now?: Date;
  port?: number;
  /** Paper money each new account starts with, in cents (default $10,000). */
  startingBalanceCents?: number;
}

export interface KalshiSim {
  /** REST base URL, ending in /trade-api/v2 as the exchange's does. */
  url: string;
  /** WebSocket URL (…/trade-api/ws/v2). */
  wsUrl: string;
  /** Base URL of the /__sim/* control surface. */
  control: string;
  /** A funded account: exactly the X-Exchange-Credentials JSON of our API for Kalshi. */
  createAccount(opts?: { balanceCents?: number }): Promise<SimAccount>;
  close(): Promise<void>;
}

const DEFAULT_BALANCE_CENTS = 1_000_000;

export async function startKalshiSim(opts: KalshiSimOptions = {}): Promise<KalshiSim> {
  const world = createWorld({ seed: opts.seed, size: opts.size, now: opts.now });
  const catalog = buildCatalog(world);
  const faults = new SimFaults();
  const clock = new SimClock();
  const keys = new KalshiKeys();
  const hub = new KalshiHub(keys, faults);
  const ex = new SimExchange(catalog, () => clock.now(), hub);
  hub.bind(ex);
  const keyOfUser = new Map<string, string>();

  const createAccount = async (balanceCents = opts.startingBalanceCents ?? DEFAULT_BALANCE_CENTS) => {
    const user = ex.addUser(balanceCents * 10_000);
    const { keyId, privateKeyPem } = await keys.issue(randomUUID(), user.userId);
    keyOfUser.set(keyId, user.userId);
    return { credentials: { api_key_id: keyId, private_key: privateKeyPem } };
  };

  const control: SimControl = {
    faults,
    clock,
    // Exchange requests per route, served at /__sim/requests (tests count what the adapter asks).
    requests: new SimRequestLog(),
    hooks: {
      manifest: () => catalog.manifest,
      advance: (steps) => ex.advance(steps),
      onClockAdvanced: () => ex.expire(),
      dropStreams: () => hub.dropAll(),
      createAccount: (body) =>
        createAccount(
          typeof body.balance_cents === 'number' ? Math.max(0, Math.floor(body.balance_cents)) : undefined,
        ),
      // Kalshi accounts have no wallet address: `address` names the API key id (or the user id) to fund, in cents.
      fund: (address, amount) => {
        const user = ex.users.get(keyOfUser.get(address) ?? address);
        if (user) {
          user.cash += Number(amount) * 10_000;
          user.balanceUpdatedMs = clock.now();
        }
      },
    },
  };

  const server = createKalshiServer({ ex, hub, keys, control });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${API_PREFIX}`,
    wsUrl: `ws://127.0.0.1:${port}${WS_PATH}`,
    control: origin,
    createAccount: (o) => createAccount(o?.balanceCents),
    async close() {
      await hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
}
