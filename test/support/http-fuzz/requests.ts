// What the HTTP fuzz sends and how it judges the answer, shared by test/integration/http/fuzz.test.ts and
// bench/fuzz.ts: a request is a plain, printable description (so the counterexample is the request itself), sent
// over real HTTP; the oracle holds every answer to the wire contract's rules for errors.
import { assertDocumentedResponse } from '../response-schemas.js';

export type KeyChoice =
  | { kind: 'scale' }
  | { kind: 'admin' }
  | { kind: 'builder' }
  | { kind: 'none' }
  | { kind: 'raw'; value: string };

export interface RequestSpec {
  method: string;
  /** Already in wire form (percent-encoding included), always starting with '/'. */
  path: string;
  /** Wire form without the '?'; '' sends no '?'. */
  query: string;
  key: KeyChoice;
  headers: Record<string, string>;
  body: { contentType: string | null; text: string } | null;
}

/** The fuzz's own API keys: the clear keys it sends, by the choice that names them. */
export interface FuzzKeys {
  scale: string;
  admin: string;
  builder: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

export const clip = (s: string, n: number): string =>
  s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s;

export function describeRequest(r: RequestSpec): string {
  const key =
    r.key.kind === 'raw'
      ? `x-api-key: ${JSON.stringify(clip(r.key.value, 200))}`
      : r.key.kind === 'none'
        ? 'no x-api-key'
        : `x-api-key: <the fuzz's ${r.key.kind} key>`;
  const headers = Object.entries(r.headers).map(([k, v]) => `${k}: ${JSON.stringify(clip(v, 300))}`);
  const body = r.body
    ? ` content-type: ${JSON.stringify(r.body.contentType)} body: ${JSON.stringify(clip(r.body.text, 600))}`
    : '';
  return `${r.method} ${clip(r.path + (r.query ? `?${r.query}` : ''), 600)} [${[key, ...headers].join(', ')}]${body}`;
}

/**
 * Sends one request and reads the whole answer; also holds it to the schema its route publishes (throws when it
 * drifts). A dropped connection or a hang throws: the server must answer everything.
 */
export async function send(baseUrl: string, r: RequestSpec, keys: FuzzKeys): Promise<Answer> {
  const headers: Record<string, string> = { ...r.headers };
  if (r.key.kind === 'raw') headers['x-api-key'] = r.key.value;
  else if (r.key.kind !== 'none') headers['x-api-key'] = keys[r.key.kind];
  if (r.body?.contentType != null) headers['content-type'] = r.body.contentType;
  let res: Response;
  try {
    res = await fetch(`${baseUrl}${r.path}${r.query ? `?${r.query}` : ''}`, {
      method: r.method,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
      ...(r.body ? { body: r.body.text } : {}),
    });
  } catch (error) {
    const cause = (error as { cause?: Error }).cause;
    throw new Error(
      `request failed (connection dropped, hang or crash?): ${(error as Error).message} ${cause?.message ?? ''}`,
    );
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  await assertDocumentedResponse(baseUrl, r.method, new URL(res.url).pathname, res.status, body, text);
  return { status: res.status, headers: res.headers, text, body };
}

export const bodyOf = (a: Answer): Record<string, unknown> =>
  typeof a.body === 'object' && a.body !== null ? (a.body as Record<string, unknown>) : {};

/** True for a status the server may answer with on its own account: an exchange or the chain is down, or lacks it. */
export function isAllowedServerStatus(a: Answer): boolean {
  const body = bodyOf(a);
  return (
    (a.status === 503 &&
      (body.code === 'service_unavailable' || body.code === 'exchange_format_changed') &&
      body.retryable === true) ||
    (a.status === 501 && body.code === 'not_supported' && body.retryable === false)
  );
}

/** The oracle: everything wrong with one answer to `request` (empty when it keeps the contract). */
export function problemsWith(request: RequestSpec, a: Answer): string[] {
  const problems: string[] = [];
  const body = bodyOf(a);
  const isObject = typeof a.body === 'object' && a.body !== null && !Array.isArray(a.body);
  // 503 (an exchange is down) and 501 (the exchange lacks the capability) are answers; any other 5xx is a bug.
  // A HEAD answer has no body to tell them apart: its GET twin is fuzzed with the same inputs and judged in full.
  const headAnswer = request.method === 'HEAD' && (a.status === 501 || a.status === 503);
  if (a.status >= 500 && !isAllowedServerStatus(a) && !headAnswer) problems.push(`server error ${a.status}`);
  // 3xx (the docs UI redirects) carry no error; HEAD answers carry no body at all.
  if (a.status >= 400 && request.method !== 'HEAD') {
    if (!isObject) problems.push('error body is not a JSON object');
    else {
      if (typeof body.error !== 'string') problems.push('error body has no string `error`');
      if (typeof body.code !== 'string') problems.push('error body has no string `code`');
      if (typeof body.retryable !== 'boolean') problems.push('error body has no boolean `retryable`');
    }
  }
  if (a.status === 429 && !/^[1-9]\d*$/.test(a.headers.get('retry-after') ?? '')) {
    problems.push(`429 without a positive integer Retry-After (${a.headers.get('retry-after')})`);
  }
  const type = a.headers.get('content-type') ?? '';
  if (
    a.status < 300 &&
    request.method !== 'HEAD' &&
    type.includes('json') &&
    a.body === undefined &&
    a.text !== ''
  ) {
    problems.push('2xx with a JSON content type whose body does not parse');
  }
  return problems;
}

/** A failure report naming the exact request and response. */
export function describeFailure(
  backend: string,
  request: RequestSpec,
  a: Answer,
  problems: string[],
): string {
  return (
    `${problems.join('; ')}\n  backend:  ${backend}\n  request:  ${describeRequest(request)}\n` +
    `  response: ${a.status} ${a.headers.get('content-type') ?? ''}\n  ${clip(a.text, 2000)}`
  );
}
