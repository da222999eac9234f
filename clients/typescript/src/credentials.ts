// Exchange credentials travel per request in X-Exchange-Credentials: base64 of the JSON the exchange needs (wire
// contract §4). Encoded here for Node and browsers alike; the value is never logged or put into an error.

/** One exchange's credential fields (e.g. kalshi `{api_key_id, private_key}`), as `POST /onboard` takes them. */
export type ExchangeCredentials = Record<string, unknown>;

export function encodeCredentials(credentials: ExchangeCredentials): string {
  const bytes = new TextEncoder().encode(JSON.stringify(credentials));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The exchange a call acts on, for picking its credentials: `?exchange=`, or the route's own venue. */
export function exchangeOfCall(path: string, query: unknown): string | null {
  if (typeof query === 'object' && query !== null && 'exchange' in query) {
    const exchange = (query as { exchange?: unknown }).exchange;
    if (typeof exchange === 'string') return exchange;
  }
  return path.startsWith('/api/v1/polymarket/') ? 'polymarket' : null;
}
