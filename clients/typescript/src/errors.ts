// The one error type the client throws for a REST call: the API's own error body (`code`, `retryable`, the
// human `error`, `validation_errors`) with the HTTP status, the request id and the server's Retry-After, or a
// transport failure (no answer) under code `network_error`. It never carries the API key or credentials.

/** The API's error body (wire contract §1). */
export interface ApiErrorBody {
  error: string;
  code: string;
  retryable: boolean;
  validation_errors?: string[];
  request_id?: string;
  tier?: string;
  limit_qps?: number;
}

export interface OmnibookErrorInit {
  status: number | null;
  code: string;
  message: string;
  retryable: boolean;
  requestId?: string | null;
  validationErrors?: string[];
  retryAfterMs?: number | null;
  method: string;
  path: string;
  cause?: unknown;
}

export class OmnibookError extends Error {
  override readonly name = 'OmnibookError';
  /** HTTP status; null when no answer came (code `network_error` or `timeout`). */
  readonly status: number | null;
  /** The API's machine code (`market_not_found`, `rate_limit_exceeded`, …), or `network_error` / `timeout`. */
  readonly code: string;
  /** True when the same request may succeed later (the API's own flag; true for a lost connection). */
  readonly retryable: boolean;
  /** The server's request id when it gave one (500s carry it). */
  readonly requestId: string | null;
  readonly validationErrors: string[];
  /** The server's Retry-After, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | null;
  readonly method: string;
  /** The route's path template (`/api/v1/orders/{order_id}`), never a URL with query values. */
  readonly path: string;

  constructor(init: OmnibookErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.retryable = init.retryable;
    this.requestId = init.requestId ?? null;
    this.validationErrors = init.validationErrors ?? [];
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.method = init.method;
    this.path = init.path;
  }
}

export function isOmnibookError(value: unknown): value is OmnibookError {
  return value instanceof OmnibookError;
}

/** Parses the API's error body out of whatever a failed response carried (JSON, text or nothing). */
export function errorBodyOf(value: unknown): Partial<ApiErrorBody> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    const out: Partial<ApiErrorBody> = {};
    if (typeof v.error === 'string') out.error = v.error;
    if (typeof v.code === 'string') out.code = v.code;
    if (typeof v.retryable === 'boolean') out.retryable = v.retryable;
    if (typeof v.request_id === 'string') out.request_id = v.request_id;
    if (Array.isArray(v.validation_errors))
      out.validation_errors = v.validation_errors.filter((x): x is string => typeof x === 'string');
    return out;
  }
  return typeof value === 'string' && value.length > 0 ? { error: value.slice(0, 500) } : {};
}
