// Small node:http helpers every simulator uses: JSON replies and the raw request body (signatures are computed
// over the exact bytes a client sent, so the body is read as text before any parsing).
import type { IncomingMessage, ServerResponse } from 'node:http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Bodies larger than this are refused by every simulator, as real gateways do. */
export const MAX_BODY_BYTES = 1_048_576;

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError(`body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a JSON body; `undefined` for an empty body, `SyntaxError` for malformed JSON. */
export function parseJson(raw: string): unknown {
  return raw === '' ? undefined : JSON.parse(raw);
}
