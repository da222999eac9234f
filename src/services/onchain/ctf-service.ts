// POST /polymarket/ctf/redeem, /merge and /split (spec §4, wire contract §4): the caller's contract wallet (proxy, Safe or deposit wallet) acts
// gaslessly through Polymarket's relayer, authorised by the operator's builder credentials and the owner's
// signature. Everything that would make the call fail on chain is checked first and refused with nothing submitted:
// an unknown or (for redeem) unresolved condition or a missing approval is a 400 `validation_error`; too few tokens
// or too little collateral is a 402 `insufficient_funds`, the code trading answers for an insufficient balance
// (wire contract §1), so a client handles a shortfall the same way on every route.
import { Type } from 'typebox';
import { type Address, type Hex, maxUint256 } from 'viem';
import { conditionalTokensAbi, erc20Abi } from '../../chain/abis.js';
import type { OnChain } from '../../chain/chain.js';
import {
  collateralBalance,
  mergeCall,
  positionBalances,
  readCondition,
  redeemCall,
  splitCall,
} from '../../chain/ctf.js';
import { AppError } from '../../errors/app-error.js';
import type { RelayedCall } from '../../venues/port.js';
import type { TradingCaller } from '../trading/trading-caller.js';
import { chainRead, type OnchainCall, type OnchainOptions, onchainCall } from './onchain-venue.js';

const ConditionId = Type.String({
  pattern: '^0x[0-9a-fA-F]{64}$',
  description: 'bytes32 condition id, 0x and 64 hex digits',
});
/** Base units (6 decimals): a positive integer, no sign, no leading zeros, below 2^256. */
const BaseUnits = Type.String({
  pattern: '^[1-9][0-9]{0,76}$',
  description: 'Base units (6 decimals), e.g. "1000000" = 1',
});
const BaseUnitsOrZero = Type.String({ pattern: '^(0|[1-9][0-9]{0,76})$' });
const Credentials = Type.Optional(Type.Record(Type.String(), Type.Unknown()));

export const RedeemBodySchema = Type.Object(
  {
    condition_id: ConditionId,
    neg_risk: Type.Optional(Type.Boolean({ default: false })),
    amounts: Type.Optional(
      Type.Array(BaseUnitsOrZero, {
        minItems: 2,
        maxItems: 2,
        description: 'neg_risk only (then required): [yes, no] amounts to redeem, base units',
      }),
    ),
    credentials: Credentials,
  },
  { additionalProperties: false },
);
export type RedeemBody = { condition_id: string; neg_risk?: boolean; amounts?: string[] };

export const AmountBodySchema = Type.Object(
  {
    condition_id: ConditionId,
    amount: BaseUnits,
    neg_risk: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "true for a neg-risk market's condition: through the NegRiskCollateralAdapter, as the V2 SDK",
      }),
    ),
    credentials: Credentials,
  },
  { additionalProperties: false },
);
export type AmountBody = { condition_id: string; amount: string; neg_risk?: boolean };

export const CtfResultSchema = Type.Object({
  transaction_hash: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({
    description: 'mined | confirmed | failed | pending (the relayer has not finished yet)',
  }),
});
export type CtfResult = { transaction_hash: string | null; status: string };

const STATUS = new Map([
  ['STATE_MINED', 'mined'],
  ['STATE_CONFIRMED', 'confirmed'],
  ['STATE_FAILED', 'failed'],
  ['STATE_INVALID', 'failed'],
]);

function refuse(message: string, field: string): never {
  throw new AppError('validation_error', message, { validationErrors: [`${field}: ${message}`] });
}

/** The wallet holds less than the operation needs: the trading routes' insufficient-balance answer. */
function shortfall(message: string): never {
  throw new AppError('insufficient_funds', message);
}

/** 2^256 - 1 is the largest uint256; the patterns bound digits, this bounds the value. */
function uint256(raw: string, field: string): bigint {
  const value = BigInt(raw);
  if (value > maxUint256) refuse('must fit in uint256', field);
  return value;
}

export class CtfService {
  constructor(private readonly options: OnchainOptions) {}

  async redeem(caller: TradingCaller, body: RedeemBody): Promise<CtfResult> {
    const negRisk = body.neg_risk === true;
    if (negRisk && !body.amounts) refuse('amounts ([yes, no]) is required with neg_risk', 'amounts');
    if (!negRisk && body.amounts) refuse('amounts is only taken with neg_risk: true', 'amounts');
    const amounts = body.amounts
      ? ([
          uint256(body.amounts[0] as string, 'amounts[0]'),
          uint256(body.amounts[1] as string, 'amounts[1]'),
        ] as const)
      : null;
    if (amounts && amounts[0] === 0n && amounts[1] === 0n)
      refuse('nothing to redeem: both amounts are 0', 'amounts');
    const call = await this.call(caller);
    const conditionId = body.condition_id as Hex;
    const condition = await this.condition(call.chain, conditionId, negRisk);
    if (!condition.resolved) refuse(`condition ${conditionId} is not resolved yet`, 'condition_id');
    const held = await chainRead('positions', () =>
      positionBalances(call.chain, call.signer.wallet, condition.positionIds, negRisk),
    );
    if (amounts) {
      if (held[0] < amounts[0] || held[1] < amounts[1]) {
        shortfall(`the wallet holds ${held[0]} YES and ${held[1]} NO, fewer than asked`);
      }
      await this.needOperator(call, call.chain.contracts.negRiskAdapter, 'ctf_neg_risk');
    } else {
      if (held[0] === 0n && held[1] === 0n)
        shortfall(`the wallet holds no tokens of condition ${conditionId}`);
      await this.needOperator(call, call.chain.contracts.collateralAdapter, 'ctf');
    }
    return this.submit(call, redeemCall(call.chain, conditionId, amounts));
  }

  async merge(caller: TradingCaller, body: AmountBody): Promise<CtfResult> {
    const amount = uint256(body.amount, 'amount');
    const negRisk = body.neg_risk === true;
    const call = await this.call(caller);
    const conditionId = body.condition_id as Hex;
    const condition = await this.condition(call.chain, conditionId, negRisk);
    const held = await chainRead('positions', () =>
      positionBalances(call.chain, call.signer.wallet, condition.positionIds, negRisk),
    );
    if (held[0] < amount || held[1] < amount) {
      shortfall(
        `merging ${amount} needs that many YES and NO; the wallet holds ${held[0]} YES and ${held[1]} NO`,
      );
    }
    const { contracts } = call.chain;
    if (negRisk) await this.needOperator(call, contracts.negRiskCollateralAdapter, 'ctf_neg_risk');
    else await this.needOperator(call, contracts.collateralAdapter, 'ctf');
    return this.submit(call, mergeCall(call.chain, conditionId, amount, negRisk));
  }

  async split(caller: TradingCaller, body: AmountBody): Promise<CtfResult> {
    const amount = uint256(body.amount, 'amount');
    const negRisk = body.neg_risk === true;
    const call = await this.call(caller);
    const conditionId = body.condition_id as Hex;
    const condition = await this.condition(call.chain, conditionId, negRisk);
    if (condition.resolved)
      refuse(`condition ${conditionId} is resolved; splitting it makes no sense`, 'condition_id');
    const { chain, signer } = call;
    const spender = negRisk ? chain.contracts.negRiskCollateralAdapter : chain.contracts.collateralAdapter;
    const [balance, allowance] = await chainRead('collateral', () =>
      Promise.all([
        collateralBalance(chain, signer.wallet),
        chain.client.readContract({
          address: chain.contracts.collateral,
          abi: erc20Abi,
          functionName: 'allowance',
          args: [signer.wallet, spender],
        }),
      ]),
    );
    if (balance < amount)
      shortfall(`splitting ${amount} needs that much collateral; the wallet holds ${balance}`);
    if (allowance < amount)
      refuse(
        `${spender} may not spend the wallet's collateral: POST /approvals with ${negRisk ? 'usdc_neg_risk' : 'usdc'} first`,
        'amount',
      );
    return this.submit(call, splitCall(chain, conditionId, amount, negRisk));
  }

  private async call(caller: TradingCaller): Promise<OnchainCall> {
    const call = await onchainCall(this.options, caller, 'polymarket');
    if (call.signer.signatureType === 0 || !call.venue.trading.relayWalletCalls) {
      throw new AppError(
        'not_supported',
        `gasless CTF operations act from a contract wallet (proxy 1, Safe 2 or deposit wallet 3); this session is signature_type ${call.signer.signatureType}`,
      );
    }
    return call;
  }

  private async condition(chain: OnChain, conditionId: Hex, negRisk: boolean) {
    const condition = await chainRead('the condition', () => readCondition(chain, conditionId, negRisk));
    if (condition.outcomes !== 2) refuse(`no binary condition ${conditionId} on chain`, 'condition_id');
    return condition;
  }

  private async needOperator(call: OnchainCall, operator: Address, group: string): Promise<void> {
    const approved = await chainRead('approvals', () =>
      call.chain.client.readContract({
        address: call.chain.contracts.conditionalTokens,
        abi: conditionalTokensAbi,
        functionName: 'isApprovedForAll',
        args: [call.signer.wallet, operator],
      }),
    );
    if (!approved)
      refuse(
        `the wallet has not approved ${operator} for its outcome tokens: POST /approvals with ${group} first`,
        'condition_id',
      );
  }

  private async submit(call: OnchainCall, tx: RelayedCall): Promise<CtfResult> {
    const relay = call.venue.trading.relayWalletCalls as NonNullable<
      typeof call.venue.trading.relayWalletCalls
    >;
    const done = await relay(call.ctx, call.session, [tx]);
    return { transaction_hash: done.transactionHash, status: STATUS.get(done.state) ?? 'pending' };
  }
}
