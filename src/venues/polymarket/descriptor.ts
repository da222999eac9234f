// What the Polymarket adapter can do, as data: GET /exchanges serves these flags and the registry checks them
// against the facet methods at start.
import type { VenueDescriptor } from '../port.js';

export const POLYMARKET_DESCRIPTOR: VenueDescriptor = Object.freeze({
  id: 'polymarket',
  name: 'Polymarket',
  has: Object.freeze({
    fetch_markets: 'supported',
    fetch_events: 'supported',
    fetch_orderbook: 'supported',
    // Served from our own recorder once it lands, not by the venue.
    fetch_orderbook_history: 'unsupported',
    fetch_price_history: 'supported',
    fetch_trades: 'supported',
    fetch_user_activity: 'supported',
    fetch_execution_price: 'supported',
    // GET /arbitrage: its books and a published taker fee (features.takerFeeModel, src/domain/fees).
    fetch_arbitrage: 'supported',
    create_order: 'supported',
    cancel_order: 'supported',
    fetch_order_history: 'supported',
    fetch_fills: 'supported',
    fetch_positions: 'supported',
    fetch_balance: 'supported',
    refresh_balance: 'supported',
    // WebSocket wallet subscriptions: the gateway polls the Data API's /activity (fetchWalletActivity).
    watch_address: 'polling',
    websocket: 'supported',
  }),
  features: Object.freeze({
    orderTypes: Object.freeze(['gtc', 'ioc', 'fok', 'gtd'] as const),
    // The exchange's one-minute security threshold for GTD expirations.
    gtdMinLeadSeconds: 60,
    maxBookDepth: 100,
    takerFeeModel: 'polymarket_fee_curve',
    // "invalid amount for a marketable BUY order ($x), min size: 1": a FOK/FAK buy's pUSD amount (size × price
    // rounded down to cents by the SDK's market-order builder) must be at least $1, and the 5-share minimum binds
    // limit orders and market sells only (docs/venues/polymarket-sim.md, "Minimum size").
    minOrderValue: Object.freeze({ usd: 1, orders: 'marketable_buy' as const, replacesMinSize: true }),
    candleIntervals: Object.freeze(['1m', '1h', '6h', '1d', '1w', 'max'] as const),
    // last_trade_price frames on the market channel.
    streamTrades: true,
  }),
  credentials: Object.freeze([
    {
      name: 'private_key',
      required: true,
      secret: true,
      description: 'Hex private key of the EOA that signs orders and owns the CLOB API key',
    },
    {
      name: 'signature_type',
      required: false,
      secret: false,
      description:
        'How orders are signed: "0" EOA (default), "1" Polymarket proxy, "2" Gnosis Safe, "3" deposit wallet (POLY_1271; required for accounts opened since May 2026)',
    },
    {
      name: 'funder_address',
      required: false,
      secret: false,
      description:
        'The wallet that holds the funds and is the order maker: required for signature types 1 and 2; for 3 the deposit wallet (looked up from the signer when omitted)',
    },
    {
      name: 'clob_api_key',
      required: false,
      secret: true,
      description: 'CLOB API key; derived from private_key (L1) when the three CLOB fields are omitted',
    },
    { name: 'clob_api_secret', required: false, secret: true, description: 'CLOB API secret (base64url)' },
    { name: 'clob_api_passphrase', required: false, secret: true, description: 'CLOB API passphrase' },
  ]),
  onboarding: Object.freeze(['managed', 'self'] as const),
  balanceUnit: 'pUSD base units (micro-USDC) as a decimal string, with allowances per spender',
  // CLOB limits per 10 s window (docs: /book 1,500, POST /order 3,500 burst); Gamma and the Data API are paced
  // separately by the client.
  rateLimit: Object.freeze({ requestsPerSecond: 150, burst: 150 }),
}) as VenueDescriptor;
