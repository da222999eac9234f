// An engine link as the two stored rows the catalogue serves: one from each market, so `matched_markets` and
// `related_markets` show the link on both sides, with the dependency direction read from each side.
import { mirror } from '../../domain/matching/compare.js';
import type { LinkInput } from '../../store/links-repo.js';
import type { EngineLink } from './match-engine.js';

export function* toLinkRows(links: Iterable<EngineLink>): Generator<LinkInput> {
  for (const l of links) {
    const shared = {
      kind: l.relation,
      confidence: l.confidence,
      confidence_tier: l.tier,
      source: l.source,
      dependency_type: l.dependencyType,
      evidence: l.evidence,
    } as const;
    yield { ...shared, svc_id: l.a, linked_svc_id: l.b, dependency_direction: l.direction };
    yield { ...shared, svc_id: l.b, linked_svc_id: l.a, dependency_direction: mirror(l.direction) };
  }
}
