// The capability matrix served by GET /exchanges, derived from the registered descriptors.

import { CAPABILITIES, type Capability } from '../domain/capabilities.js';
import type { ExchangeId } from '../domain/exchanges.js';
import { isExchangeId } from '../domain/exchanges.js';
import { AppError } from '../errors/app-error.js';
import type { VenueAdapter } from '../venues/port.js';
import type { VenueRegistry } from '../venues/registry.js';

export interface ExchangeCapabilities {
  id: ExchangeId;
  name: string;
  has: Record<Capability, boolean>;
}

export class ExchangesService {
  private readonly matrix: ExchangeCapabilities[];

  constructor(private readonly registry: VenueRegistry) {
    // Descriptors are frozen, so the matrix is computed once.
    this.matrix = registry.list().map((venue) => ({
      id: venue.descriptor.id,
      name: venue.descriptor.name,
      has: Object.fromEntries(
        CAPABILITIES.map((c) => [c, venue.descriptor.has[c] !== 'unsupported']),
      ) as Record<Capability, boolean>,
    }));
  }

  list(): ExchangeCapabilities[] {
    return this.matrix;
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
   * A comma-separated `exchanges` filter as sorted, distinct, enabled exchange ids (404 for an unknown one);
   * null when the filter is absent or empty, meaning every exchange.
   */
  filterList(raw: string | undefined): ExchangeId[] | null {
    if (raw === undefined) return null;
    const ids = new Set(
      raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0)
        .map((id) => this.venue(id).descriptor.id),
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
    if (venue.descriptor.has[capability] === 'unsupported') {
      throw new AppError('not_supported', `${venue.descriptor.id} does not support ${capability}`);
    }
    return venue;
  }
}
