// The machine error codes of the wire contract (§1): each code has one HTTP status and one retryable flag.
export const ERROR_CODES = {
  bad_request: { status: 400, retryable: false },
  missing_parameter: { status: 400, retryable: false },
  validation_error: { status: 400, retryable: false },
  unauthorized: { status: 401, retryable: false },
  insufficient_funds: { status: 402, retryable: false },
  forbidden: { status: 403, retryable: false },
  authentication_failed: { status: 403, retryable: false },
  credentials_required: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  exchange_not_found: { status: 404, retryable: false },
  market_not_found: { status: 404, retryable: false },
  order_not_found: { status: 404, retryable: false },
  event_not_found: { status: 404, retryable: false },
  conflict: { status: 409, retryable: false },
  payload_too_large: { status: 413, retryable: false },
  unsupported_media_type: { status: 415, retryable: false },
  rate_limit_exceeded: { status: 429, retryable: true },
  monthly_limit_exceeded: { status: 429, retryable: false },
  internal_error: { status: 500, retryable: false },
  not_supported: { status: 501, retryable: false },
  service_unavailable: { status: 503, retryable: true },
  /** The exchange answered in a format this build does not read (the drift alarm, /healthz `drift`). */
  exchange_format_changed: { status: 503, retryable: true },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * An upstream failure (503): the exchange is down, timing out, or answered in a format we cannot read. The circuit
 * breaker and the order-outcome policy treat every such code alike: the request may have been processed.
 */
export function isUpstreamFailure(code: ErrorCode): boolean {
  return ERROR_CODES[code].status === 503;
}
