// The exchange's own fills of a paired execution's legs, read from the simulators through the venue adapters with
// the account's session (not through the server): what a leg's realised figures and the execution's realised edge
// are recomputed from, and the fee each fill was charged checked against the venue's published formula.
import assert from 'node:assert/strict';
import type { ExchangeId } from '../../src/domain/exchanges.js';
import type { Fill } from '../../src/domain/trading.js';
import type { VenueSession } from '../../src/venues/port.js';
import { type CatalogueServer, venueContext } from './catalogue.js';
import type { FeeModel } from './fee-models.js';

interface LegLike {
  exchange: ExchangeId;
  svc_id: string;
  order: { id: string; filled: number } | null;
  figures: {
    realised: { fills: number; avg_price: number | null; notional: number; fee: number | null } | null;
  };
}

interface ExecutionLike {
  hedged: number;
  legs: LegLike[];
  realised_edge: number | null;
  realised_fees: number | null;
}

const near = (a: number, b: number, eps = 1e-6) => Math.abs(a - b) <= eps;

/** A leg's fills at its exchange (none when it filled nothing). */
export async function legFills(cat: CatalogueServer, session: VenueSession, leg: LegLike): Promise<Fill[]> {
  if (!leg.order || !(leg.order.filled > 0)) return [];
  const adapter = cat.sims.get(leg.exchange)?.adapter;
  assert.ok(adapter?.trading.fetchFills, leg.exchange);
  const marketId = leg.svc_id.slice(leg.svc_id.indexOf(':') + 1);
  const all = await adapter.trading.fetchFills(venueContext(), session, marketId, 500);
  const id = leg.order.id.toLowerCase();
  return all.filter((f) => f.order_id.toLowerCase() === id);
}

/**
 * Checks each leg's realised figures and the execution's realised fees and edge against the legs' fills at the
 * exchanges: notional Σ price × size, fee Σ charged (each leg's within a cent of its venue's formula on those
 * fills), edge = hedged − (first leg's cost per contract × hedged + the second leg's cost).
 */
export async function checkRealised(
  cat: CatalogueServer,
  sessionOf: (exchange: ExchangeId) => VenueSession,
  feeOf: (leg: LegLike) => FeeModel,
  got: ExecutionLike,
): Promise<void> {
  const real = [];
  for (const leg of got.legs) {
    const fills = await legFills(cat, sessionOf(leg.exchange), leg);
    const size = fills.reduce((s, f) => s + f.size, 0);
    assert.ok(near(size, leg.order?.filled ?? 0), `${leg.exchange}: the fills add up to what the leg filled`);
    const notional = fills.reduce((s, f) => s + f.price * f.size, 0);
    const fee = fills.reduce((s, f) => s + (f.fee ?? Number.NaN), 0);
    const r = leg.figures.realised;
    assert.ok(r, `${leg.exchange}: realised figures`);
    assert.equal(r.fills, fills.length);
    assert.ok(near(r.notional, notional), `${leg.exchange} realised notional ${r.notional} vs ${notional}`);
    assert.ok(
      near(r.fee ?? Number.NaN, fills.length === 0 ? 0 : fee),
      `${leg.exchange} fee ${r.fee} vs ${fee}`,
    );
    if (fills.length > 0) {
      assert.ok(near(r.avg_price ?? Number.NaN, notional / size), 'realised average price');
      const formula = feeOf(leg)(fills.map((f) => [f.price, f.size]));
      assert.ok(
        formula !== null && Math.abs(formula - fee) <= 0.01 + 1e-9,
        `${leg.exchange}: charged ${fee}, its formula ${formula}`,
      );
    }
    real.push({ size, notional, fee: fills.length === 0 ? 0 : fee });
  }
  const [r1, r2] = real;
  assert.ok(r1);
  assert.ok(
    near(
      got.realised_fees ?? Number.NaN,
      real.reduce((s, r) => s + r.fee, 0),
    ),
    'realised fees',
  );
  const per = r1.size > 0 ? (r1.notional + r1.fee) / r1.size : 0;
  const hedged = Math.min(r2?.size ?? 0, r1.size);
  assert.ok(near(got.hedged, hedged));
  const edge = hedged - (per * hedged + (r2 ? r2.notional + r2.fee : 0));
  assert.ok(
    near(got.realised_edge ?? Number.NaN, edge, 1e-5),
    `realised edge ${got.realised_edge} vs ${edge}`,
  );
}
