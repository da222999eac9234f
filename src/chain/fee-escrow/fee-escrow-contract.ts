// Our FeeEscrow contract (FeeEscrow.sol beside this file) through viem: the EIP-712 `PullFee` the payer signs
// (wire contract §5), its off-chain check, and the operator's calls (pull the fee into escrow, settle it). The
// contract recovers the signer itself on chain, so the API's viem reading of a signature and the contract's own
// ecrecover are independent of each other: a misreading on one side cannot cancel out on the other.
import {
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  HttpRequestError,
  parseAbi,
  recoverTypedDataAddress,
  TimeoutError,
} from 'viem';
import type { OnChain } from '../chain.js';

export const FEE_ESCROW_DOMAIN_NAME = 'Omnibook FeeEscrow';
export const FEE_ESCROW_DOMAIN_VERSION = '1';

/** The contract's interface (a test checks it against the ABI solc produced from FeeEscrow.sol). */
export const feeEscrowAbi = parseAbi([
  'function token() view returns (address)',
  'function operator() view returns (address)',
  'function treasury() view returns (address)',
  'function escrows(bytes32) view returns (address payer, address affiliate, uint256 amount, uint16 affiliateBps, uint64 pulledAt, uint8 state)',
  'function pullFeeDigest(bytes32 orderId, address payer, uint256 feeAmount, uint256 deadline) view returns (bytes32)',
  'function pullFeeSigner(bytes32 orderId, address payer, uint256 feeAmount, uint256 deadline, bytes signature) view returns (address)',
  'function pullFee(bytes32 orderId, address payer, uint256 feeAmount, uint256 deadline, bytes signature, address affiliate, uint16 affiliateBps)',
  'function settle(bytes32 orderId, uint256 filled, uint256 size)',
  'function reclaim(bytes32 orderId)',
]);

export const PULL_FEE_TYPES = {
  PullFee: [
    { name: 'orderId', type: 'bytes32' },
    { name: 'payer', type: 'address' },
    { name: 'feeAmount', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export interface PullFeeAuth {
  orderId: Hex;
  payer: Hex;
  feeAmount: bigint;
  deadline: bigint;
  signature: Hex;
}

export function pullFeeDomain(chainId: number, escrow: Hex) {
  return {
    name: FEE_ESCROW_DOMAIN_NAME,
    version: FEE_ESCROW_DOMAIN_VERSION,
    chainId,
    verifyingContract: escrow,
  } as const;
}

/** Who signed the PullFee (viem's recovery); null for a signature that recovers to nobody. */
export async function pullFeeSigner(chainId: number, escrow: Hex, auth: PullFeeAuth): Promise<Hex | null> {
  try {
    return await recoverTypedDataAddress({
      domain: pullFeeDomain(chainId, escrow),
      types: PULL_FEE_TYPES,
      primaryType: 'PullFee',
      message: {
        orderId: auth.orderId,
        payer: auth.payer,
        feeAmount: auth.feeAmount,
        deadline: auth.deadline,
      },
      signature: auth.signature,
    });
  } catch {
    return null;
  }
}

export type EscrowState = 'none' | 'held' | 'settled';
const STATES: readonly EscrowState[] = ['none', 'held', 'settled'];

export interface EscrowRecord {
  state: EscrowState;
  payer: Hex;
  amount: bigint;
}

/** A chain call's failure, without the RPC URL or the request: `reverted` carries the contract's reason. */
export class EscrowCallError extends Error {
  constructor(
    message: string,
    readonly kind: 'reverted' | 'unreachable' | 'failed',
  ) {
    super(message);
  }
}

export class FeeEscrowContract {
  /**
   * The operator's transactions are submitted one at a time: each takes its nonce from the node's pending count,
   * so two submitted at once (a request's pull and the settlement job's settle, say) would both take the same one
   * and one of them would fail. Only the submission is serialized; receipts are awaited concurrently.
   */
  private submitting: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly chain: OnChain,
    readonly address: Hex,
    private readonly operatorKey: Hex,
    private readonly receiptTimeoutMs: number,
  ) {}

  get chainId(): number {
    return this.chain.chain.id;
  }

  treasury(): Promise<Hex> {
    return this.read(() =>
      this.chain.client.readContract({ address: this.address, abi: feeEscrowAbi, functionName: 'treasury' }),
    );
  }

  async record(orderId: Hex): Promise<EscrowRecord> {
    const [payer, , amount, , , state] = await this.read(() =>
      this.chain.client.readContract({
        address: this.address,
        abi: feeEscrowAbi,
        functionName: 'escrows',
        args: [orderId],
      }),
    );
    return { state: STATES[state] ?? 'none', payer, amount };
  }

  /** Moves the fee into escrow; the contract checks the signature, deadline and single use again. */
  pull(auth: PullFeeAuth, affiliate: Hex, affiliateBps: number): Promise<Hex> {
    return this.write('pullFee', [
      auth.orderId,
      auth.payer,
      auth.feeAmount,
      auth.deadline,
      auth.signature,
      affiliate,
      affiliateBps,
    ]);
  }

  /** Distributes `filled / size` of the fee and refunds the rest. */
  settle(orderId: Hex, filled: bigint, size: bigint): Promise<Hex> {
    return this.write('settle', [orderId, filled, size]);
  }

  private async write(functionName: 'pullFee' | 'settle', args: readonly unknown[]): Promise<Hex> {
    const wallet = this.chain.wallet(this.operatorKey);
    const submit = async (): Promise<Hex> => {
      // Simulated first, so a revert comes back with the contract's reason and costs no gas.
      const { request } = await this.chain.client.simulateContract({
        address: this.address,
        abi: feeEscrowAbi,
        functionName,
        args: args as never,
        account: wallet.account,
      });
      return wallet.writeContract(request as never);
    };
    const submitted = this.submitting.then(submit);
    this.submitting = submitted.catch(() => undefined);
    let hash: Hex;
    try {
      hash = await submitted;
    } catch (error) {
      throw callError(error);
    }
    try {
      const receipt = await this.chain.client.waitForTransactionReceipt({
        hash,
        timeout: this.receiptTimeoutMs,
      });
      if (receipt.status !== 'success') throw new EscrowCallError('the transaction reverted', 'reverted');
      return hash;
    } catch (error) {
      if (error instanceof EscrowCallError) throw error;
      throw callError(error);
    }
  }

  private async read<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw callError(error);
    }
  }
}

function callError(error: unknown): EscrowCallError {
  if (!(error instanceof BaseError)) return new EscrowCallError('the chain refused the call', 'failed');
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError) {
    return new EscrowCallError(reverted.reason ?? 'the contract reverted', 'reverted');
  }
  if (error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError)) {
    return new EscrowCallError('the chain RPC endpoint did not answer', 'unreachable');
  }
  return new EscrowCallError(error.shortMessage, 'failed');
}
