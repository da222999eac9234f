// The whole sandbox in-process, as `omnibook sandbox` assembles it: the local chain with its FeeEscrow, the five
// simulators (polymarket's markets on that chain) with their funded paper accounts, and the real server over them,
// its catalogue walked from the venues (what a sync pass writes). For tests that drive a client through every
// route; the simulators' control surfaces stay reachable for faults and stream drops.
import { deployFeeEscrow } from '../../src/chain/sandbox/fee-escrow-deploy.js';
import { type SandboxChain, startSandboxChain } from '../../src/chain/sandbox/sandbox-chain.js';
import {
  connectSandboxChain,
  type RunningSimVenue,
  SIM_VENUE_LAUNCHERS,
} from '../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../src/config/load.js';
import type { ExchangeId } from '../../src/domain/exchanges.js';
import type { Market, MarketEvent } from '../../src/domain/market.js';
import { EventsRepo } from '../../src/store/events-repo.js';
import { MarketsRepo } from '../../src/store/markets-repo.js';
import { walkVenue } from './catalogue.js';
import { type StartOptions, startTestServer, type TestServer } from './server.js';

export interface SandboxServer {
  server: TestServer;
  chain: SandboxChain;
  sims: Map<ExchangeId, RunningSimVenue>;
  /** Every market the venues list, by svc_id. */
  markets: Map<string, Market>;
  events: MarketEvent[];
  stop(): Promise<void>;
}

export async function startSandboxServer(size: number, options: StartOptions = {}): Promise<SandboxServer> {
  const config = loadConfig({ env: {}, overrides: { ...options.config, mode: 'sandbox' } });
  const chain = await startSandboxChain();
  const sims = new Map<ExchangeId, RunningSimVenue>();
  const closeAll = async () => {
    await Promise.allSettled([...sims.values()].map((s) => s.close()));
    await chain.close();
  };
  let server: TestServer;
  try {
    const feeEscrow = await deployFeeEscrow(chain);
    for (const [id, launch] of Object.entries(SIM_VENUE_LAUNCHERS)) {
      if (launch) sims.set(id as ExchangeId, await launch(config, { size, seed: 7, chain }));
    }
    server = await startTestServer({
      ...options,
      venues: [...sims.values()].map((s) => s.adapter),
      chain: connectSandboxChain(chain, config),
      feeEscrow,
    });
  } catch (error) {
    await closeAll();
    throw error;
  }
  const markets = new Map<string, Market>();
  const events: MarketEvent[] = [];
  const marketsRepo = new MarketsRepo(server.runtime.store.db, server.runtime.store.dialect);
  const eventsRepo = new EventsRepo(server.runtime.store.db);
  const now = new Date().toISOString();
  for (const sim of sims.values()) {
    const walked = await walkVenue(sim.adapter);
    await marketsRepo.upsertMany(walked.markets, now);
    await eventsRepo.upsertMany(walked.events, now);
    for (const m of walked.markets) markets.set(m.svc_id, m);
    events.push(...walked.events);
  }
  return {
    server,
    chain,
    sims,
    markets,
    events,
    async stop() {
      await server.stop();
      await closeAll();
    },
  };
}
