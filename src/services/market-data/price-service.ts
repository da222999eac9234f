// GET /price: OHLCV candles of one outcome. The window (defaults per interval, the tier's history, at_ts) is
// decided here; the venue gives its price history as it has it (points, or its own shorter candles) and the one
// domain roll-up builds the interval's candles from it. Periods that start inside the window are answered; a
// venue without data answers no candles, never a guessed price.
import { type Static, Type } from 'typebox';
import { CANDLE_INTERVALS, Candle, CandleInterval } from '../../domain/book.js';
import {
  type CandlePeriod,
  INTERVAL_SECONDS,
  intervalPeriod,
  periodStart,
  rollUpSeries,
  windowPeriod,
} from '../../domain/candles.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { validationError } from '../../errors/app-error.js';
import type { CallerContext } from '../caller-context.js';
import { assertInTierWindow, clampToTierWindow } from './history-window.js';
import { MarketSelectorFields, type MarketTargets } from './market-target.js';

const DAY = 86_400;

/** Window when start_ts is absent (wire contract §3), before the tier's history window clamps it. */
export const DEFAULT_RANGE_S: Readonly<Record<CandleInterval, number>> = {
  '1m': DAY,
  '1h': 7 * DAY,
  '6h': 14 * DAY,
  '1d': 14 * DAY,
  '1w': 30 * DAY,
  max: 30 * DAY,
};

/** Candles one answer may hold: 1m over a week is 10,080; longer windows take a longer interval. */
export const MAX_CANDLES = 10_080;

export const PriceQuery = Type.Object(
  {
    ...MarketSelectorFields,
    interval: Type.Optional(
      Type.Enum(CANDLE_INTERVALS, {
        description:
          'Candle length (default 1h). Periods start on UTC boundaries; weeks on Monday 00:00 UTC. `max` is one ' +
          'candle over the whole window.',
      }),
    ),
    start_ts: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Unix seconds, inclusive: candles whose period starts at or after it. Default: end_ts minus 24 h (1m), ' +
          "7 d (1h), 14 d (6h, 1d) or 30 d (1w, max), clamped to the key's history window. Not with at_ts.",
      }),
    ),
    end_ts: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Unix seconds, inclusive; default now. Not with at_ts.' }),
    ),
    at_ts: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Unix seconds: the one candle covering this instant, or the closest one before it (looking back as far ' +
          'as the default range of the interval). Not with start_ts or end_ts.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PriceQuery = Static<typeof PriceQuery>;

export const PriceResponse = Type.Object({
  svc_id: Type.String(),
  exchange: ExchangeId,
  outcome: Type.String(),
  interval: CandleInterval,
  candles: Type.Array(Candle, { description: 'Oldest first; periods without data are absent, not filled' }),
});
export type PriceResponse = Static<typeof PriceResponse>;

export interface PriceWindow {
  startTs: number;
  endTs: number;
  /** The instant of an at_ts lookup, else null. */
  atTs: number | null;
}

/** The window a query asks for, by the rules of GET /price, for a caller at `nowS`. 400 for what breaks them. */
export function priceWindow(
  q: { interval: CandleInterval; start_ts?: number; end_ts?: number; at_ts?: number },
  caller: CallerContext,
  nowS: number,
): PriceWindow {
  const range = DEFAULT_RANGE_S[q.interval];
  if (q.at_ts !== undefined) {
    if (q.start_ts !== undefined || q.end_ts !== undefined) {
      throw validationError(['at_ts looks up one instant: send it without start_ts and end_ts']);
    }
    if (q.at_ts > nowS) throw validationError(['at_ts is in the future']);
    assertInTierWindow(q.at_ts, caller, nowS, 'at_ts');
    // The candle covering at_ts runs to the end of its period (if that has come).
    const end =
      q.interval === 'max'
        ? q.at_ts
        : Math.min(nowS, periodStart(q.at_ts, intervalPeriod(q.interval)) + INTERVAL_SECONDS[q.interval] - 1);
    return { startTs: clampToTierWindow(q.at_ts - range, caller, nowS), endTs: end, atTs: q.at_ts };
  }
  const endTs = Math.min(q.end_ts ?? nowS, nowS);
  let startTs: number;
  if (q.start_ts !== undefined) {
    assertInTierWindow(q.start_ts, caller, nowS, 'start_ts');
    startTs = q.start_ts;
    if (startTs > endTs) throw validationError(['start_ts must not be after end_ts (or now)']);
  } else {
    startTs = clampToTierWindow(endTs - range, caller, nowS);
    if (startTs > endTs) assertInTierWindow(endTs, caller, nowS, 'end_ts');
  }
  if (q.interval !== 'max' && (endTs - startTs) / INTERVAL_SECONDS[q.interval] > MAX_CANDLES) {
    throw validationError([
      `the window holds more than ${MAX_CANDLES} ${q.interval} candles: narrow it or take a longer interval`,
    ]);
  }
  return { startTs, endTs, atTs: null };
}

export class PriceService {
  constructor(
    private readonly targets: MarketTargets,
    /** Deadline of one venue call. */
    private readonly venueTimeoutMs: number,
    private readonly nowS: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async candles(q: PriceQuery, caller: CallerContext): Promise<PriceResponse> {
    const interval = q.interval ?? '1h';
    const window = priceWindow({ ...q, interval }, caller, this.nowS());
    const target = await this.targets.resolve(q, 'fetch_price_history', caller);
    const { venue, market, outcome } = target;
    const offered = venue.descriptor.features.candleIntervals;
    if (!offered.includes(interval)) {
      throw validationError([
        `${venue.descriptor.id} has no price history fine enough for ${interval} candles: interval must be one of ${offered.join(', ')}`,
      ]);
    }
    const fetchPriceHistory = venue.marketData.fetchPriceHistory;
    if (!fetchPriceHistory)
      throw new Error(`${venue.descriptor.id} declares fetch_price_history without a method`);
    const read = async (startTs: number, endTs: number): Promise<Candle[]> => {
      const series = await fetchPriceHistory.call(
        venue.marketData,
        { ...caller, signal: AbortSignal.timeout(this.venueTimeoutMs) },
        market,
        outcome.name,
        { interval, startTs, endTs },
      );
      const period: CandlePeriod =
        interval === 'max'
          ? windowPeriod(startTs, endTs, series.kind === 'candles' ? series.periodSeconds : null)
          : intervalPeriod(interval);
      return rollUpSeries(series, period).filter((c) => {
        const t = Date.parse(c.timestamp) / 1000;
        return t >= startTs && t <= endTs;
      });
    };
    let candles: Candle[];
    if (window.atTs === null) candles = await read(window.startTs, window.endTs);
    else {
      const at = window.atTs;
      // The covering period alone first: some venues thin their points out over longer spans (Limitless picks
      // the spacing from the range asked), so the covering candle is read as finely as a window query reads it.
      // Only when that period has no data does the lookback go further.
      const own = interval === 'max' ? null : periodStart(at, intervalPeriod(interval));
      const covering = own !== null && own >= window.startTs ? await read(own, window.endTs) : [];
      const before = covering.length > 0 ? covering : await read(window.startTs, window.endTs);
      const found = before.filter((c) => Date.parse(c.timestamp) / 1000 <= at).at(-1);
      candles = found ? [found] : [];
    }
    return { svc_id: market.svc_id, exchange: venue.descriptor.id, outcome: outcome.name, interval, candles };
  }
}
