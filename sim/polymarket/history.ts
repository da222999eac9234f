// GET /prices-history: a token's price as {t, p} points. Before the simulation started the series is the house's
// fair value one hour per step back in time; afterwards it follows the steps the simulator advanced. `interval`
// (1h, 6h, 1d, 1w, 1m = one month, max) and startTs/endTs are mutually exclusive; fidelity is minutes per point.
import type { PmMarket } from './catalogue.js';
import type { Exchange } from './exchange.js';
import { fairAt } from './house.js';

// A Map: `interval` is a query parameter, and `constructor` or `__proto__` must be invalid, not Object's.
const INTERVALS: ReadonlyMap<string, { seconds: number | null; fidelity: number }> = new Map([
  ['1h', { seconds: 3600, fidelity: 1 }],
  ['6h', { seconds: 6 * 3600, fidelity: 5 }],
  ['1d', { seconds: 86_400, fidelity: 15 }],
  ['1w', { seconds: 7 * 86_400, fidelity: 60 }],
  ['1m', { seconds: 30 * 86_400, fidelity: 180 }],
  ['max', { seconds: null, fidelity: 1440 }],
]);

export const MAX_POINTS = 5000;

export type HistoryRequest =
  | { ok: true; start: number; end: number; fidelity: number }
  | { ok: false; error: string };

export function parseHistoryQuery(query: URLSearchParams, nowS: number, openS: number): HistoryRequest {
  const interval = query.get('interval');
  const startTs = query.get('startTs');
  const endTs = query.get('endTs');
  const fidelityText = query.get('fidelity');
  if (fidelityText !== null && !/^\d{1,6}$/.test(fidelityText))
    return { ok: false, error: 'invalid fidelity' };
  const fidelity = fidelityText === null ? null : Math.max(1, Number(fidelityText));
  if (interval !== null) {
    if (startTs !== null || endTs !== null) {
      return { ok: false, error: 'interval and startTs/endTs are mutually exclusive' };
    }
    const spec = INTERVALS.get(interval);
    if (!spec) return { ok: false, error: `invalid interval: ${interval}` };
    const start = spec.seconds === null ? openS : nowS - spec.seconds;
    return { ok: true, start, end: nowS, fidelity: fidelity ?? spec.fidelity };
  }
  if (startTs === null && endTs === null)
    return { ok: false, error: 'either interval or startTs and endTs are required' };
  if ((startTs !== null && !/^\d{1,12}$/.test(startTs)) || (endTs !== null && !/^\d{1,12}$/.test(endTs))) {
    return { ok: false, error: 'invalid startTs or endTs' };
  }
  const start = startTs === null ? openS : Number(startTs);
  const end = endTs === null ? nowS : Number(endTs);
  if (end < start) return { ok: false, error: 'endTs must not be before startTs' };
  return { ok: true, start, end, fidelity: fidelity ?? 60 };
}

/** YES price at a unix second. */
function yesAt(m: PmMarket, exchange: Exchange, t: number): number {
  const startS = exchange.stepTime(0) / 1000;
  let step: number;
  if (t < startS) {
    step = -Math.ceil((startS - t) / 3600);
  } else {
    // Last step taken at or before t (step times only grow, so binary search).
    let lo = 0;
    let hi = exchange.step;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (exchange.stepTime(mid) / 1000 <= t) lo = mid;
      else hi = mid - 1;
    }
    step = lo;
  }
  return fairAt(m, step);
}

export function priceHistory(
  m: PmMarket,
  outcome: 0 | 1,
  exchange: Exchange,
  req: { start: number; end: number; fidelity: number },
): Array<{ t: number; p: number }> {
  const openS = Math.floor(m.event.opened.getTime() / 1000);
  const closeS = Math.floor(m.prop.closeTime.getTime() / 1000);
  const from = Math.max(req.start, openS);
  const to = m.status === 'active' ? req.end : Math.min(req.end, closeS);
  if (to < from) return [];
  let stepS = req.fidelity * 60;
  if ((to - from) / stepS > MAX_POINTS) stepS = Math.ceil((to - from) / MAX_POINTS);
  const points: Array<{ t: number; p: number }> = [];
  for (let t = Math.ceil(from / stepS) * stepS; t <= to; t += stepS) {
    const yes = yesAt(m, exchange, t);
    const p = outcome === 0 ? yes : 1 - yes;
    points.push({ t, p: Math.round(p * 1000) / 1000 });
  }
  return points;
}
