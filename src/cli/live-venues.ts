// `omnibook serve`: the adapters of the real exchanges, built from config.venues. The venue issues add theirs.
import type { Config } from '../config/schema.js';
import type { ExchangeId } from '../domain/exchanges.js';
import { createKalshiAdapter } from '../venues/kalshi/index.js';
import { createLimitlessAdapter } from '../venues/limitless/index.js';
import { createOpinionAdapter } from '../venues/opinion/index.js';
import { createPolymarketAdapter } from '../venues/polymarket/index.js';
import type { VenueAdapter } from '../venues/port.js';
import { createPredictfunAdapter } from '../venues/predictfun/index.js';

export const LIVE_VENUE_FACTORIES: Partial<Record<ExchangeId, (config: Config) => VenueAdapter>> = {
  polymarket: (config) =>
    createPolymarketAdapter({
      ...config.venues.polymarket,
      timeoutMs: config.venues.timeoutMs,
      streamHeartbeatMs: config.venues.streamHeartbeatMs,
    }),
  kalshi: (config) => {
    const { restUrl, wsUrl, streamApiKeyId, streamPrivateKey } = config.venues.kalshi;
    return createKalshiAdapter({
      restUrl,
      wsUrl,
      timeoutMs: config.venues.timeoutMs,
      streamHeartbeatMs: config.venues.streamHeartbeatMs,
      streamCredentials:
        streamApiKeyId && streamPrivateKey
          ? { api_key_id: streamApiKeyId, private_key: streamPrivateKey }
          : null,
    });
  },
  limitless: (config) =>
    createLimitlessAdapter({ ...config.venues.limitless, timeoutMs: config.venues.timeoutMs }),
  opinion: (config) => createOpinionAdapter({ ...config.venues.opinion, timeoutMs: config.venues.timeoutMs }),
  predictfun: (config) =>
    createPredictfunAdapter({ ...config.venues.predictfun, timeoutMs: config.venues.timeoutMs }),
};

export function liveVenues(config: Config): VenueAdapter[] {
  return Object.values(LIVE_VENUE_FACTORIES).map((build) => build(config));
}
