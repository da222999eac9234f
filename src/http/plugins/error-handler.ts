// One error model for everything the HTTP edge can answer: AppErrors keep their code; schema failures become
// 400 validation_error with readable messages; parser failures are client errors; anything else is a bug (500)
// reported with the request id and logged with its stack, never blamed on the client.
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, isAppError } from '../../errors/app-error.js';
import { capabilitiesAt } from '../capability-routes.js';
import { formatValidationErrors } from './validation-messages.js';

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error);
    if (appError) {
      if (appError.headers) reply.headers(appError.headers);
      if (appError.status >= 500)
        request.log.warn({ code: appError.code, err: appError.cause ?? appError }, appError.message);
      return reply.code(appError.status).send(appError.toBody());
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({
      error: 'internal error; the request id identifies it in the server logs',
      code: 'internal_error',
      retryable: false,
      request_id: request.id,
    });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    // A spec route this build does not serve is a capability every exchange lacks here (its flag is false).
    const unserved = capabilitiesAt(request.method, path);
    if (unserved.length > 0) {
      const error = new AppError(
        'not_supported',
        `${request.method} ${path} (${unserved.join(', ')}) is not served by this server`,
      );
      return reply.code(error.status).send(error.toBody());
    }
    return reply.code(404).send(new AppError('not_found', `no route ${request.method} ${path}`).toBody());
  });
}

function toAppError(error: FastifyError): AppError | null {
  if (isAppError(error)) return error;
  if (error.validation) {
    const messages = formatValidationErrors(error.validation, error.validationContext);
    const allMissing = error.validation.every((v) => v.keyword === 'required');
    return new AppError(
      allMissing ? 'missing_parameter' : 'validation_error',
      messages[0] ?? 'invalid request',
      {
        validationErrors: messages,
      },
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'request body must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('bad_request', 'request body is empty but Content-Type is application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('bad_request', 'request body is not valid JSON');
  }
  // Other errors Fastify raises for a malformed request (bad content-length, bad JSON from secure-json-parse...).
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    if (status === 413) return new AppError('payload_too_large', 'request body is too large');
    if (status === 415) return new AppError('unsupported_media_type', 'unsupported Content-Type');
    return new AppError(
      'bad_request',
      error instanceof SyntaxError ? 'request body is not valid JSON' : error.message,
    );
  }
  return null;
}
