// An engine link as the two stored rows the catalogue serves: one from each market, so `matched_markets` and
// `related_markets` show the link on both sides, with the dependency direction read from each side.
import { mirror } from '../../domain/matching/compare.js';
import { type ConfidenceTier, tierRank } from '../../domain/matching/confidence.js';
import { mirrorCheck } from '../../domain/matching/resolution.js';
import type { LinkInput } from '../../store/links-repo.js';
import type { EngineLink } from './match-engine.js';

/**
 * `minTier`: links of a lower tier are stored unpublished (kept for audit, never served), since a tier measured
 * below 0.95 precision on a real set is not one to show by default (matching.minTier).
 */
export function* toLinkRows(
  links: Iterable<EngineLink>,
  minTier: ConfidenceTier = 'LOW',
): Generator<LinkInput> {
  for (const l of links) {
    const published = tierRank(l.tier) >= tierRank(minTier);
    const shared = {
      kind: l.relation,
      confidence: l.confidence,
      confidence_tier: l.tier,
      source: l.source,
      dependency_type: l.dependencyType,
      evidence: l.evidence,
      published,
    } as const;
    const check = l.resolution ?? null;
    yield {
      ...shared,
      svc_id: l.a,
      linked_svc_id: l.b,
      dependency_direction: l.direction,
      resolution_check: check,
    };
    yield {
      ...shared,
      svc_id: l.b,
      linked_svc_id: l.a,
      dependency_direction: mirror(l.direction),
      resolution_check: check && mirrorCheck(check),
    };
  }
}
