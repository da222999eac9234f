// Which fee module computes a venue's taker fee from the parameters the venue publishes: a venue-level fact each
// descriptor states (features.takerFeeModel), read by everything that prices a taker leg net of its fee — the
// router (GET /route/quote, POST /route/orders), arbitrage (GET /arbitrage, POST /arbitrage/execute, the
// WebSocket channel) and the consolidated book's net prices. Null: the venue publishes a fee range but not the
// curve a market is charged on (Limitless, Opinion), so no net figure can be honest there. A venue with a model
// may still leave one market's fee unknown (a Kalshi series on its unpublished fee table): that is per market,
// seen in the schedule.

export const TAKER_FEE_MODELS = [
  /** fee = C × r × (p(1 − p))^e from the CLOB market's `fd` (src/domain/fees/polymarket.ts). */
  'polymarket_fee_curve',
  /** ceil(0.07 × multiplier × C × p × (1 − p)) to the cent, from the series' fee_multiplier (kalshi.ts). */
  'kalshi_fee_multiplier',
  /** The market's feeRateBps × min(p, 1 − p) × shares (predictfun.ts). */
  'predictfun_fee_rate_bps',
] as const;
export type TakerFeeModel = (typeof TAKER_FEE_MODELS)[number];
