// GET /orderbook/consolidated: one bet's book across the venues that list it. The selected outcome's live book and
// each published twin's (see twins.ts), read exactly as GET /orderbook reads them, merged best first; every level
// names its venue and carries its price net of that venue's taker fee (the fee models GET /execution-price uses).
// A venue that fails is listed with its error and left out of the levels; only when every venue fails is the
// answer a 503.
import { type Static, Type } from 'typebox';
import { levelsFromBook } from '../../domain/book-walk.js';
import { consolidateSide, type VenueSide } from '../../domain/crossvenue/consolidated-book.js';
import type { Decimal } from '../../domain/decimal.js';
import { ExchangeId } from '../../domain/exchanges.js';
import { feeFor } from '../../domain/fees/fee-for.js';
import type { FeeSchedule } from '../../domain/fees/schedule.js';
import { AppError, validationError } from '../../errors/app-error.js';
import type { CallerContext } from '../caller-context.js';
import type { ExecutionPriceService } from '../market-data/execution-price-service.js';
import { MarketSelectorFields, type MarketTarget } from '../market-data/market-target.js';
import {
  LIVE_DEPTH_DEFAULT,
  LIVE_DEPTH_MAX,
  type OrderbookService,
} from '../market-data/orderbook-service.js';
import { failed, MinTier, type Twins, VenueError } from './twins.js';

export const ConsolidatedOrderbookQuery = Type.Object(
  {
    ...MarketSelectorFields,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIVE_DEPTH_MAX,
        description: `Merged price levels per side (default ${LIVE_DEPTH_DEFAULT})`,
      }),
    ),
    min_tier: Type.Optional(MinTier),
  },
  { additionalProperties: false },
);
export type ConsolidatedOrderbookQuery = Static<typeof ConsolidatedOrderbookQuery>;

const ConsolidatedLevel = Type.Tuple(
  [
    Type.Number(),
    Type.Number(),
    Type.String({ description: 'exchange id' }),
    // One schema type rather than a union: the response serializer does not take unions inside a tuple.
    Type.Unsafe<number | null>({ type: ['number', 'null'] }),
  ],
  {
    description:
      "[price, size, exchange, net_price]: net_price is the price per contract once that venue's taker fee for " +
      'taking the whole level is added (asks) or taken off (bids); null where the venue does not publish its fee',
  },
);

export const ConsolidatedVenue = Type.Object({
  svc_id: Type.String(),
  exchange: ExchangeId,
  outcome: Type.Union([Type.String(), Type.Null()], {
    description:
      "This venue's outcome for the bet (mapped through the link); null when it could not be mapped",
  }),
  token_id: Type.Union([Type.String(), Type.Null()]),
  timestamp: Type.Union([Type.String(), Type.Null()], { description: "The venue's time of the book used" }),
  book_state: Type.Enum(['fresh', 'stale', 'needs_refresh'], {
    description: 'fresh: the book used is current; needs_refresh: this venue failed (see error)',
  }),
  link_confidence: Type.Union([Type.Number(), Type.Null()], {
    description: "The link's confidence (0..1); null for the selected market itself",
  }),
  link_tier: Type.Union([Type.Enum(['HIGH', 'MEDIUM', 'LOW']), Type.Null()]),
  inverted: Type.Boolean({
    description: 'The twin asks the question the other way round (its Yes is our No)',
  }),
  error: Type.Optional(VenueError),
});
export type ConsolidatedVenue = Static<typeof ConsolidatedVenue>;

export const ConsolidatedOrderbook = Type.Object({
  svc_id: Type.String(),
  outcome: Type.String(),
  bids: Type.Array(ConsolidatedLevel, { description: 'Best (highest) first' }),
  asks: Type.Array(ConsolidatedLevel, { description: 'Best (lowest) first' }),
  venues: Type.Array(ConsolidatedVenue, { description: 'The selected market first, then its twins' }),
});
export type ConsolidatedOrderbook = Static<typeof ConsolidatedOrderbook>;

const num = (d: Decimal | null): number | null => (d === null ? null : d.toNumber());

export class ConsolidatedBookService {
  constructor(
    private readonly twins: Twins,
    private readonly orderbook: Pick<OrderbookService, 'fullBook'>,
    private readonly fees: Pick<ExecutionPriceService, 'feeSchedule'>,
  ) {}

  async consolidated(q: ConsolidatedOrderbookQuery, caller: CallerContext): Promise<ConsolidatedOrderbook> {
    const limit = q.limit ?? LIVE_DEPTH_DEFAULT;
    if (limit > LIVE_DEPTH_MAX) throw validationError([`limit must be at most ${LIVE_DEPTH_MAX}`]);
    const venues = await this.twins.of(q, 'fetch_orderbook', caller);
    const origin = venues[0];
    if (!origin?.ok) throw new Error('the selected market resolves or throws');
    const read = await Promise.all(
      venues.map(async (v) => {
        if (!v.ok) return v;
        try {
          const [book, schedule] = await Promise.all([
            this.orderbook.fullBook(v.target, caller),
            this.schedule(v.target, caller),
          ]);
          return { ...v, book, schedule };
        } catch (error) {
          return failed(v, error);
        }
      }),
    );
    const buy: VenueSide[] = [];
    const sell: VenueSide[] = [];
    const listed: ConsolidatedVenue[] = [];
    for (const r of read) {
      const common = {
        link_confidence: r.link?.confidence ?? null,
        link_tier: r.link?.confidence_tier ?? null,
        inverted: r.link?.inverted ?? false,
      };
      if (!r.ok) {
        const { svc_id, exchange, outcome, token_id, error } = r;
        listed.push({
          svc_id,
          exchange,
          outcome,
          token_id,
          timestamp: null,
          book_state: 'needs_refresh',
          ...common,
          error,
        });
        continue;
      }
      const { target, book, schedule } = r;
      const exchange = target.venue.descriptor.id;
      const fee = (side: 'buy' | 'sell') => (fills: VenueSide['levels']) =>
        schedule === null ? null : feeFor(schedule, { side, fills }).fee;
      buy.push({ exchange, levels: levelsFromBook(book.asks), fee: fee('buy') });
      sell.push({ exchange, levels: levelsFromBook(book.bids), fee: fee('sell') });
      listed.push({
        svc_id: target.market.svc_id,
        exchange,
        outcome: target.outcome.name,
        token_id: book.token_id,
        timestamp: book.timestamp,
        book_state: 'fresh',
        ...common,
      });
    }
    if (buy.length === 0) {
      const first = listed[0]?.error;
      throw new AppError(
        'service_unavailable',
        `no venue of this bet answered: ${first?.error ?? 'unknown'}`,
      );
    }
    const wire = (l: ReturnType<typeof consolidateSide>[number]) =>
      [l.price.toNumber(), l.size.toNumber(), l.exchange, num(l.netPrice)] as [
        number,
        number,
        ExchangeId,
        number | null,
      ];
    return {
      svc_id: origin.target.market.svc_id,
      outcome: origin.target.outcome.name,
      bids: consolidateSide('sell', sell, limit).map(wire),
      asks: consolidateSide('buy', buy, limit).map(wire),
      venues: listed,
    };
  }

  private async schedule(target: MarketTarget, caller: CallerContext): Promise<FeeSchedule | null> {
    // No fee model: the level's net price is null, never a guess.
    if (target.venue.descriptor.features.takerFeeModel === null || !target.venue.marketData.fetchFeeSchedule)
      return null;
    return this.fees.feeSchedule(target, caller);
  }
}
