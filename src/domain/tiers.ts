// Service tiers of the wire contract (§1). 0 means unlimited for monthly requests and history age.
export const TIER_NAMES = ['free', 'pro', 'scale', 'admin'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface TierLimits {
  restQps: number;
  restQpsBurst: number;
  monthlyRequests: number;
  historyMaxAgeDays: number;
  wsMaxSubscriptions: number;
  wsMaxDepth: number;
  /**
   * On-demand venue lookups (markets the catalogue does not hold, asked of their exchange): a token bucket per
   * customer, refilled at this many a second up to the burst. 0 = unlimited.
   */
  venueLookupsPerSecond: number;
  venueLookupsBurst: number;
  globalStats: boolean;
}

const scale: TierLimits = {
  restQps: 200,
  restQpsBurst: 400,
  monthlyRequests: 0,
  historyMaxAgeDays: 0,
  wsMaxSubscriptions: 2_000,
  wsMaxDepth: 100,
  venueLookupsPerSecond: 20,
  venueLookupsBurst: 200,
  globalStats: false,
};

export const TIERS: Readonly<Record<TierName, Readonly<TierLimits>>> = Object.freeze({
  free: {
    restQps: 10,
    restQpsBurst: 10,
    monthlyRequests: 50_000,
    historyMaxAgeDays: 5,
    wsMaxSubscriptions: 5,
    wsMaxDepth: 10,
    venueLookupsPerSecond: 1,
    venueLookupsBurst: 10,
    globalStats: false,
  },
  pro: {
    restQps: 60,
    restQpsBurst: 120,
    monthlyRequests: 5_000_000,
    historyMaxAgeDays: 30,
    wsMaxSubscriptions: 500,
    wsMaxDepth: 100,
    venueLookupsPerSecond: 5,
    venueLookupsBurst: 50,
    globalStats: false,
  },
  scale,
  // The operator's own keys: their lookups are the operator's to spend.
  admin: { ...scale, venueLookupsPerSecond: 0, venueLookupsBurst: 0, globalStats: true },
});

export function isTierName(value: unknown): value is TierName {
  return typeof value === 'string' && (TIER_NAMES as readonly string[]).includes(value);
}

/**
 * The highest tier a builder key or a builder's end-user may hold: its own, short of admin. Key administration is
 * the operator's; a builder hands its tier down to end-users it creates at will, so admin must never be in reach.
 */
export function withoutAdmin(tier: TierName): TierName {
  return tier === 'admin' ? 'scale' : tier;
}
