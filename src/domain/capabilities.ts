// The capability flags of GET /exchanges (wire contract §2), in their documented order.
export const CAPABILITIES = [
  'fetch_markets',
  'fetch_events',
  'fetch_orderbook',
  'fetch_orderbook_history',
  'fetch_price_history',
  'fetch_trades',
  'fetch_user_activity',
  // Not in the wire contract's list: GET /execution-price, which walks the live book and prices the venue's fee.
  'fetch_execution_price',
  // Not in the wire contract's list: GET /arbitrage and the `arbitrage` WebSocket channel, which need the venue's
  // books and a taker fee the fee models can compute.
  'fetch_arbitrage',
  'create_order',
  'cancel_order',
  'fetch_order_history',
  'fetch_fills',
  'fetch_positions',
  'fetch_balance',
  'refresh_balance',
  'watch_address',
  'websocket',
] as const;
export type Capability = (typeof CAPABILITIES)[number];
