// Each venue's taker fee computed here, in floating point, from its published formula and the parameters the
// simulator serves on the venue's own wire: an independent check of the decimal fee models in src/domain/fees/.
// (predict.fun's market document needs the simulator's random operator key, so its rate is read through the
// adapter, which only fetches it; the fee itself is computed here.)
import assert from 'node:assert/strict';
import type { Market } from '../../src/domain/market.js';
import { type CatalogueServer, venueContext } from './catalogue.js';

export type Fill = [price: number, size: number];
/** The taker fee of one order made of `fills`; null where the venue publishes no fee curve. */
export type FeeModel = (fills: readonly Fill[]) => number | null;

async function wire(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(url);
  assert.equal(res.status, 200, `${url}: ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

export async function feeModelOf(cat: CatalogueServer, market: Market): Promise<FeeModel> {
  const sim = cat.sims.get(market.exchange);
  assert.ok(sim, market.exchange);
  switch (market.exchange) {
    case 'polymarket': {
      const info = await wire(`${sim.control}/clob-markets/${market.exchange_market_id}`);
      const fd = info.fd as { r?: number; e?: number } | undefined;
      const r = fd?.r ?? 0;
      const e = fd?.e ?? 0;
      return (fills) =>
        fills.reduce((sum, [p, s]) => sum + Math.round(s * r * (p * (1 - p)) ** e * 1e5) / 1e5, 0);
    }
    case 'kalshi': {
      const api = `${sim.control}/trade-api/v2`;
      const { event } = (await wire(`${api}/events/${market.exchange_group_id}`)) as {
        event: { series_ticker: string };
      };
      const { series } = (await wire(`${api}/series/${event.series_ticker}`)) as {
        series: { fee_type: string; fee_multiplier: number };
      };
      if (!series.fee_type.startsWith('quadratic')) return () => null;
      return (fills) => {
        const raw = fills.reduce((sum, [p, s]) => sum + 0.07 * series.fee_multiplier * s * p * (1 - p), 0);
        // Up to the cent, after cutting float noise below 1e-8.
        return Math.ceil(Math.round(raw * 1e8) / 1e6) / 100;
      };
    }
    case 'predictfun': {
      const schedule = await sim.adapter.marketData.fetchFeeSchedule?.(venueContext(), market, 'Yes');
      assert.ok(schedule?.venue === 'predictfun');
      if (schedule.feeRateBps === null) return () => null;
      const bps = Number(schedule.feeRateBps);
      return (fills) => fills.reduce((sum, [p, s]) => sum + (bps / 10_000) * Math.min(p, 1 - p) * s, 0);
    }
    default:
      return () => null;
  }
}
