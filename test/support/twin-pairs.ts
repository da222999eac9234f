// What the cross-venue HTTP tests (route orders, paired execution, and their fault paths) share: the sandbox's
// polymarket propositions with an active HIGH kalshi twin, a book read through GET /orderbook, and the independent
// walk of a book's levels every figure is recomputed from.
import assert from 'node:assert/strict';
import type { Market } from '../../src/domain/market.js';
import type { LinksRepo } from '../../src/store/links-repo.js';
import type { CatalogueServer } from './catalogue.js';

export type Level = [number, number];
export interface TwinPair {
  poly: Market;
  kalshi: Market;
}

/**
 * The n-th active polymarket market (by svc_id) with an active HIGH kalshi twin; listed once, on first use. With
 * `reuse`, n wraps around the list (a test that reads its books afresh may share a pair with another).
 */
export function twinPairs(
  cat: () => CatalogueServer,
  links: () => LinksRepo,
  options: { reuse?: boolean } = {},
): (n: number) => Promise<TwinPair> {
  let list: TwinPair[] | null = null;
  return async (n) => {
    if (!list) {
      list = [];
      for (const m of [...cat().markets.values()].sort((a, b) => (a.svc_id < b.svc_id ? -1 : 1))) {
        if (m.exchange !== 'polymarket' || m.status !== 'active' || !m.outcomes.every((o) => o.token_id))
          continue;
        const k = (await links().twins(m.svc_id)).find(
          (l) => l.status === 'active' && l.confidence_tier === 'HIGH' && l.exchange === 'kalshi',
        );
        if (k) list.push({ poly: m, kalshi: cat().markets.get(k.svc_id) as Market });
      }
    }
    const p = list[options.reuse && list.length > 0 ? n % list.length : n];
    assert.ok(p, `the world lists at least ${n + 1} propositions on polymarket and kalshi`);
    return p;
  };
}

/** One outcome's book as GET /orderbook serves it (100 levels). */
export async function orderbookOf(
  cat: CatalogueServer,
  m: Market,
  outcome: string,
): Promise<{ bids: Level[]; asks: Level[] }> {
  const res = await cat.server.request(
    `/api/v1/orderbook?svc_id=${encodeURIComponent(m.svc_id)}&outcome=${outcome}&limit=100`,
  );
  assert.equal(res.status, 200, res.text);
  return res.body as { bids: Level[]; asks: Level[] };
}

/** Takes `amount` from the levels best first, in whole micro-units: the fills, what filled and its cost. */
export function walkLevels(levels: Level[], amount: number) {
  let left = Math.round(amount * 1e6);
  const fills: Level[] = [];
  let cost = 0;
  for (const [p, s] of levels) {
    if (left <= 0) break;
    const take = Math.min(Math.round(s * 1e6), left);
    fills.push([p, take / 1e6]);
    cost += p * (take / 1e6);
    left -= take;
  }
  return { fills, filled: Math.round(amount * 1e6 - left) / 1e6, cost };
}

export const close = (a: number, b: number, eps = 1e-6) => Math.abs(a - b) <= eps;
