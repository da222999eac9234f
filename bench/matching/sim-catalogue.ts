// The five simulators' catalogues, walked through their real adapters exactly as a sync pass walks them, with each
// simulator's /__sim/manifest: the sandbox world the evaluation scores the engine on.
import { SIM_VENUE_LAUNCHERS } from '../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../src/config/load.js';
import type { ExchangeId } from '../../src/domain/exchanges.js';
import type { Market } from '../../src/domain/market.js';
import { walkVenue } from '../../test/support/catalogue.js';

export async function simCatalogue(
  size: number,
  seed: number,
): Promise<{ markets: Market[]; manifests: Map<ExchangeId, Record<string, string[]>> }> {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  const markets: Market[] = [];
  const manifests = new Map<ExchangeId, Record<string, string[]>>();
  for (const [id, launch] of Object.entries(SIM_VENUE_LAUNCHERS)) {
    if (!launch) continue;
    const sim = await launch(config, { size, seed });
    try {
      markets.push(...(await walkVenue(sim.adapter)).markets);
      const res = await fetch(`${sim.control}/__sim/manifest`);
      manifests.set(id as ExchangeId, (await res.json()) as Record<string, string[]>);
    } finally {
      await sim.close();
    }
  }
  return { markets, manifests };
}
