// GET and POST /approvals (spec §4): the caller's funding wallet's approvals read from the chain, and the asked
// ones granted. An EOA (signature type 0) sends and pays for its own transactions, one per approval, each awaited
// to its receipt; a contract wallet — proxy (1), Safe (2) or deposit wallet (3) — grants them in one gasless relayer transaction. A wallet that cannot
// pay gas gets a per-item failure saying so, not an error for the whole call.
import { Type } from 'typebox';
import {
  ALL_APPROVALS,
  type AllowanceStatus,
  APPROVAL_GROUPS,
  APPROVAL_TARGETS,
  APPROVAL_TOKENS,
  type ApprovalGroup,
  type ApprovalItem,
  approvalCall,
  approvalsOf,
  readApprovals,
} from '../../chain/approvals.js';
import { sendOwnTransaction } from '../../chain/send.js';
import { AppError } from '../../errors/app-error.js';
import type { TradingCaller } from '../trading/trading-caller.js';
import { chainRead, type OnchainOptions, onchainCall } from './onchain-venue.js';

export const AllowanceStatusSchema = Type.Object({
  token: Type.Enum(APPROVAL_TOKENS, { description: 'usdc: the collateral (pUSD); ctf: the outcome tokens' }),
  target: Type.Enum(APPROVAL_TARGETS),
  approved: Type.Boolean(),
  details: Type.String(),
});

export const ApprovalResultSchema = Type.Object({
  token: Type.Enum(APPROVAL_TOKENS),
  target: Type.Enum(APPROVAL_TARGETS),
  tx_hash: Type.String({ description: 'Empty when nothing reached the chain' }),
  success: Type.Boolean(),
  error: Type.Optional(Type.String({ description: 'Why this approval failed' })),
});
export type ApprovalResult = {
  token: ApprovalItem['token'];
  target: ApprovalItem['target'];
  tx_hash: string;
  success: boolean;
  error?: string;
};

export const ApproveBodySchema = Type.Object(
  {
    all: Type.Optional(Type.Boolean({ default: false })),
    usdc: Type.Optional(Type.Boolean({ default: false })),
    ctf: Type.Optional(Type.Boolean({ default: false })),
    usdc_neg_risk: Type.Optional(Type.Boolean({ default: false })),
    ctf_neg_risk: Type.Optional(Type.Boolean({ default: false })),
    credentials: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);
export type ApproveBody = { [K in ApprovalGroup | 'all']?: boolean };

export class ApprovalsService {
  constructor(private readonly options: OnchainOptions) {}

  async status(caller: TradingCaller, exchange: string): Promise<AllowanceStatus[]> {
    const { chain, signer } = await onchainCall(this.options, caller, exchange);
    return chainRead('approvals', () => readApprovals(chain, signer.wallet));
  }

  async approve(
    caller: TradingCaller,
    exchange: string,
    body: ApproveBody,
  ): Promise<{ results: ApprovalResult[]; all_succeeded: boolean }> {
    const items = body.all
      ? [...ALL_APPROVALS]
      : APPROVAL_GROUPS.filter((g) => body[g] === true).flatMap(approvalsOf);
    if (items.length === 0) {
      throw new AppError(
        'validation_error',
        'ask for at least one approval: all, usdc, ctf, usdc_neg_risk or ctf_neg_risk',
        {
          validationErrors: ['body: set all or one of usdc, ctf, usdc_neg_risk, ctf_neg_risk to true'],
        },
      );
    }
    const { venue, chain, ctx, signer, session } = await onchainCall(this.options, caller, exchange);
    const calls = items.map((item) => approvalCall(chain.contracts, item));
    let results: ApprovalResult[];
    if (signer.signatureType === 0) {
      results = [];
      // One after another: each takes the account's next nonce.
      for (const [i, item] of items.entries()) {
        const sent = await sendOwnTransaction(
          chain,
          signer.privateKey,
          calls[i] as (typeof calls)[number],
          this.options.receiptTimeoutMs,
        );
        results.push({
          ...item,
          tx_hash: sent.txHash ?? '',
          success: sent.success,
          ...(sent.success ? {} : { error: sent.error }),
        });
      }
    } else if (venue.trading.relayWalletCalls) {
      // A contract wallet (proxy 1, Safe 2, deposit wallet 3): one gasless relayer transaction, all or nothing.
      const tx = await venue.trading.relayWalletCalls(ctx, session, calls);
      const success = tx.state === 'STATE_MINED' || tx.state === 'STATE_CONFIRMED';
      results = items.map((item) => ({
        ...item,
        tx_hash: tx.transactionHash ?? '',
        success,
        ...(success ? {} : { error: `the relayer reports the batch ${tx.state}` }),
      }));
    } else {
      throw new AppError(
        'not_supported',
        `approvals from a contract wallet (signature_type ${signer.signatureType}) go through a relayer this venue does not offer`,
      );
    }
    return { results, all_succeeded: results.every((r) => r.success) };
  }
}
