// Fee escrow on the order path (wire contract §5): checks a builder order's `fee_auth` before anything reaches an
// exchange — its shape, payer_address and signer_address against the payer, the deadline, the configured minimum,
// and the EIP-712 signature (viem here; the contract recovers the signer again on chain) — then records the fee
// (fee_escrows, `held`) and pulls it into the FeeEscrow contract immediately before the order is sent, gives it back
// if the exchange refuses the order, and settles it once the order is closed: the filled share to the affiliate (the
// builder tier's bps) and the treasury, the rest back to the payer. The escrow id is the fee_auth's order_id,
// journalled with the order. A request that sees its order closed settles at once (`follow`); the background job
// (fee-settlement-job.ts) settles the rest. The contract closes an escrow once, whoever asks first; `settle` reads
// the chain again when its own call fails, so a fee someone else settled is recorded settled, never settled twice.
import type { Hex } from 'viem';
import {
  EscrowCallError,
  type EscrowRecord,
  type FeeEscrowContract,
  type PullFeeAuth,
  pullFeeSigner,
} from '../../chain/fee-escrow/fee-escrow-contract.js';
import type { Config } from '../../config/schema.js';
import type { BuilderTierName } from '../../domain/builder-tiers.js';
import { ownValue } from '../../domain/own-key.js';
import type { Order } from '../../domain/trading.js';
import { AppError, validationError } from '../../errors/app-error.js';
import type { FeeEscrowsRepo } from '../../store/fee-escrows-repo.js';
import type { OrderJournalRepo } from '../../store/order-journal-repo.js';
import type { Principal } from '../../tenancy/principal.js';
import type { LoggerLike } from '../../venues/port.js';
import type { CallerContext } from '../caller-context.js';
import { chargeOfRow, type OrderCharge } from '../trading/orders-service.js';
import type { FeeEscrow, FeeFields } from './fee-escrow.js';
import { minimumFee } from './fee-minimum.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
const AMOUNT = /^[0-9]{1,30}$/;
const ZERO_ADDRESS = `0x${'0'.repeat(40)}` as Hex;
/** Fills and sizes go to the contract as integers of this many units per share (exchanges size to 1e-6 at most). */
const SIZE_UNITS = 1_000_000;
// A rejected order (e.g. one found absent after an unknown send) filled nothing: its fee is refunded.
export const CLOSED = new Set<Order['status']>(['filled', 'cancelled', 'expired', 'rejected']);

/** What a closed order's fee settlement distributes: `filled` of `size`, in millionths of a share. */
export interface FeeSplit {
  filled: bigint;
  size: bigint;
}

/** A full refund: nothing of the order was filled. */
export const REFUND: FeeSplit = { filled: 0n, size: 1n };

/** The split of a closed order: its filled share of its size (a filled order distributes the whole fee). */
export function splitOf(order: Order): FeeSplit {
  const size = BigInt(Math.round(order.size * SIZE_UNITS));
  if (size <= 0n) return REFUND;
  if (order.status === 'filled') return { filled: size, size };
  const filled = BigInt(Math.round(Math.min(Math.max(order.filled, 0), order.size) * SIZE_UNITS));
  return { filled, size };
}

export interface FeeEscrowServiceDeps {
  contract: FeeEscrowContract;
  /** The FeeEscrow's treasury, read from the contract at start. */
  treasury: string;
  journal: OrderJournalRepo;
  fees: FeeEscrowsRepo;
  config: Config['builder'];
  /** The calling builder's revenue tier (its affiliate share). */
  tierOf: (builder: Principal) => Promise<BuilderTierName>;
  clock?: () => number;
}

export class FeeEscrowService implements FeeEscrow {
  private readonly clock: () => number;

  constructor(private readonly deps: FeeEscrowServiceDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  get address(): string {
    return this.deps.contract.address;
  }

  get chainId(): number {
    return this.deps.contract.chainId;
  }

  get treasury(): string {
    return this.deps.treasury;
  }

  async authorize(
    builder: Principal,
    fields: FeeFields,
    order: { price: number; size: number },
    caller: CallerContext,
  ): Promise<OrderCharge> {
    const auth = parseFeeAuth(fields);
    const nowS = Math.floor(this.clock() / 1000);
    if (auth.deadline <= BigInt(nowS)) {
      throw new AppError('bad_request', `fee_auth.deadline ${auth.deadline} has passed (now ${nowS})`);
    }
    const minimum = minimumFee(order, this.deps.config);
    if (auth.feeAmount < minimum) {
      throw new AppError(
        'bad_request',
        `fee_auth.fee_amount ${auth.feeAmount} is under the minimum fee of ${minimum} (USDC base units) for this order`,
      );
    }
    const signer = await pullFeeSigner(this.chainId, this.deps.contract.address as Hex, auth);
    if (signer === null || signer.toLowerCase() !== auth.payer.toLowerCase()) {
      throw new AppError(
        'bad_request',
        'fee_auth.signature is not the payer’s EIP-712 PullFee signature for this escrow (GET /builder/escrow/config)',
      );
    }
    const tier = await this.deps.tierOf(builder);
    const affiliate = (fields.affiliate ?? this.deps.config.affiliateAddress ?? ZERO_ADDRESS) as Hex;
    const affiliateBps = affiliate === ZERO_ADDRESS ? 0 : this.deps.config.tiers[tier].affiliateFeeBps;
    const { contract, fees } = this.deps;
    const orderId = auth.orderId.toLowerCase() as Hex;
    return {
      reference: orderId,
      take: async (order) => {
        // Recorded before the pull, so a fee pulled for an order that is then never sent (the process stopped in
        // between) is found and refunded by the settlement job.
        if (
          !(await fees.insert({ orderId, ...order, deadlineS: Number(auth.deadline), nowMs: this.clock() }))
        ) {
          throw new AppError('conflict', 'fee_auth.order_id has already escrowed a fee; sign a new order_id');
        }
        try {
          await contract.pull(auth, affiliate, affiliateBps);
        } catch (error) {
          // A pull the contract refused took nothing and leaves no record, so the same fee_auth may be presented
          // again (after an approval, say). One whose outcome is unknown (no receipt in time: the transaction may
          // still be mined) stays held; the settlement job refunds it, or forgets it once its deadline has passed.
          if (error instanceof EscrowCallError && error.kind === 'reverted') await fees.forget(orderId);
          throw pullError(error);
        }
      },
      giveBack: async () => {
        try {
          await this.settle(orderId, REFUND);
        } catch (error) {
          // The settlement job refunds it later (the payer can also reclaim it from the contract after its delay);
          // the order's own error is the answer.
          caller.logger.error(
            { err: error, fee_order_id: orderId },
            'fee escrow: refund of a refused order failed; the settlement job will retry',
          );
        }
      },
    };
  }

  /** Settles the fee journalled with this order once the order is closed; does nothing for others. */
  async follow(caller: CallerContext & { tenant: string }, exchange: string, order: Order): Promise<void> {
    if (!CLOSED.has(order.status)) return;
    const row = await this.deps.journal.find(caller.tenant, exchange, order.client_order_id ?? order.id);
    const reference = row ? chargeOfRow(row) : null;
    if (reference === null) return;
    try {
      await this.settle(reference as Hex, splitOf(order));
    } catch (error) {
      // The order's answer stands; the settlement job (or the next read of it) settles again.
      caller.logger.warn(
        { err: error, fee_order_id: reference },
        'fee escrow: settlement failed; will retry',
      );
    }
  }

  /** The escrow's state on chain. */
  record(orderId: Hex): Promise<EscrowRecord> {
    return this.deps.contract.record(orderId);
  }

  /**
   * Closes the escrow of `orderId` with `split` (distributed pro rata, the rest refunded) unless the contract closed
   * it already, and records it settled. Safe to call from any number of requests and nodes at once: the contract
   * closes an escrow once, and a call that lost the race finds it closed when it reads the chain again.
   */
  async settle(
    orderId: Hex,
    split: FeeSplit,
    logger?: LoggerLike,
  ): Promise<'settled' | 'settled_before' | 'none'> {
    const { contract, fees } = this.deps;
    const before = await contract.record(orderId);
    if (before.state === 'none') return 'none';
    if (before.state === 'held') {
      try {
        await contract.settle(orderId, split.filled, split.size);
        await fees.settled(orderId, split, this.clock());
        return 'settled';
      } catch (error) {
        if ((await contract.record(orderId)).state !== 'settled') throw error;
        logger?.info({ fee_order_id: orderId }, 'fee escrow: settled by another caller meanwhile');
      }
    }
    await fees.settled(orderId, null, this.clock());
    return 'settled_before';
  }
}

function parseFeeAuth(fields: FeeFields): PullFeeAuth {
  const raw = fields.fee_auth;
  if (raw === undefined) throw validationError(['body.fee_auth is required with fee escrow fields']);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw validationError(['body.fee_auth must be an object']);
  }
  const a = raw as Record<string, unknown>;
  const errors: string[] = [];
  const str = (name: string, re: RegExp, what: string): string => {
    const v = ownValue(a, name);
    if (typeof v !== 'string' || !re.test(v)) {
      errors.push(`body.fee_auth.${name} must be ${what}`);
      return '';
    }
    return v;
  };
  const orderId = str('order_id', BYTES32, 'a 0x-prefixed 32-byte hex string');
  const payer = str('payer', ADDRESS, 'an address');
  const feeAmount = str('fee_amount', AMOUNT, 'a USDC base-unit integer string');
  const signature = str('signature', SIGNATURE, 'a 0x-prefixed 65-byte hex signature');
  const deadline = ownValue(a, 'deadline');
  if (typeof deadline !== 'number' || !Number.isSafeInteger(deadline) || deadline < 0) {
    errors.push('body.fee_auth.deadline must be Unix seconds (an integer)');
  }
  for (const key of Object.keys(a)) {
    if (!['order_id', 'payer', 'fee_amount', 'deadline', 'signature'].includes(key)) {
      errors.push(`body.fee_auth.${key} is not a fee_auth field`);
    }
  }
  if (feeAmount !== '' && BigInt(feeAmount) === 0n) errors.push('body.fee_auth.fee_amount must be positive');
  for (const [name, value] of [
    ['payer_address', fields.payer_address],
    ['signer_address', fields.signer_address],
    ['affiliate', fields.affiliate],
  ] as const) {
    if (value !== undefined && !ADDRESS.test(value)) errors.push(`body.${name} must be an address`);
  }
  if (errors.length > 0) throw validationError(errors);
  // The payer signs for itself: an order naming another payer or signer than the fee_auth's is refused.
  for (const [name, value] of [
    ['payer_address', fields.payer_address],
    ['signer_address', fields.signer_address],
  ] as const) {
    if (value !== undefined && value.toLowerCase() !== payer.toLowerCase()) {
      throw new AppError('bad_request', `body.${name} ${value} is not fee_auth.payer ${payer}`);
    }
  }
  return {
    orderId: orderId as Hex,
    payer: payer as Hex,
    feeAmount: BigInt(feeAmount),
    deadline: BigInt(deadline as number),
    signature: signature as Hex,
  };
}

function pullError(error: unknown): AppError {
  if (!(error instanceof EscrowCallError)) {
    return new AppError('service_unavailable', 'fee escrow: the chain did not take the fee');
  }
  if (error.kind === 'unreachable') {
    return new AppError('service_unavailable', 'fee escrow: the chain RPC endpoint did not answer');
  }
  if (/insufficient (allowance|balance)/.test(error.message)) {
    return new AppError(
      'insufficient_funds',
      `fee escrow: the payer cannot pay the fee (${error.message}); it must hold fee_amount and approve the escrow contract for it`,
    );
  }
  if (/order id already used/.test(error.message)) {
    return new AppError('conflict', 'fee_auth.order_id has already escrowed a fee; sign a new order_id');
  }
  if (error.kind === 'reverted') {
    return new AppError('bad_request', `fee escrow refused fee_auth: ${error.message}`);
  }
  return new AppError('service_unavailable', `fee escrow: ${error.message}`);
}
