// OpenAPI 3.1 generated from the route schemas, plus the human reference at /docs served from local assets.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export async function installOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Omnibook API',
        version,
        description:
          'Five prediction-market exchanges (polymarket, kalshi, limitless, opinion, predictfun) behind one API. ' +
          'Every /api/v1 route needs the `X-API-Key` header. Errors are `{error, code, retryable}` ' +
          '(plus `validation_errors` on parameter errors). Exchange credentials for private routes travel in ' +
          '`X-Exchange-Credentials`: base64 of a JSON object, per exchange — kalshi `{api_key_id, private_key}`; ' +
          'polymarket `{private_key, clob_api_key?, clob_api_secret?, clob_api_passphrase?}`.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      },
      security: [{ apiKey: [] }],
    },
  });
}

/** Registered after the routes so the UI sees the finished document. */
export async function installDocsUi(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: true },
    staticCSP: true,
  });
}
