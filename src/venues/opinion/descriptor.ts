// What the Opinion adapter can do, as data: GET /exchanges serves these flags and the registry checks them
// against the facet methods at start. Orders are signed limit orders (gtc; gtd through the API's orderExpTime);
// Opinion's other order kind, the market order, names no limit price, so ioc and fok are not offered.
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
    create_order: 'supported',
    cancel_order: 'supported',
    // GET /order lists every order of the key holder, closed ones included.
    fetch_order_history: 'supported',
    // GET /trade: the key holder's trades with Opinion's fee.
    fetch_fills: 'supported',
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
    orderTypes: Object.freeze(['gtc', 'gtd'] as const),
    // The API's orderExpTime has no documented minimum; the spec's 60 s lead is kept.
    gtdMinLeadSeconds: 60,
    maxBookDepth: 100,
    // Live, price history honours only 1h and 1d; 6h, 1w and max are rolled up from those points (no 1m).
    candleIntervals: Object.freeze(['1h', '6h', '1d', '1w', 'max'] as const),
    streamTrades: false,
  }),
  credentials: Object.freeze([
    {
      name: 'api_key',
      required: true,
      secret: true,
      description:
        "Opinion OpenAPI key (sent as the `apikey` header). It belongs to one Opinion wallet: positions and balance are that wallet's.",
    },
    {
      name: 'private_key',
      required: false,
      secret: true,
      description:
        "Private key (32-byte hex) of the wallet the API key belongs to: it signs orders (EIP-712) for that wallet's Safe. Needed to place orders, not to read.",
    },
    {
      name: 'multisig_address',
      required: false,
      secret: false,
      description:
        "The wallet's Safe on BNB Chain, the orders' maker; read from Opinion (GET /user/auth) when left out.",
    },
  ]),
  // Opinion keys are issued to a wallet the user registered with Opinion; a wallet we created would have none, so
  // only self onboarding.
  onboarding: Object.freeze(['self'] as const),
  balanceUnit:
    'GET /user/balance result: balances[] per quote token (BSC USDT, 18 decimals) with totalBalance, availableBalance and frozenBalance as human-unit decimal strings',
  // Docs overview: 15 requests/second per API key.
  rateLimit: Object.freeze({ requestsPerSecond: 15, burst: 15 }),
}) as VenueDescriptor;
