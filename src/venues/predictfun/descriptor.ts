// What the Predict.fun adapter can do, as data: GET /exchanges serves these flags and the registry checks them
// against the facet methods at start. Signed orders on the venue's CLOB (LIMIT and MARKET strategies); price
// history is not offered (spec).
import type { VenueDescriptor } from '../port.js';
import { DEFAULT_RATE_LIMIT } from './client.js';

export const PREDICTFUN_DESCRIPTOR: VenueDescriptor = Object.freeze({
  id: 'predictfun',
  name: 'Predict.fun',
  has: Object.freeze({
    fetch_markets: 'supported',
    fetch_events: 'supported',
    // Beyond the spec's floor: the REST book is live and public (with our API key).
    fetch_orderbook: 'supported',
    fetch_orderbook_history: 'unsupported',
    // The spec marks it unsupported for this exchange; the venue's /timeseries is not used.
    fetch_price_history: 'unsupported',
    // Beyond the floor: GET /v1/orders/matches is the venue's public tape.
    fetch_trades: 'supported',
    fetch_user_activity: 'supported',
    fetch_execution_price: 'supported',
    // GET /arbitrage: its books and a published taker fee (features.takerFeeModel, src/domain/fees).
    fetch_arbitrage: 'supported',
    create_order: 'supported',
    cancel_order: 'supported',
    // GET /v1/orders?status=OPEN|FILLED plus the orders behind the wallet's fills.
    fetch_order_history: 'supported',
    // The wallet's settled matches (GET /v1/orders/matches?signerAddress=) with the fee each leg paid.
    fetch_fills: 'supported',
    // A plain REST read (GET /v1/positions). The spec's "polling" means no position push; in a descriptor
    // `polling` means a stream emulated by polling, which this is not (the same reading as for opinion).
    fetch_positions: 'supported',

    fetch_balance: 'supported',
    // Balances are read live from the chain on every call; there is nothing to refresh.
    refresh_balance: 'unsupported',
    // WebSocket wallet subscriptions: the gateway polls GET /v1/orders/matches?signerAddress= (fetchWalletActivity).
    watch_address: 'polling',
    // Books polled every venues.predictfun.pollIntervalMs and diffed into snapshot/delta events.
    websocket: 'polling',
  }),
  features: Object.freeze({
    // gtc/gtd: LIMIT orders without or with an expiration; ioc: a MARKET order (fills what it can at its price,
    // never rests); fok: a MARKET order with isFillOrKill.
    orderTypes: Object.freeze(['gtc', 'gtd', 'ioc', 'fok'] as const),
    // The SDK refuses an expiration in the past; a minute ahead is our margin for the clock and the trip there.
    gtdMinLeadSeconds: 60,
    maxBookDepth: 100,
    takerFeeModel: 'predictfun_fee_rate_bps',
    // create_order_min_order_value_not_met, "order must have a value of at least 0.9 USD" (docs/venues/predictfun.md).
    minOrderValue: Object.freeze({ usd: 0.9, orders: 'all' as const, replacesMinSize: false }),
    candleIntervals: Object.freeze([] as const),
    streamTrades: false,
  }),
  credentials: Object.freeze([
    {
      name: 'private_key',
      required: false,
      secret: true,
      description:
        'Hex private key of the wallet (or, with predict_account, of its Privy owner); signs GET /v1/auth/message ' +
        'for a JWT and signs orders. Give this or jwt (a jwt alone reads, it cannot place orders).',
    },
    {
      name: 'predict_account',
      required: false,
      secret: false,
      description:
        'Predict account (deposit) address, when private_key is its owner key; funds and positions live there',
    },
    {
      name: 'jwt',
      required: false,
      secret: true,
      description:
        'A Predict.fun JWT (POST /v1/auth) used as is instead of signing in; it expires after 24 hours',
    },
  ]),
  onboarding: Object.freeze(['self'] as const),
  balanceUnit: 'USDT (BSC, 18 decimals) in wei as a decimal string, read on chain with balanceOf',
  rateLimit: Object.freeze({ ...DEFAULT_RATE_LIMIT }),
}) as VenueDescriptor;
