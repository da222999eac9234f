// `/mcp`: the MCP streamable HTTP transport beside /api/v1. The caller presents its API key (X-API-Key, or
// Authorization: Bearer); every tool call is an inject of the API route it stands for with that key, so auth, tier,
// rate limits and error shapes are the API's own. Sessions are this node's, bounded (McpSessions); answers are
// plain JSON (no SSE stream is ever held open: there are no server-initiated messages to send).
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { billingPeriodOf } from '../domain/billing-period.js';
import { AppError } from '../errors/app-error.js';
import { admissionRefusal } from '../http/plugins/authenticate.js';
import type { AdmissionControl } from '../tenancy/admission/admission.js';
import type { ApiKeyService } from '../tenancy/api-keys.js';
import type { Principal } from '../tenancy/principal.js';
import { injectClient } from './api-client.js';
import { buildMcpServer, type McpCaller, type RequestExtra, type ToolRefusal } from './mcp-server.js';
import { type McpSession, McpSessions, type SessionLimits } from './sessions.js';

interface HttpSession extends McpSession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
}

export const MCP_PATH = '/mcp';

export interface McpEndpointOptions {
  version: string;
  keys: Pick<ApiKeyService, 'authenticate'>;
  admission: Pick<AdmissionControl, 'admit'>;
  limits: SessionLimits;
  bodyLimitBytes: number;
}

const MAX_KEY_LENGTH = 512;

export class McpEndpoint {
  private readonly sessions: McpSessions<HttpSession>;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: McpEndpointOptions) {
    this.sessions = new McpSessions<HttpSession>(options.limits);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  register(app: FastifyInstance): void {
    const caller = this.callerFor(app);
    app.register(async (scope) => {
      scope.addHook('onRequest', async (request) => {
        const presented = presentedKey(request);
        if (presented === undefined) {
          throw new AppError('unauthorized', 'missing X-API-Key header (or Authorization: Bearer <key>)', {
            headers: { 'www-authenticate': 'Bearer' },
          });
        }
        const auth = await this.options.keys.authenticate(presented);
        if (!auth.ok) {
          throw new AppError(
            'unauthorized',
            auth.reason === 'revoked' ? 'API key has been revoked' : 'invalid API key',
            {
              headers: { 'www-authenticate': 'Bearer' },
            },
          );
        }
        request.principal = auth.principal;
      });
      const route = { bodyLimit: this.options.bodyLimitBytes, schema: { hide: true } };
      scope.post(MCP_PATH, route, (request, reply) => this.handle(request, reply, caller));
      scope.delete(MCP_PATH, route, (request, reply) => this.handle(request, reply, caller));
      // No server-initiated messages exist here, so no standalone SSE stream is offered (the spec's 405).
      scope.get(MCP_PATH, route, async (_request, reply) =>
        reply
          .code(405)
          .header('allow', 'POST, DELETE')
          .send({ error: 'this MCP server offers no GET stream', code: 'not_supported', retryable: false }),
      );
    });
    const every = Math.min(this.options.limits.idleMs, 60_000);
    this.sweeper = setInterval(() => this.sessions.sweep(), every);
    this.sweeper.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.sessions.closeAll();
  }

  private async handle(
    request: FastifyRequest,
    reply: FastifyReply,
    caller: McpCaller,
  ): Promise<FastifyReply> {
    const principal = request.principal as Principal;
    const token = presentedKey(request) as string;
    const body = request.method === 'POST' ? request.body : undefined;
    // A tool call is admitted by the route it calls (or by admitLocal); everything else here counts as one request,
    // and so does a tool call refused before it reaches the MCP server (no session, an unknown one).
    const toolCalls = onlyToolCalls(body);
    if (!toolCalls) await this.admitOrThrow(principal);
    const refuse = async (error: AppError): Promise<never> => {
      if (toolCalls) await this.admitOrThrow(principal);
      throw error;
    };
    const header = request.headers['mcp-session-id'];
    let transport: WebStandardStreamableHTTPServerTransport;
    if (header === undefined) {
      if (request.method !== 'POST' || !isInitialize(body)) {
        return refuse(
          new AppError('bad_request', 'no Mcp-Session-Id header: open a session with initialize first'),
        );
      }
      if (!this.sessions.hasRoom()) {
        throw new AppError(
          'service_unavailable',
          'this node holds as many MCP sessions as it may; retry later',
          {
            headers: { 'retry-after': '5' },
          },
        );
      }
      transport = await this.open(principal, caller);
    } else {
      const found = typeof header === 'string' ? this.sessions.use(header, principal.keyId) : undefined;
      if (!found) {
        return refuse(
          new AppError(
            'not_found',
            'MCP session not found (closed, expired or never opened): initialize again',
          ),
        );
      }
      transport = found.transport;
    }
    const answer = await transport.handleRequest(webRequest(request), {
      ...(body !== undefined ? { parsedBody: body } : {}),
      authInfo: { token, clientId: principal.keyId, scopes: [], extra: { principal } },
    });
    reply.code(answer.status);
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length') reply.header(name, value);
    });
    const text = await answer.text();
    return reply.send(text.length > 0 ? text : undefined);
  }

  private async open(
    principal: Principal,
    caller: McpCaller,
  ): Promise<WebStandardStreamableHTTPServerTransport> {
    const server = buildMcpServer(this.options.version, caller);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        this.sessions.add({ id, keyId: principal.keyId, transport, close: () => server.close() });
      },
      onsessionclosed: (id) => this.sessions.forget(id),
    });
    await server.connect(transport);
    return transport;
  }

  private async admitOrThrow(principal: Principal): Promise<void> {
    const refused = await this.admit(principal);
    if (refused) throw refused;
  }

  private async admit(principal: Principal): Promise<AppError | null> {
    const period = billingPeriodOf(new Date());
    const verdict = await this.options.admission.admit(principal, period.id);
    return admissionRefusal(principal, Math.floor(period.end.getTime() / 1000), verdict);
  }

  private callerFor(app: FastifyInstance): McpCaller {
    const principalOf = (extra: RequestExtra): Principal => {
      const principal = extra.authInfo?.extra?.principal;
      if (!principal) throw new Error('MCP request without the principal its endpoint sets');
      return principal as Principal;
    };
    return {
      client: (extra) => injectClient(app, extra.authInfo?.token ?? ''),
      tradingEnabled: async (extra) => principalOf(extra).mcpTrading,
      admitLocal: async (extra) => {
        const refused = await this.admit(principalOf(extra));
        return refused ? toolRefusal(refused) : null;
      },
    };
  }
}

function toolRefusal(error: AppError): ToolRefusal {
  const retryAfter = Number(error.headers?.['retry-after']);
  return {
    ...(error.toBody() as { error: string; code: string; retryable: boolean }),
    status: error.status,
    ...(Number.isFinite(retryAfter) ? { retry_after_s: retryAfter } : {}),
  };
}

function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  let key: string | undefined;
  if (typeof header === 'string' && header.length > 0) key = header;
  else {
    const auth = request.headers.authorization;
    const match = typeof auth === 'string' ? /^Bearer +(\S+)$/i.exec(auth) : null;
    key = match?.[1];
  }
  return key !== undefined && key.length <= MAX_KEY_LENGTH ? key : undefined;
}

function isRequestMessage(m: unknown, method: string): boolean {
  return (
    m !== null &&
    typeof m === 'object' &&
    (m as { method?: unknown }).method === method &&
    (m as { id?: unknown }).id !== undefined
  );
}

function isInitialize(body: unknown): boolean {
  return isRequestMessage(body, 'initialize');
}

function onlyToolCalls(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.length > 0 && messages.every((m) => isRequestMessage(m, 'tools/call'));
}

/** The web Request the SDK transport reads: only method and headers (the body is passed already parsed). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  return new Request(`http://mcp.invalid${MCP_PATH}`, { method: request.method, headers });
}
