// What a link's confidence and tier mean. Confidence starts from how much of the event's wording two markets
// share (an IDF-weighted cosine of their content tokens, 0..1) and each independent structured agreement removes
// part of the remaining doubt (a noisy-OR): a shared named entity, the same day, the same threshold, the same
// option. So 0.9 means "every field we can read agrees and the wording says the same thing"; a link that rests on
// wording alone cannot get past the text similarity it has.
//
//   HIGH   ≥ 0.90  every field read on both sides agrees: same entity or near-identical wording, same day (or
//                  month refined by the rules), same threshold and comparator, same option. Safe to act on.
//   MEDIUM ≥ 0.75  no field disagrees, but one is coarse or missing on one side (a month, only an end date, an
//                  option named on one side only). Check the rules before trading both as one.
//   LOW    ≥ 0.60  no contradiction, mostly wording. A lead, not an answer.
//
// Links below PUBLISH_THRESHOLD are never written. A hard contradiction (another day, threshold, comparator,
// option, entity or time of day) is not a low score: the pair is no same_market candidate at all.

export type ConfidenceTier = 'HIGH' | 'MEDIUM' | 'LOW';

export const TIER_HIGH = 0.9;
export const TIER_MEDIUM = 0.75;
export const PUBLISH_THRESHOLD = 0.6;

/** Tiers in order, for `matching.minTier` comparisons: LOW 0, MEDIUM 1, HIGH 2. */
export function tierRank(tier: ConfidenceTier): number {
  return tier === 'HIGH' ? 2 : tier === 'MEDIUM' ? 1 : 0;
}

export function tierOf(confidence: number): ConfidenceTier {
  if (confidence >= TIER_HIGH) return 'HIGH';
  if (confidence >= TIER_MEDIUM) return 'MEDIUM';
  return 'LOW';
}

/** Factors a structured agreement multiplies the remaining doubt by (smaller = stronger evidence). */
export const DOUBT = {
  sharedEntity: 0.5,
  sameDay: 0.4,
  sameMonth: 0.7,
  endDateOnly: 0.8,
  sameYear: 0.9,
  sameThreshold: 0.5,
  orderedThresholds: 0.7,
  sameOption: 0.6,
} as const;

/** Factors a weakness multiplies the confidence itself by. */
export const PENALTY = {
  optionOneSided: 0.85,
  dateMissingOneSide: 0.8,
  noDates: 0.9,
  /**
   * A day apart with one side's date only its end date, the closes under 24 h apart (compare.ts refuses wider):
   * never better than MEDIUM (venues close hours apart by convention, but hard negatives sit a day away).
   */
  endDateNear: 0.85,
} as const;

/** Identical wording alone leaves this much doubt, so structured agreement still ranks candidates. */
const WORDING_CEILING = 0.9;

/** Confidence from a text similarity and the doubt factors of the agreements found; 3 decimals. */
export function combine(similarity: number, doubts: readonly number[], penalties: readonly number[]): number {
  let residual = 1 - WORDING_CEILING * Math.max(0, Math.min(1, similarity));
  for (const d of doubts) residual *= d;
  let c = 1 - residual;
  for (const p of penalties) c *= p;
  return Math.floor(Math.max(0, Math.min(1, c)) * 10000) / 10000;
}
