// One MCP server (the official SDK's low-level Server: our input schemas are JSON Schema from TypeBox, which its
// zod-based McpServer does not take) answering tools/list and tools/call from the tool table. Both transports
// build it; what differs between them is only how a call reaches the API and what the key may do.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApiAnswer, ApiClient } from './api-client.js';
import { TOOLS, type ToolArgs, ToolArgumentError, type ToolSpec, toolNamed } from './tools.js';

/** A refusal of the MCP layer itself, in the API's error shape. */
export interface ToolRefusal {
  error: string;
  code: string;
  retryable: boolean;
  status: number;
  retry_after_s?: number;
  [extra: string]: unknown;
}

/** What one MCP request may do; `extra` is the SDK's per-request context (its authInfo carries the caller). */
export interface McpCaller {
  /** The API client acting with the caller's key. */
  client(extra: RequestExtra): ApiClient;
  /** Whether the key has mcp_trading: the order tools are listed and callable only then. */
  tradingEnabled(extra: RequestExtra): Promise<boolean>;
  /**
   * Admission for a tool call this layer answers without calling a route (an unknown tool, a refused order
   * tool, bad arguments), so such a call counts against the key's rate limit and month like any other; null when
   * admitted. `omnibook mcp` answers those on the caller's own machine and admits nothing.
   */
  admitLocal?(extra: RequestExtra): Promise<ToolRefusal | null>;
}

export interface RequestExtra {
  authInfo?:
    | { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> }
    | undefined;
}

const INSTRUCTIONS =
  'Omnibook puts five prediction-market exchanges (polymarket, kalshi, limitless, opinion, predictfun) behind one ' +
  'API. Find markets with search_markets, then read books, candles, trades and execution estimates by svc_id. ' +
  'Prices are per contract between 0 and 1 (a contract pays 1 if its outcome happens); sizes are contracts. ' +
  'A tool error carries the API’s code and retryable flag; retry only when retryable is true, after retry_after_s.';

export function toolListing(spec: ToolSpec): Tool {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: spec.inputSchema as unknown as Tool['inputSchema'],
    annotations:
      spec.kind === 'read'
        ? { title: spec.title, readOnlyHint: true, openWorldHint: true }
        : { title: spec.title, readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  };
}

export function buildMcpServer(version: string, caller: McpCaller): Server {
  const server = new Server(
    { name: 'omnibook', title: 'Omnibook', version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const trading = await caller.tradingEnabled(extra);
    return { tools: TOOLS.filter((t) => t.kind === 'read' || trading).map(toolListing) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const args: ToolArgs = request.params.arguments ?? {};
    const spec = toolNamed(name);
    const local = async (refusal: ToolRefusal): Promise<CallToolResult> =>
      errorResult((await caller.admitLocal?.(extra)) ?? refusal);

    if (!spec) return local(refusal('not_found', 404, `no tool named ${JSON.stringify(name)}`));
    const accepted = Object.keys(spec.inputSchema.properties);
    const unknown = Object.keys(args).filter((k) => !accepted.includes(k));
    if (unknown.length > 0) {
      return local(
        refusal('validation_error', 400, `${name} does not take ${unknown.join(', ')}`, {
          validation_errors: [`accepted arguments: ${accepted.join(', ') || 'none'}`],
        }),
      );
    }
    if (spec.kind === 'order') {
      if (!(await caller.tradingEnabled(extra))) {
        return local(
          refusal(
            'forbidden',
            403,
            `${name} is not enabled for this API key: an operator enables the MCP order tools per key ` +
              '(omnibook keys create --mcp-trading, or POST /api/v1/keys with mcp_trading: true)',
          ),
        );
      }
      if (args.confirm !== true) {
        return local(
          refusal(
            'validation_error',
            400,
            `${name} needs confirm: true, set only once the user has approved this exact request`,
            { validation_errors: ['arguments.confirm must be true'] },
          ),
        );
      }
    }
    let apiRequest: ReturnType<ToolSpec['request']>;
    try {
      apiRequest = spec.request(args);
    } catch (error) {
      if (!(error instanceof ToolArgumentError)) throw error;
      return local(refusal('validation_error', 400, error.message));
    }
    const answer = await caller.client(extra).send(apiRequest);
    if (answer.status >= 400) return errorResult(apiRefusal(answer));
    return okResult(spec.result ? spec.result(answer.body) : answer.body);
  });

  return server;
}

function refusal(
  code: string,
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
): ToolRefusal {
  return { error, code, retryable: false, status, ...extra };
}

/** The API's error body as it came (code, retryable, validation_errors, tier, limit_qps), plus status and Retry-After. */
function apiRefusal(answer: ApiAnswer): ToolRefusal {
  const body = answer.body;
  const shaped =
    body !== null &&
    typeof body === 'object' &&
    typeof (body as { code?: unknown }).code === 'string' &&
    typeof (body as { error?: unknown }).error === 'string';
  const base: ToolRefusal = shaped
    ? { ...(body as ToolRefusal), retryable: (body as { retryable?: unknown }).retryable === true }
    : {
        error: `the API answered ${answer.status} without an error body`,
        code: 'internal_error',
        retryable: false,
        status: answer.status,
      };
  return {
    ...base,
    status: answer.status,
    ...(answer.retryAfterS !== undefined ? { retry_after_s: answer.retryAfterS } : {}),
  };
}

function errorResult(r: ToolRefusal): CallToolResult {
  const prefix = r.retryable
    ? `retryable${r.retry_after_s !== undefined ? ` after ${r.retry_after_s} s` : ''}`
    : 'not retryable';
  return {
    isError: true,
    content: [{ type: 'text', text: `${r.code} (${prefix}): ${r.error}\n${JSON.stringify(r)}` }],
    structuredContent: r,
  };
}

function okResult(value: unknown): CallToolResult {
  const structured =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { items: value };
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: structured };
}
