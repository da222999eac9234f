// How an MCP tool reaches the API: one request to an /api/v1 route, carrying the caller's own key, so the route's
// authentication, tier, rate limit, validation and error shapes apply to the tool call exactly as to a REST call.
// In the server (`/mcp`) that request is a Fastify `inject` into the same app; in `omnibook mcp` (stdio) it is HTTP
// to the configured server. Nothing here reaches a service directly.
import type { FastifyInstance } from 'fastify';

export const API_PREFIX = '/api/v1';

export interface ApiRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Below /api/v1, e.g. `/orderbook` or `/orders/abc` (path parameters already encoded). */
  path: string;
  query?: ReadonlyArray<readonly [string, string]>;
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
}

export interface ApiAnswer {
  status: number;
  /** The parsed JSON body; undefined when there was none or it was not JSON. */
  body: unknown;
  /** Retry-After of a 429 or 503, in seconds, when the route sent one. */
  retryAfterS: number | undefined;
}

export interface ApiClient {
  send(request: ApiRequest): Promise<ApiAnswer>;
}

export function urlOf(request: ApiRequest): string {
  const search = new URLSearchParams(
    (request.query ?? []).map(([k, v]): [string, string] => [k, v]),
  ).toString();
  return `${API_PREFIX}${request.path}${search ? `?${search}` : ''}`;
}

function headersFor(apiKey: string, request: ApiRequest): Record<string, string> {
  return {
    ...request.headers,
    'x-api-key': apiKey,
    ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function retryAfter(value: string | string[] | number | undefined | null): number | undefined {
  const n = Number(Array.isArray(value) ? value[0] : value);
  return value !== undefined && value !== null && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The in-process client of `/mcp`: the tool's request goes through the app's full request lifecycle. */
export function injectClient(app: FastifyInstance, apiKey: string): ApiClient {
  return {
    async send(request) {
      const res = await app.inject({
        method: request.method,
        url: urlOf(request),
        headers: headersFor(apiKey, request),
        ...(request.body !== undefined ? { payload: JSON.stringify(request.body) } : {}),
      });
      return {
        status: res.statusCode,
        body: parseJson(res.body),
        retryAfterS: retryAfter(res.headers['retry-after']),
      };
    },
  };
}

/** The client of `omnibook mcp`: HTTP to a running server; a server out of reach is a retryable 503. */
export function httpClient(baseUrl: string, apiKey: string, timeoutMs = 60_000): ApiClient {
  return {
    async send(request) {
      let res: Response;
      try {
        res = await fetch(`${baseUrl}${urlOf(request)}`, {
          method: request.method,
          headers: headersFor(apiKey, request),
          ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch {
        // The cause (refused, DNS, timeout) may name internal hosts; the URL is the operator's own setting.
        return {
          status: 503,
          body: {
            error: `the Omnibook server at ${baseUrl} did not answer`,
            code: 'service_unavailable',
            retryable: true,
          },
          retryAfterS: undefined,
        };
      }
      return {
        status: res.status,
        body: parseJson(await res.text()),
        retryAfterS: retryAfter(res.headers.get('retry-after')),
      };
    },
  };
}
