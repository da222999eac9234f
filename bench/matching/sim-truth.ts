// Ground truth from the simulators' shared world: every venue's /__sim/manifest maps a proposition key to its
// native ids, and the world (rebuilt from the same seed and size) says what each proposition is. same_market:
// one key on two exchanges, unless the two venues' rules name different price indices (CRYPTO_SETTLEMENT_INDEX:
// Kalshi's BRTI, Polymarket's Binance), which is co_dependent. co_dependent: options of one multi-option proposition (mutually exclusive); Fed
// decisions at one meeting with different amounts (mutually exclusive); crypto and temperature lines on one
// subject and day (nested thresholds) — recall for those is measured on nearest rungs per exchange, the links the
// engine promises; any other pair in the ladder is still a correct link.

import { CRYPTO_SETTLEMENT_INDEX, type Proposition, type World } from '../../sim/shared/world.js';
import type { ExchangeId } from '../../src/domain/exchanges.js';
import { pairKey, type Truth } from './metrics.js';

export type Manifests = ReadonlyMap<ExchangeId, Record<string, string[]>>;

interface Listed {
  svcId: string;
  exchange: ExchangeId;
  prop: Proposition;
  option: string | null;
}

/** `present`: the svc_ids the catalogue really holds (a venue may not list closed markets); others are left out. */
export function simTruth(
  world: World,
  manifests: Manifests,
  present: ReadonlySet<string>,
): { truth: Truth; universe: Set<string> } {
  const props = new Map(world.propositions.map((p) => [p.id, p]));
  const listed: Listed[] = [];
  for (const [exchange, manifest] of manifests) {
    for (const [key, natives] of Object.entries(manifest)) {
      const slash = key.indexOf('/');
      const prop = props.get(slash < 0 ? key : key.slice(0, slash));
      if (!prop) continue;
      for (const native of natives) {
        if (!present.has(`${exchange}:${native}`)) continue;
        listed.push({
          svcId: `${exchange}:${native}`,
          exchange,
          prop,
          option: slash < 0 ? null : key.slice(slash + 1),
        });
      }
    }
  }
  // Twins: two propositions that say exactly the same thing (a small world draws some by chance). No text can
  // tell which of them a market is, so pairs across twins are left out of both precision and recall.
  const signature = (p: Proposition) =>
    `${p.topic}|${p.subject}|${p.condition}|${p.closeTime.toISOString().slice(0, 10)}`;
  const bySignature = new Map<string, number>();
  for (const p of world.propositions) bySignature.set(signature(p), (bySignature.get(signature(p)) ?? 0) + 1);
  const twinned = (p: Proposition) => (bySignature.get(signature(p)) ?? 0) > 1;
  const ambiguous = new Set<string>();
  for (const x of listed) {
    if (!twinned(x.prop)) continue;
    for (const y of listed)
      if (y !== x && signature(y.prop) === signature(x.prop)) ambiguous.add(pairKey(x.svcId, y.svcId));
  }
  const pairs = new Map<string, 'same_market' | 'co_dependent'>();
  const recallPairs = new Map<string, 'same_market' | 'co_dependent'>();
  const byProp = new Map<string, Listed[]>();
  for (const l of listed) {
    const list = byProp.get(l.prop.id) ?? [];
    list.push(l);
    byProp.set(l.prop.id, list);
  }
  // same_market and option exclusivity within one proposition.
  for (const list of byProp.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const x = list[i] as Listed;
        const y = list[j] as Listed;
        const key = pairKey(x.svcId, y.svcId);
        if (x.option === y.option) {
          if (x.exchange !== y.exchange) {
            const relation = indicesDiffer(x, y) ? 'co_dependent' : 'same_market';
            pairs.set(key, relation);
            recallPairs.set(key, relation);
          }
        } else if (x.option !== null && y.option !== null) {
          pairs.set(key, 'co_dependent');
          recallPairs.set(key, 'co_dependent');
        }
      }
    }
  }
  // Ladders: same topic and subject, same close day.
  const ladders = new Map<string, Listed[]>();
  for (const l of listed) {
    if (l.prop.threshold === null || l.prop.topic === 'politics' || l.prop.topic === 'sports') continue;
    const key = `${l.prop.topic}|${l.prop.subject}|${l.prop.closeTime.toISOString().slice(0, 10)}`;
    const list = ladders.get(key) ?? [];
    list.push(l);
    ladders.set(key, list);
  }
  for (const list of ladders.values()) {
    const exclusive = list[0]?.prop.topic === 'economics';
    for (const x of list) {
      for (const y of list) {
        if (x.svcId >= y.svcId || x.prop.threshold === y.prop.threshold) continue;
        pairs.set(pairKey(x.svcId, y.svcId), 'co_dependent');
        if (exclusive) recallPairs.set(pairKey(x.svcId, y.svcId), 'co_dependent');
      }
      if (exclusive) continue;
      // Nearest rung below and above on each exchange.
      const value = x.prop.threshold as number;
      const best = new Map<string, { below: number | null; above: number | null }>();
      for (const y of list) {
        const v = y.prop.threshold as number;
        if (v === value) continue;
        const b = best.get(y.exchange) ?? { below: null, above: null };
        if (v < value && (b.below === null || v > b.below)) b.below = v;
        if (v > value && (b.above === null || v < b.above)) b.above = v;
        best.set(y.exchange, b);
      }
      for (const y of list) {
        const b = best.get(y.exchange);
        const v = y.prop.threshold as number;
        if (b && (v === b.below || v === b.above)) recallPairs.set(pairKey(x.svcId, y.svcId), 'co_dependent');
      }
    }
  }
  for (const key of ambiguous) recallPairs.delete(key);
  return { truth: { pairs, recallPairs, ambiguous }, universe: new Set(listed.map((l) => l.svcId)) };
}

/** Both venues' rules name a settlement index for this proposition, and not the same one. */
function indicesDiffer(x: Listed, y: Listed): boolean {
  if (x.prop.topic !== 'crypto') return false;
  const ix = CRYPTO_SETTLEMENT_INDEX[x.exchange];
  const iy = CRYPTO_SETTLEMENT_INDEX[y.exchange];
  return ix !== undefined && iy !== undefined && ix !== iy;
}
