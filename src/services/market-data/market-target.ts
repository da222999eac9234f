// The selector every market-data route shares (spec §4): `svc_id`, or `exchange` + `market_id` (one form, never
// both), and an `outcome` (default yes), resolved to the venue, the market and the outcome's token. A resolved
// market is reused for a few seconds: the catalogue document changes at sync pace, not per request.
import { Type } from 'typebox';
import type { Capability } from '../../domain/capabilities.js';
import type { Market, Outcome } from '../../domain/market.js';
import { encodeSvcId, parseSvcId } from '../../domain/svc-id.js';
import { AppError, validationError } from '../../errors/app-error.js';
import type { VenueAdapter } from '../../venues/port.js';
import { findOutcome } from '../../venues/shared/outcomes.js';
import type { CallerContext } from '../caller-context.js';
import type { MarketsService } from '../catalogue/markets-service.js';
import type { ExchangesService } from '../exchanges-service.js';
import { FreshCache } from './fresh-cache.js';

/** Query fields of the selector, spread into each market-data route's query schema. */
export const MarketSelectorFields = {
  svc_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      description: '{exchange}:{native id}; or exchange + market_id',
    }),
  ),
  exchange: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'With market_id' })),
  market_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 512, description: "The exchange's own market id, with exchange" }),
  ),
  outcome: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Outcome name, case-insensitive; default yes' }),
  ),
};

export interface MarketSelector {
  svc_id?: string | undefined;
  exchange?: string | undefined;
  market_id?: string | undefined;
  outcome?: string | undefined;
}

export interface MarketTarget {
  venue: VenueAdapter;
  market: Market;
  /** The market's own outcome (its spelling) with its token id. */
  outcome: Outcome & { token_id: string };
}

/** How long a resolved market document is reused before the catalogue is asked again. */
const MARKET_TTL_MS = 5_000;
/** A market still being asked for is read again from this age on, so its callers never wait on the store. */
const MARKET_REFRESH_AFTER_MS = 4_000;

export class MarketTargets {
  private readonly resolved = new FreshCache<Market | null>(MARKET_TTL_MS, {
    refreshAfterMs: MARKET_REFRESH_AFTER_MS,
  });

  constructor(
    private readonly markets: MarketsService,
    private readonly exchanges: ExchangesService,
  ) {}

  /**
   * The venue, market and outcome a selector names, for a route that needs `capability`: 400 for a malformed or
   * ambiguous selector or an outcome the market lacks, 404 for an unknown exchange or market, 501 when the exchange
   * does not offer the capability, 503 when the venue cannot be asked.
   */
  async resolve(q: MarketSelector, capability: Capability, caller: CallerContext): Promise<MarketTarget> {
    const { exchange, nativeId } = this.selected(q);
    const venue = this.exchanges.venueFor(exchange, capability);
    const svcId = encodeSvcId(venue.descriptor.id, nativeId);
    const market = await this.resolved.get(svcId, () => this.markets.findOne(svcId, caller));
    if (!market) throw new AppError('market_not_found', `no market ${svcId}`);
    return { venue, market, outcome: findOutcome(market, q.outcome ?? 'yes') };
  }

  /** Every outcome of the selected market that has a token (the selector's `outcome` is ignored). */
  async resolveOutcomes(
    q: MarketSelector,
    capability: Capability,
    caller: CallerContext,
  ): Promise<MarketTarget[]> {
    const { exchange, nativeId } = this.selected(q);
    const venue = this.exchanges.venueFor(exchange, capability);
    const svcId = encodeSvcId(venue.descriptor.id, nativeId);
    const market = await this.resolved.get(svcId, () => this.markets.findOne(svcId, caller));
    if (!market) throw new AppError('market_not_found', `no market ${svcId}`);
    return market.outcomes.flatMap((o) =>
      o.token_id ? [{ venue, market, outcome: { ...o, token_id: o.token_id } }] : [],
    );
  }

  private selected(q: MarketSelector): { exchange: string; nativeId: string } {
    const native = q.exchange !== undefined || q.market_id !== undefined;
    if (q.svc_id !== undefined && native) {
      throw validationError(['svc_id and exchange + market_id are mutually exclusive: send one form']);
    }
    if (q.svc_id !== undefined) {
      const parsed = parseSvcId(q.svc_id);
      if (!parsed.ok) throw validationError([`svc_id: ${parsed.reason}`]);
      return { exchange: parsed.value.exchange, nativeId: parsed.value.nativeId };
    }
    if (q.exchange === undefined || q.market_id === undefined) {
      const message = 'a market is selected by svc_id, or by exchange together with market_id';
      throw new AppError('missing_parameter', message, { validationErrors: [message] });
    }
    return { exchange: q.exchange, nativeId: q.market_id };
  }
}
