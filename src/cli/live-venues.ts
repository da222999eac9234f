// `omnibook serve`: the adapters of the real exchanges, built from config.venues. The venue issues add theirs.
import type { Config } from '../config/schema.js';
import type { ExchangeId } from '../domain/exchanges.js';
import type { VenueAdapter } from '../venues/port.js';
import { createPredictfunAdapter } from '../venues/predictfun/index.js';

export const LIVE_VENUE_FACTORIES: Partial<Record<ExchangeId, (config: Config) => VenueAdapter>> = {
  predictfun: (config) =>
    createPredictfunAdapter({ ...config.venues.predictfun, timeoutMs: config.venues.timeoutMs }),
};

export function liveVenues(config: Config): VenueAdapter[] {
  return Object.values(LIVE_VENUE_FACTORIES).map((build) => build(config));
}
