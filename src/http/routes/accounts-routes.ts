// POST /onboard, GET /wallet, POST /wallet/export-key: the calling key's customer links exchanges and reads or
// exports its managed wallet. Bodies carry secrets: they are never logged, and errors name fields only.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  ExportedKey,
  ExportKeyBody,
  OnboardBody,
  OnboardResult,
  WalletState,
} from '../../services/accounts/accounts-schema.js';
import type { AccountCaller, OnboardingService } from '../../services/accounts/onboarding-service.js';
import type { WalletService } from '../../services/accounts/wallet-service.js';
import { principalOf } from '../plugins/authenticate.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';

function accountCaller(request: FastifyRequest): AccountCaller {
  return { customerId: principalOf(request).customerId, requestId: request.id, logger: request.log };
}

export function accountsRoutes(
  app: FastifyInstance,
  onboarding: OnboardingService,
  wallet: WalletService,
): void {
  app.post<{ Body: OnboardBody }>(
    '/onboard',
    {
      schema: {
        summary: 'Link an exchange: store your credentials (self) or create a managed wallet (managed)',
        description:
          'Credentials are proven with one authenticated call to the exchange before they are sealed (AES-256-GCM) ' +
          'in the vault; later private calls need only the API key. Polymarket self: `private_key` (CLOB ' +
          'credentials optional, derived when absent), `wallet_type` eoa|safe|proxy|deposit with `funder_address`. ' +
          'Kalshi self: `api_key_id` + PEM `private_key`. Polymarket managed: the service creates the EOA and its ' +
          'deposit wallet. Repeating a call is safe and answers the same addresses.',
        tags: ['accounts'],
        body: OnboardBody,
        response: {
          200: OnboardResult,
          403: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          501: ErrorBody,
          ...AUTHED_ERRORS,
        },
      },
    },
    async (request) => onboarding.onboard(accountCaller(request), request.body),
  );

  app.get(
    '/wallet',
    {
      schema: {
        summary: 'The managed wallets and linked exchanges of this account',
        tags: ['accounts'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: WalletState, ...AUTHED_ERRORS },
      },
    },
    async (request) => wallet.state(principalOf(request).customerId),
  );

  app.post<{ Body: ExportKeyBody }>(
    '/wallet/export-key',
    {
      schema: {
        summary: "Export a managed wallet's private key",
        description: 'Managed wallets only. Each export is recorded in the audit log (without the key).',
        tags: ['accounts'],
        body: ExportKeyBody,
        response: { 200: ExportedKey, 404: ErrorBody, ...AUTHED_ERRORS },
      },
    },
    async (request, reply) => {
      const exported = await wallet.exportKey(accountCaller(request), request.body);
      // A private key must not linger in a shared or browser cache.
      return reply.header('cache-control', 'no-store').send(exported);
    },
  );
}
