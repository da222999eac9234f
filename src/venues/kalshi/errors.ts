// Kalshi's error table. The exchange answers with three body shapes (recorded on the demo exchange): nested
// `{"error":{"code","message","details"?,"service"?}}`, flat `{"code","message","details"}` for JSON-decoding
// failures, and bare `{"msg"}` for query validation; 429 is `{"error":"too many requests"}` without Retry-After.
// Codes are matched exactly (auth codes with their `details`), then the shared defaults apply (429/5xx → 503).
import { mapVenueError, type VenueErrorRule, VenueStatusError } from '../shared/venue-errors.js';

interface KalshiErrorBody {
  code: string | null;
  message: string | null;
  details: string | null;
}

export function readErrorBody(text: string): KalshiErrorBody {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return { code: null, message: null, details: null };
    const root = parsed as Record<string, unknown>;
    const inner =
      typeof root.error === 'object' && root.error !== null ? (root.error as Record<string, unknown>) : root;
    const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
    return {
      code: str(inner.code),
      message: str(inner.message) ?? str(root.msg) ?? str(root.error),
      details: str(inner.details),
    };
  } catch {
    return { code: null, message: null, details: null };
  }
}

/** Some codes embed an id after a colon (`user_not_found:_<uuid>`); auth codes carry the reason in `details`. */
function venueCodeOf(error: VenueStatusError): string | null {
  const { code, details } = readErrorBody(error.body);
  if (code === null) return null;
  const base = code.split(':')[0] ?? code;
  return base === 'authentication_error' && details ? `${base}/${details}` : base;
}

/** The venue's message with its details, e.g. "invalid order (post only cross)". */
class KalshiStatusError extends VenueStatusError {
  override venueMessage(): string {
    const { code, message, details } = readErrorBody(this.body);
    const text = message ?? code ?? super.venueMessage();
    return details && details !== text ? `${text} (${details})` : text;
  }
}

const auth = (venueCode: string, text: string): VenueErrorRule => ({
  venueCode,
  code: 'authentication_failed',
  describe: () => text,
});

export const KALSHI_ERROR_RULES: readonly VenueErrorRule[] = [
  auth(
    'authentication_error/INCORRECT_API_KEY_SIGNATURE',
    'kalshi refused the request signature (INCORRECT_API_KEY_SIGNATURE): the private key does not belong to this API key id',
  ),
  auth('authentication_error/NOT_FOUND', 'kalshi does not know this API key id'),
  auth(
    'header_timestamp_expired',
    "kalshi refused the request timestamp as expired (is this server's clock right?)",
  ),
  auth('signature_is_missing_from_headers', 'kalshi received no request signature'),
  {
    venueCode: 'insufficient_balance',
    code: 'insufficient_funds',
    describe: () => 'kalshi: insufficient balance for this order',
  },
  // The market exists but is not open for trading: not yet open (`initialized`), closed, or halted. A state of the
  // market, not of the request, so a conflict rather than bad input.
  {
    venueCode: 'market_closed',
    code: 'conflict',
    describe: () => 'kalshi: the market is not open for trading (not yet open, or already closed)',
  },
  {
    venueCode: 'trading_is_paused',
    code: 'conflict',
    describe: () => 'kalshi: trading on this market is paused',
  },
  {
    venueCode: 'order_already_exists',
    code: 'conflict',
    describe: () => 'kalshi: an order with this client_order_id already exists',
  },
];

const ORDER_RULES: readonly VenueErrorRule[] = [
  ...KALSHI_ERROR_RULES,
  { status: 404, code: 'order_not_found', describe: () => 'kalshi has no such order for this account' },
];

const MARKET_RULES: readonly VenueErrorRule[] = [
  ...KALSHI_ERROR_RULES,
  { status: 404, code: 'market_not_found', describe: () => 'kalshi has no market with this ticker' },
];

export type ErrorContext = 'default' | 'order' | 'market';

export function mapKalshiError(error: unknown, context: ErrorContext = 'default'): unknown {
  const enriched =
    error instanceof VenueStatusError && !(error instanceof KalshiStatusError)
      ? Object.assign(
          new KalshiStatusError(
            error.venue,
            error.operation,
            error.status,
            error.body,
            error.retryAfterMs,
            error.attempts,
          ),
          { stack: error.stack },
        )
      : error;
  const rules = context === 'order' ? ORDER_RULES : context === 'market' ? MARKET_RULES : KALSHI_ERROR_RULES;
  return mapVenueError(enriched, rules, venueCodeOf);
}
