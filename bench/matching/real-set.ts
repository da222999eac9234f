// The hand-labelled set of real markets (test/fixtures/matching/, provenance in its README): markets as our
// adapters shape them and the links that truly hold among them; every pair not labelled is known unlinked.
import { readFileSync } from 'node:fs';
import type { MatchInput } from '../../src/domain/matching/features.js';
import { pairKey, type Truth, type TruthRelation } from './metrics.js';

const DIR = new URL('../../test/fixtures/matching/', import.meta.url);

function lines<T>(name: string): T[] {
  return readFileSync(new URL(name, DIR), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

export function realSet(): { markets: MatchInput[]; truth: Truth; universe: Set<string> } {
  const markets = lines<MatchInput>('real-markets.jsonl');
  const pairs = new Map<string, TruthRelation>();
  // `unclear`: a pair whose link the labeller could not decide from the text (counted neither right nor wrong).
  const ambiguous = new Set<string>();
  for (const l of lines<{ a: string; b: string; relation: TruthRelation | 'unclear' }>('real-labels.jsonl')) {
    if (l.relation === 'unclear') ambiguous.add(pairKey(l.a, l.b));
    else pairs.set(pairKey(l.a, l.b), l.relation);
  }
  return {
    markets,
    truth: { pairs, recallPairs: pairs, ambiguous },
    universe: new Set(markets.map((m) => m.svc_id)),
  };
}
