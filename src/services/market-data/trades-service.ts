// GET /trades: one outcome's public trades, newest first, a page at a time. The window is held to the caller's
// tier; the venue pages its own way (its cursor, offsets, page numbers or keysets) behind the adapter, and the
// adapter's position travels inside our opaque cursor, bound to the query it belongs to.
import { type Static, Type } from 'typebox';
import { Trade } from '../../domain/book.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { validationError } from '../../errors/app-error.js';
import type { CallerContext } from '../caller-context.js';
import { decodeCursor, encodeCursor, queryFingerprint } from '../catalogue/list-cursor.js';
import { assertInTierWindow, tierWindowStart } from './history-window.js';
import { MarketSelectorFields, type MarketTargets } from './market-target.js';

export const TRADES_LIMIT_DEFAULT = 200;
export const TRADES_LIMIT_MAX = 500;

export const TradesQuery = Type.Object(
  {
    ...MarketSelectorFields,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: TRADES_LIMIT_MAX,
        description: `Trades per page, 1 to ${TRADES_LIMIT_MAX} (default ${TRADES_LIMIT_DEFAULT})`,
      }),
    ),
    start_ts: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Unix seconds, inclusive; default the start of the key's history window (unlimited: none)",
      }),
    ),
    end_ts: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Unix seconds, inclusive (the whole second); default now' }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 16_384,
        description: 'next_cursor of the previous page, with the same selector, outcome, start_ts and end_ts',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TradesQuery = Static<typeof TradesQuery>;

const { properties: trade } = Trade;

export const MarketTrade = Type.Object({
  id: trade.id,
  price: trade.price,
  size: Type.Number({ description: 'Contracts (shares)' }),
  side: trade.side,
  aggressor_side: trade.aggressor_side,
  timestamp: trade.timestamp,
  source_channel: Type.String({
    description: 'The venue feed the trade was read from, e.g. kalshi_rest_trades',
  }),
  outcome: trade.outcome,
  tx_hash: trade.tx_hash,
  taker_address: trade.taker_address,
});
export type MarketTrade = Static<typeof MarketTrade>;

export const TradesResponse = Type.Object({
  svc_id: Type.String(),
  exchange: ExchangeId,
  market_id: Type.String(),
  outcome: Type.String(),
  token_id: Type.String(),
  trades: Type.Array(MarketTrade, { description: 'Newest first' }),
  has_more: Type.Boolean(),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass back as cursor; null on the last page',
  }),
});
export type TradesResponse = Static<typeof TradesResponse>;

export class TradesService {
  constructor(
    private readonly targets: MarketTargets,
    /** Deadline of one venue call. */
    private readonly venueTimeoutMs: number,
    private readonly nowS: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async page(q: TradesQuery, caller: CallerContext): Promise<TradesResponse> {
    const nowS = this.nowS();
    if (q.start_ts !== undefined) assertInTierWindow(q.start_ts, caller, nowS, 'start_ts');
    if (q.start_ts !== undefined && q.end_ts !== undefined && q.start_ts > q.end_ts) {
      throw validationError(['start_ts must not be after end_ts']);
    }
    const startTs = q.start_ts ?? tierWindowStart(caller, nowS);
    if (q.start_ts === undefined && q.end_ts !== undefined)
      assertInTierWindow(q.end_ts, caller, nowS, 'end_ts');
    const target = await this.targets.resolve(q, 'fetch_trades', caller);
    const { venue, market, outcome } = target;
    const fingerprint = queryFingerprint([
      'trades',
      market.svc_id,
      outcome.token_id,
      q.start_ts ?? null,
      q.end_ts ?? null,
    ]);
    let venueCursor: string | null = null;
    if (q.cursor !== undefined) {
      const [position] = decodeCursor(q.cursor, fingerprint, 1);
      if (typeof position !== 'string') throw validationError(['cursor is not a cursor this server issued']);
      venueCursor = position;
    }
    const fetchTrades = venue.marketData.fetchTrades;
    if (!fetchTrades) throw new Error(`${venue.descriptor.id} declares fetch_trades without a method`);
    const page = await fetchTrades.call(
      venue.marketData,
      { ...caller, signal: AbortSignal.timeout(this.venueTimeoutMs) },
      market,
      outcome.name,
      { limit: q.limit ?? TRADES_LIMIT_DEFAULT, startTs, endTs: q.end_ts ?? null, cursor: venueCursor },
    );
    return {
      svc_id: market.svc_id,
      exchange: venue.descriptor.id,
      market_id: market.exchange_market_id,
      outcome: outcome.name,
      token_id: outcome.token_id,
      trades: page.trades.map((t) => ({
        id: t.id,
        price: t.price,
        size: t.size,
        side: t.side,
        aggressor_side: t.aggressor_side,
        timestamp: t.timestamp,
        source_channel: page.sourceChannel,
        outcome: outcome.name,
        ...(t.tx_hash !== undefined ? { tx_hash: t.tx_hash } : {}),
        ...(t.taker_address !== undefined ? { taker_address: t.taker_address } : {}),
      })),
      has_more: page.cursor !== null,
      next_cursor: page.cursor === null ? null : encodeCursor(fingerprint, [page.cursor]),
    };
  }
}
