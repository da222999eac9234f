// The builder program's revenue tiers (spec §8: Iron, Bronze, Silver, Gold, Platinum). Their shares are
// configuration (config `builder.tiers`); this names them once for the config schema and the API's enums.
export const BUILDER_TIER_NAMES = ['iron', 'bronze', 'silver', 'gold', 'platinum'] as const;
export type BuilderTierName = (typeof BUILDER_TIER_NAMES)[number];

export function isBuilderTierName(value: unknown): value is BuilderTierName {
  return typeof value === 'string' && (BUILDER_TIER_NAMES as readonly string[]).includes(value);
}
