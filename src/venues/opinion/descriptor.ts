// What the Opinion adapter can do, as data: GET /exchanges serves these flags and the registry checks them
// against the facet methods at start. Opinion is data only (spec §1): no orders, fills or order history.
import type { VenueDescriptor } from '../port.js';

export const OPINION_DESCRIPTOR: VenueDescriptor = Object.freeze({
  id: 'opinion',
  name: 'Opinion',
  has: Object.freeze({
    fetch_markets: 'supported',
    fetch_events: 'supported',
    fetch_orderbook: 'supported',
    // Served from our own recorder once it lands, not by the venue.
    fetch_orderbook_history: 'unsupported',
    fetch_price_history: 'supported',
    // The OpenAPI has no public trade tape (only a wallet's own trades, served as wallet activity).
    fetch_trades: 'unsupported',
    fetch_user_activity: 'supported',
    fetch_execution_price: 'supported',
    // GET /arbitrage needs a taker fee the fee models compute; this venue does not publish its curve.
    fetch_arbitrage: 'unsupported',
    create_order: 'unsupported',
    cancel_order: 'unsupported',
    fetch_order_history: 'unsupported',
    fetch_fills: 'unsupported',
    // A plain REST read (GET /positions). The spec's "polling" means no position push, true of every venue
    // here; `polling` in a descriptor means a stream emulated by polling, which this is not.
    fetch_positions: 'supported',
    fetch_balance: 'supported',
    // Opinion has no call that recomputes a balance.
    refresh_balance: 'unsupported',
    // WebSocket wallet subscriptions: the gateway polls GET /trade/user/{address} (fetchWalletActivity).
    watch_address: 'polling',
    // Books polled from REST at venues.opinion.pollIntervalMs (see stream.ts for why not market.depth.diff).
    websocket: 'polling',
  }),
  features: Object.freeze({
    orderTypes: Object.freeze([] as const),
    gtdMinLeadSeconds: null,
    maxBookDepth: 100,
    // Live, price history honours only 1h and 1d; 6h, 1w and max are rolled up from those points (no 1m).
    candleIntervals: Object.freeze(['1h', '6h', '1d', '1w', 'max'] as const),
  }),
  credentials: Object.freeze([
    {
      name: 'api_key',
      required: true,
      secret: true,
      description:
        "Opinion OpenAPI key (sent as the `apikey` header). It belongs to one Opinion wallet: positions and balance are that wallet's.",
    },
  ]),
  // Storing a user's key (self) is what balance and positions need; Opinion has no managed wallets here.
  onboarding: Object.freeze(['self'] as const),
  balanceUnit:
    'GET /user/balance result: balances[] per quote token (BSC USDT, 18 decimals) with totalBalance, availableBalance and frozenBalance as human-unit decimal strings',
  // Docs overview: 15 requests/second per API key.
  rateLimit: Object.freeze({ requestsPerSecond: 15, burst: 15 }),
}) as VenueDescriptor;
