// The exchanges this server runs: the capability matrix of GET /exchanges, and the resolution of a client's
// exchange id to its venue (404 unknown, 501 for a capability the exchange does not offer).

import { type Static, Type } from 'typebox';
import { CAPABILITIES, type Capability } from '../domain/capabilities.js';
import { ExchangeId, isExchangeId } from '../domain/exchanges.js';
import { AppError } from '../errors/app-error.js';
import type { VenueAdapter } from '../venues/port.js';
import type { VenueRegistry } from '../venues/registry.js';

const CapabilityFlags = Type.Object(
  Object.fromEntries(CAPABILITIES.map((c) => [c, Type.Boolean()])) as Record<
    Capability,
    ReturnType<typeof Type.Boolean>
  >,
  { additionalProperties: false },
);

export const ExchangeCapabilities = Type.Object(
  {
    id: ExchangeId,
    name: Type.String(),
    has: CapabilityFlags,
  },
  {
    additionalProperties: false,
    description: 'A flag is true when a public route of this server serves it for this exchange.',
  },
);
export type ExchangeCapabilities = Static<typeof ExchangeCapabilities>;

export interface ExchangesServiceOptions {
  /**
   * The book recorder runs: order-book history is this server's own (recorded from the venue's book stream), so
   * `fetch_orderbook_history` is offered for every venue with a book stream whatever its descriptor says.
   */
  recordsBooks?: boolean;
}

export class ExchangesService {
  private readonly recordsBooks: boolean;

  constructor(
    private readonly registry: VenueRegistry,
    options: ExchangesServiceOptions = {},
  ) {
    this.recordsBooks = options.recordsBooks ?? false;
  }

  /** Whether this server offers `capability` for `venue`: the adapter's, or the server's own (recorded books). */
  offers(venue: VenueAdapter, capability: Capability): boolean {
    if (capability === 'fetch_orderbook_history')
      return this.recordsBooks && venue.descriptor.has.websocket !== 'unsupported';
    const { has, features } = venue.descriptor;
    if (capability === 'route_orders' || capability === 'arbitrage_execute') {
      // Legs are immediate orders priced net of the venue's taker fee (route-quote-service.ts), so the venue must
      // have a fee model (features.takerFeeModel: limitless and opinion publish no fee curve, and a quote leaves
      // them out).
      return (
        has.create_order !== 'unsupported' &&
        has.fetch_execution_price !== 'unsupported' &&
        features.takerFeeModel !== null &&
        features.orderTypes.some((t) => t === 'ioc' || t === 'fok')
      );
    }
    // The registry refuses fetch_arbitrage without a fee model at start; read here too, as everywhere else.
    if (capability === 'fetch_arbitrage')
      return has.fetch_arbitrage !== 'unsupported' && features.takerFeeModel !== null;
    return has[capability] !== 'unsupported';
  }

  /**
   * The capability matrix: a flag is true when the exchange's adapter offers the capability and `served` (the
   * capabilities whose public route this build registers) holds it.
   */
  matrix(served: ReadonlySet<Capability>): ExchangeCapabilities[] {
    return this.registry.list().map((venue) => ({
      id: venue.descriptor.id,
      name: venue.descriptor.name,
      has: Object.fromEntries(CAPABILITIES.map((c) => [c, served.has(c) && this.offers(venue, c)])) as Record<
        Capability,
        boolean
      >,
    }));
  }

  /** The enabled exchanges that offer `capability`, sorted. */
  offering(capability: Capability): ExchangeId[] {
    return this.registry
      .list()
      .filter((venue) => this.offers(venue, capability))
      .map((venue) => venue.descriptor.id)
      .sort();
  }

  /** Resolves a client-supplied exchange id to a registered venue, or 404 exchange_not_found. */
  venue(raw: string): VenueAdapter {
    const venue = isExchangeId(raw) ? this.registry.get(raw) : undefined;
    if (!venue) {
      const known = this.registry.list().map((v) => v.descriptor.id);
      const hint =
        known.length > 0 ? ` (enabled: ${known.join(', ')})` : ' (no exchange is enabled on this server)';
      throw new AppError('exchange_not_found', `unknown exchange '${raw}'${hint}`);
    }
    return venue;
  }

  /**
   * A comma-separated `exchanges` filter as sorted, distinct, enabled exchange ids (404 for an unknown one, 501
   * for one that does not offer `capability`); null when the filter is absent or empty, meaning every exchange.
   */
  filterList(raw: string | undefined, capability: Capability): ExchangeId[] | null {
    if (raw === undefined) return null;
    const ids = new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0)
        .map((id) => this.venueFor(id, capability).descriptor.id),
    );
    return ids.size > 0 ? [...ids].sort() : null;
  }

  /**
   * The venue behind a request that needs `capability`: 404 exchange_not_found for an unknown exchange, 501
   * not_supported when the exchange does not offer it. Every venue-facing route resolves its venue here, so an
   * undeclared capability answers the same way everywhere.
   */
  venueFor(raw: string, capability: Capability): VenueAdapter {
    const venue = this.venue(raw);
    if (!this.offers(venue, capability)) {
      throw new AppError('not_supported', `${venue.descriptor.id} does not support ${capability}`);
    }
    return venue;
  }
}
