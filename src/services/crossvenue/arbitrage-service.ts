// GET /arbitrage: executable opportunities between published same_market twins (arbitrage-opportunity.ts), priced
// on the live books GET /orderbook reads and the fee models GET /execution-price uses. Only links at or above
// `min_tier` (default HIGH) between two active markets on exchanges with fetch_arbitrage are scanned, at most
// MAX_SCANNED_PAIRS of them (strongest first). A book that cannot be read leaves its directions out and is named
// in `scan.failed`; a book is only ever priced fresh (a held stream book that went stale is read again from REST,
// and a read that fails is a failure, never an old book). The WebSocket channel (realtime/arbitrage-hub.ts) prepares
// its directions here too, then follows their books.
import { type Static, Type } from 'typebox';
import type { Capability } from '../../domain/capabilities.js';
import { ExchangeId } from '../../domain/exchanges.js';
import type { FeeSchedule } from '../../domain/fees/schedule.js';
import { AppError, validationError } from '../../errors/app-error.js';
import type { LinksRepo, SameMarketPair } from '../../store/links-repo.js';
import type { CallerContext } from '../caller-context.js';
import type { ExchangesService } from '../exchanges-service.js';
import type { ExecutionPriceService } from '../market-data/execution-price-service.js';
import type { MarketTarget, MarketTargets } from '../market-data/market-target.js';
import type { OrderbookService } from '../market-data/orderbook-service.js';
import {
  ArbitrageOpportunity,
  bookKey,
  type Direction,
  directionsOf,
  type LegQuote,
  priceDirection,
} from './arbitrage-opportunity.js';
import { CONFIDENCE_TIERS, MinTier, VenueError, venueError } from './twins.js';

const CAPABILITY: Capability = 'fetch_arbitrage';
/** Links scanned per answer at most (strongest first): each costs up to four book reads. */
export const MAX_SCANNED_PAIRS = 2_000;
/** Venue reads in flight at once for one answer. */
const READ_CONCURRENCY = 16;
const LIMIT_DEFAULT = 50;
const LIMIT_MAX = 200;

export const ArbitrageQuery = Type.Object(
  {
    exchanges: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Comma-separated exchanges both legs must be on (default: every exchange with fetch_arbitrage)',
      }),
    ),
    min_edge_bps: Type.Optional(
      Type.Number({
        minimum: -10_000,
        maximum: 10_000,
        description:
          'Least edge_bps (net profit per pair, in bps of the 1 payout); default: any positive net profit. A ' +
          'negative floor also lists near misses (net profit ≤ 0, max_profitable_size null)',
      }),
    ),
    min_size: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: 'Pairs the books must hold; the curve starts here (default 1)',
      }),
    ),
    include_unsafe: Type.Optional(
      Type.Boolean({
        description: 'Also list twins whose resolution check says they can settle differently',
      }),
    ),
    min_tier: Type.Optional(MinTier),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: LIMIT_MAX, description: `Default ${LIMIT_DEFAULT}` }),
    ),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'next_cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);
export type ArbitrageQuery = Static<typeof ArbitrageQuery>;

const Failed = Type.Object({
  svc_id: Type.String(),
  exchange: ExchangeId,
  outcome: Type.Union([Type.String(), Type.Null()]),
  error: VenueError,
});
const Skipped = Type.Object({ svc_id: Type.String(), linked_svc_id: Type.String(), reason: Type.String() });

export const ArbitrageList = Type.Object({
  opportunities: Type.Array(ArbitrageOpportunity, { description: 'Best edge_bps first, then by id' }),
  pagination: Type.Object({
    count: Type.Integer(),
    total: Type.Integer({ description: 'Opportunities found by this scan (all pages)' }),
    has_more: Type.Boolean(),
    next_cursor: Type.Optional(Type.String()),
  }),
  scan: Type.Object({
    exchanges: Type.Array(ExchangeId),
    min_tier: MinTier,
    pairs: Type.Integer({ description: 'Published same_market links scanned' }),
    books: Type.Integer({ description: 'Books read' }),
    failed: Type.Array(Failed, {
      description: 'Books that could not be read; their directions are left out',
    }),
    skipped: Type.Array(Skipped, { description: 'Links that cannot be traded as an arbitrage, and why' }),
  }),
});
export type ArbitrageList = Static<typeof ArbitrageList>;

/** The directions of the scanned links, ready to price: what a scan and a WebSocket subscription start from. */
export interface PreparedScan {
  exchanges: ExchangeId[];
  pairs: number;
  directions: Direction[];
  skipped: Array<Static<typeof Skipped>>;
  failed: Array<Static<typeof Failed>>;
}

const RANK: Record<MinTier, number> = { HIGH: 3, MEDIUM: 2, LOW: 1 };

/** Runs `work` over `items`, at most `n` at once. */
async function pooled<T, R>(items: readonly T[], n: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, run));
  return out;
}

interface Cursor {
  edge: number;
  id: string;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.edge, c.id])).toString('base64url');
}

function decodeCursor(raw: string): Cursor {
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'string')
      return { edge: v[0], id: v[1] };
  } catch {
    // falls through to the 400
  }
  throw validationError(['cursor is not a next_cursor this route gave']);
}

/** Best edge first, then by id: the order pages follow. */
const order = (x: ArbitrageOpportunity, y: ArbitrageOpportunity) =>
  y.edge_bps - x.edge_bps || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

export class ArbitrageService {
  constructor(
    private readonly links: Pick<LinksRepo, 'sameMarketPairs'>,
    private readonly targets: Pick<MarketTargets, 'resolveOutcomes'>,
    private readonly orderbook: Pick<OrderbookService, 'fullBook'>,
    private readonly fees: Pick<ExecutionPriceService, 'feeSchedule'>,
    private readonly exchanges: Pick<ExchangesService, 'filterList' | 'offering'>,
  ) {}

  /** The exchanges a scan covers: those asked for (404 unknown, 501 without fetch_arbitrage), else all that offer it. */
  exchangesFor(raw: string | undefined): ExchangeId[] {
    return this.exchanges.filterList(raw, CAPABILITY) ?? this.exchanges.offering(CAPABILITY);
  }

  /** Reads the links and resolves both markets of each into its two directions. */
  async prepare(
    exchanges: ExchangeId[],
    minTier: MinTier,
    maxPairs: number,
    caller: CallerContext,
  ): Promise<PreparedScan> {
    const tiers = CONFIDENCE_TIERS.filter((t) => RANK[t] >= RANK[minTier]);
    const pairs = await this.links.sameMarketPairs(exchanges, tiers, maxPairs);
    const skipped: PreparedScan['skipped'] = [];
    const failed: PreparedScan['failed'] = [];
    const markets = new Map<string, Promise<MarketTarget[] | null>>();
    const resolve = (m: SameMarketPair['a']) => {
      let p = markets.get(m.svc_id);
      if (!p) {
        p = this.targets.resolveOutcomes({ svc_id: m.svc_id }, CAPABILITY, caller).catch((error: unknown) => {
          failed.push({ svc_id: m.svc_id, exchange: m.exchange, outcome: null, error: venueError(error) });
          return null;
        });
        markets.set(m.svc_id, p);
      }
      return p;
    };
    const directions: Direction[] = [];
    const resolved = await pooled(pairs, READ_CONCURRENCY, async (pair) => ({
      pair,
      a: await resolve(pair.a),
      b: await resolve(pair.b),
    }));
    for (const { pair, a, b } of resolved) {
      if (!a || !b) continue;
      const dirs = directionsOf(pair, a, b);
      if (typeof dirs === 'string')
        skipped.push({ svc_id: pair.a.svc_id, linked_svc_id: pair.b.svc_id, reason: dirs });
      else directions.push(...dirs);
    }
    return { exchanges, pairs: pairs.length, directions, skipped, failed };
  }

  /**
   * For a WebSocket subscription: the prepared scan and each leg's fee schedule (read once; a leg whose schedule
   * cannot be read is named in `failed` and its directions dropped). Its books are then followed, not read here.
   */
  async prepareWatch(
    exchanges: ExchangeId[],
    minTier: MinTier,
    maxPairs: number,
    caller: CallerContext,
  ): Promise<PreparedScan & { schedules: Map<string, FeeSchedule> }> {
    const scan = await this.prepare(exchanges, minTier, maxPairs, caller);
    const targets = new Map<string, MarketTarget>();
    for (const d of scan.directions) for (const l of d.legs) targets.set(bookKey(l.target), l.target);
    const schedules = new Map<string, FeeSchedule>();
    await pooled([...targets.entries()], READ_CONCURRENCY, async ([key, target]) => {
      try {
        schedules.set(key, await this.fees.feeSchedule(target, caller));
      } catch (error) {
        scan.failed.push({
          svc_id: target.market.svc_id,
          exchange: target.venue.descriptor.id,
          outcome: target.outcome.name,
          error: venueError(error),
        });
      }
    });
    scan.directions = scan.directions.filter((d) => d.legs.every((l) => schedules.has(bookKey(l.target))));
    return { ...scan, schedules };
  }

  async list(q: ArbitrageQuery, caller: CallerContext): Promise<ArbitrageList> {
    const limit = q.limit ?? LIMIT_DEFAULT;
    const after = q.cursor !== undefined ? decodeCursor(q.cursor) : null;
    const minTier = q.min_tier ?? 'HIGH';
    const exchanges = this.exchangesFor(q.exchanges);
    if (exchanges.length === 0)
      throw new AppError('not_supported', 'no exchange here serves fetch_arbitrage');
    const scan = await this.prepare(exchanges, minTier, MAX_SCANNED_PAIRS, caller);
    // Every book once, however many directions use it; a failed read is named, never priced.
    const targets = new Map<string, MarketTarget>();
    for (const d of scan.directions) for (const l of d.legs) targets.set(bookKey(l.target), l.target);
    const quotes = new Map<string, LegQuote>();
    await pooled([...targets.entries()], READ_CONCURRENCY, async ([key, target]) => {
      try {
        const [book, schedule] = await Promise.all([
          this.orderbook.fullBook(target, caller),
          this.fees.feeSchedule(target, caller),
        ]);
        quotes.set(key, { book, schedule });
      } catch (error) {
        scan.failed.push({
          svc_id: target.market.svc_id,
          exchange: target.venue.descriptor.id,
          outcome: target.outcome.name,
          error: venueError(error),
        });
      }
    });
    const found: ArbitrageOpportunity[] = [];
    const options = { minSize: q.min_size ?? 1, minEdgeBps: q.min_edge_bps ?? null };
    for (const d of scan.directions) {
      const a = quotes.get(bookKey(d.legs[0].target));
      const b = quotes.get(bookKey(d.legs[1].target));
      if (!a || !b) continue;
      const priced = priceDirection(d, [a, b], options);
      if (!priced.ok) continue;
      if (priced.opportunity.unsafe && q.include_unsafe !== true) continue;
      found.push(priced.opportunity);
    }
    found.sort(order);
    const start = after
      ? found.findIndex((o) => o.edge_bps < after.edge || (o.edge_bps === after.edge && o.id > after.id))
      : 0;
    const rest = start < 0 ? [] : found.slice(start);
    const page = rest.slice(0, limit);
    const last = page.at(-1);
    const hasMore = rest.length > page.length;
    scan.failed.sort((x, y) => (x.svc_id < y.svc_id ? -1 : x.svc_id > y.svc_id ? 1 : 0));
    return {
      opportunities: page,
      pagination: {
        count: page.length,
        total: found.length,
        has_more: hasMore,
        ...(hasMore && last ? { next_cursor: encodeCursor({ edge: last.edge_bps, id: last.id }) } : {}),
      },
      scan: {
        exchanges: scan.exchanges,
        min_tier: minTier,
        pairs: scan.pairs,
        books: quotes.size,
        failed: scan.failed,
        skipped: scan.skipped,
      },
    };
  }
}
