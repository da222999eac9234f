// Errors Fastify and Node raise before our error handler can run (a malformed URL, an over-long path
// parameter, unparsable HTTP or oversize headers) answered in the same {error, code, retryable} shape.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

const MESSAGES: ReadonlyMap<string, string> = new Map([
  ['FST_ERR_BAD_URL', 'malformed URL'],
  ['FST_ERR_MAX_PARAM_LENGTH', 'a path parameter is too long'],
]);

export function frameworkErrorHandler(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const status =
    error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500
      ? error.statusCode
      : 400;
  reply
    .code(status)
    .send({ error: MESSAGES.get(error.code) ?? 'malformed request', code: 'bad_request', retryable: false });
}

/** For failures of the HTTP parser itself, where no request object exists: answer on the socket and close it. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify({
    error:
      status === 431
        ? 'request headers are too large'
        : status === 408
          ? 'request timed out'
          : 'malformed HTTP request',
    code: 'bad_request',
    retryable: false,
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
