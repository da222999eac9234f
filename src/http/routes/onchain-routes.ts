// Polymarket's on-chain side (spec §4, wire contract §4): GET/POST /approvals and the gasless CTF operations
// POST /polymarket/ctf/redeem, /merge and /split. Each acts for the caller's session (managed or stored wallet, or
// per-request credentials in the body or X-Exchange-Credentials).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ownValue } from '../../domain/own-key.js';
import { AppError } from '../../errors/app-error.js';
import {
  AllowanceStatusSchema,
  ApprovalResultSchema,
  type ApprovalsService,
  type ApproveBody,
  ApproveBodySchema,
} from '../../services/onchain/approvals-service.js';
import {
  type AmountBody,
  AmountBodySchema,
  CtfResultSchema,
  type CtfService,
  type RedeemBody,
  RedeemBodySchema,
} from '../../services/onchain/ctf-service.js';
import { AUTHED_ERRORS, ErrorBody, ExchangeIdParam } from '../schemas/common.js';
import { tradingCaller } from './caller.js';

const ONCHAIN_ERRORS = { ...AUTHED_ERRORS, 403: ErrorBody, 404: ErrorBody, 501: ErrorBody } as const;
const ExchangeQuery = Type.Object({ exchange: ExchangeIdParam }, { additionalProperties: false });

type WithCredentials<T> = T & { credentials?: Record<string, unknown> };

/**
 * Amounts must arrive as strings: the validator would turn a JSON number into a string, and a number past 2^53 has
 * already been rounded by JSON.parse, so accepting it could move a different amount than the caller wrote.
 */
async function amountsAsStrings(request: FastifyRequest): Promise<void> {
  if (typeof request.body !== 'object' || request.body === null) return;
  const body = request.body as Readonly<Record<string, unknown>>;
  const amount = ownValue(body, 'amount');
  const amounts = ownValue(body, 'amounts');
  const bad =
    (amount !== undefined && typeof amount !== 'string') ||
    (Array.isArray(amounts) && amounts.some((a) => typeof a !== 'string'));
  if (bad) {
    throw new AppError('validation_error', 'amounts are decimal strings of base units, e.g. "1000000"', {
      validationErrors: ['amount / amounts: send base units as strings'],
    });
  }
}

export function onchainRoutes(app: FastifyInstance, approvals: ApprovalsService, ctf: CtfService): void {
  app.get<{ Querystring: { exchange: string } }>(
    '/approvals',
    {
      schema: {
        summary: "The funding wallet's trading approvals, read from the chain",
        description:
          "polymarket only (others 501). For the session's funding wallet (the EOA, or its proxy, Safe or deposit " +
          'wallet): the collateral allowance (token usdc) and the outcome-token operator approval (token ctf) for ' +
          'each contract V2 trading uses.',
        tags: ['on chain'],
        querystring: ExchangeQuery,
        response: {
          200: Type.Object({ success: Type.Boolean(), data: Type.Array(AllowanceStatusSchema) }),
          ...ONCHAIN_ERRORS,
        },
      },
    },
    async (request) => ({
      success: true,
      data: await approvals.status(tradingCaller(request), request.query.exchange),
    }),
  );

  app.post<{ Querystring: { exchange: string }; Body: WithCredentials<ApproveBody> }>(
    '/approvals',
    {
      schema: {
        summary: 'Grant trading approvals on chain',
        description:
          'polymarket only. An EOA (signature_type 0) sends one transaction per approval and pays gas; a wallet ' +
          'without gas gets a failed item saying so. A deposit wallet (3) grants them in one gasless relayer batch. ' +
          'Each item reports its transaction hash and success once its receipt is in.',
        tags: ['on chain'],
        querystring: ExchangeQuery,
        body: ApproveBodySchema,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            data: Type.Object({ results: Type.Array(ApprovalResultSchema), all_succeeded: Type.Boolean() }),
          }),
          ...ONCHAIN_ERRORS,
        },
      },
    },
    async (request) => {
      const { credentials, ...body } = request.body;
      const data = await approvals.approve(tradingCaller(request, credentials), request.query.exchange, body);
      return { success: data.all_succeeded, data };
    },
  );

  const ctfSchema = (
    summary: string,
    description: string,
    body: typeof RedeemBodySchema | typeof AmountBodySchema,
  ) => ({
    preValidation: amountsAsStrings,
    schema: {
      summary,
      description: `${description} Gasless through Polymarket's relayer, from the session's deposit wallet (signature_type 3; others 501). Refused with nothing submitted when it could not succeed on chain: 402 insufficient_funds when the wallet holds too few tokens or too little collateral, 400 otherwise.`,
      tags: ['on chain'],
      body,
      response: { 200: CtfResultSchema, ...ONCHAIN_ERRORS, 402: ErrorBody },
    },
  });

  app.post<{ Body: WithCredentials<RedeemBody> }>(
    '/polymarket/ctf/redeem',
    ctfSchema(
      "Redeem a resolved market's outcome tokens for collateral",
      'neg_risk: true redeems [yes, no] `amounts` through the neg-risk adapter; otherwise everything held.',
      RedeemBodySchema,
    ),
    async (request) => {
      const { credentials, ...body } = request.body;
      return ctf.redeem(tradingCaller(request, credentials), body);
    },
  );
  app.post<{ Body: WithCredentials<AmountBody> }>(
    '/polymarket/ctf/merge',
    ctfSchema(
      'Merge equal YES and NO into collateral',
      "The wallet must hold at least `amount` of both. neg_risk: true merges a neg-risk market's tokens through the neg-risk collateral adapter (approval ctf_neg_risk).",
      AmountBodySchema,
    ),
    async (request) => {
      const { credentials, ...body } = request.body;
      return ctf.merge(tradingCaller(request, credentials), body);
    },
  );
  app.post<{ Body: WithCredentials<AmountBody> }>(
    '/polymarket/ctf/split',
    ctfSchema(
      'Split collateral into equal YES and NO',
      'The wallet must hold `amount` of collateral and have approved the collateral adapter (usdc), or for neg_risk: true (a neg-risk market) the neg-risk collateral adapter (usdc_neg_risk).',
      AmountBodySchema,
    ),
    async (request) => {
      const { credentials, ...body } = request.body;
      return ctf.split(tradingCaller(request, credentials), body);
    },
  );
}
