// AppError is the only error type that crosses layers on purpose; anything else reaching the HTTP edge is a bug (500).
import { ERROR_CODES, type ErrorCode } from './codes.js';

export interface AppErrorOptions {
  validationErrors?: string[];
  /** Extra body fields, e.g. `tier` and `limit_qps` on rate-limit errors. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly validationErrors: string[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryable = ERROR_CODES[code].retryable;
    this.validationErrors = options.validationErrors;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { error: this.message, code: this.code, retryable: this.retryable };
    if (this.validationErrors) body.validation_errors = this.validationErrors;
    if (this.extra) Object.assign(body, this.extra);
    return body;
  }
}

export function validationError(messages: string[]): AppError {
  return new AppError('validation_error', messages[0] ?? 'invalid request', { validationErrors: messages });
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
