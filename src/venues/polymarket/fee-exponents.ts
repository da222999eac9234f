// The fee exponent of each market a user's fills come from (`/clob-markets` `fd.e`), read once per market: a V2
// trade carries the rate it applied (`fee_rate_bps`) but not the curve's exponent, and the fill's fee needs both.
import type { VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import type { PolymarketClient } from './client.js';
import { feeScheduleOf } from './parse.js';
import { tradeHasFeeRate } from './parse-trading.js';
import { PolymarketClobMarketInfo, type PolymarketUserTrade } from './payloads.js';

const decodeMarketInfo = payloadDecoder(PolymarketClobMarketInfo);
/** Markets remembered at most; a long-lived user stream should not grow without bound. */
const MAX_MARKETS = 10_000;

export class FeeExponents {
  private readonly byMarket = new Map<string, Promise<number>>();

  constructor(private readonly client: PolymarketClient) {}

  /** The exponent for the trade's market; 0 (unused) when the trade paid no fee, so no request is made. */
  of(ctx: VenueContext, t: PolymarketUserTrade): Promise<number> {
    if (!tradeHasFeeRate(t)) return Promise.resolve(0);
    const known = this.byMarket.get(t.market);
    if (known) return known;
    if (this.byMarket.size >= MAX_MARKETS) this.byMarket.clear();
    const read = this.client
      .get(this.client.clob, ctx, decodeMarketInfo, {
        path: `/clob-markets/${encodeURIComponent(t.market)}`,
        operation: 'get_market_info',
      })
      .then((info) => feeScheduleOf(info).exponent);
    // A failure is not remembered: the next fill of the market asks again.
    read.catch(() => this.byMarket.delete(t.market));
    this.byMarket.set(t.market, read);
    return read;
  }
}
