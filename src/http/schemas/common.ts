// Shared TypeBox pieces: the error body every failure answers with, and the exchange id enum.
import { Type } from 'typebox';
import { EXCHANGE_IDS } from '../../domain/exchanges.js';

export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    code: Type.String(),
    retryable: Type.Boolean(),
    validation_errors: Type.Optional(Type.Array(Type.String())),
    request_id: Type.Optional(Type.String()),
    tier: Type.Optional(Type.String()),
    limit_qps: Type.Optional(Type.Number()),
  },
  {
    $id: 'ErrorBody',
    description: 'Every error: a human message, a machine code and whether a retry can help.',
  },
);

/** Error responses documented on every authenticated route. */
export const AUTHED_ERRORS = {
  400: ErrorBody,
  401: ErrorBody,
  429: ErrorBody,
  503: ErrorBody,
} as const;

/**
 * An exchange id as a plain string: an unknown id is a 404 exchange_not_found (wire contract §1), not a schema
 * failure, so the enum is documented but not enforced by the validator.
 */
export const ExchangeIdParam = Type.String({
  minLength: 1,
  maxLength: 64,
  description: `One of: ${EXCHANGE_IDS.join(', ')}`,
  examples: [...EXCHANGE_IDS],
});
