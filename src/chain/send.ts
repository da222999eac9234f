// A transaction the owner's key sends and pays gas for, awaited to its receipt. Failures come back as a short,
// secret-free reason (never the RPC URL, which may carry a provider key, nor the request) rather than a throw, so a
// batch can report each item.
import {
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  HttpRequestError,
  InsufficientFundsError,
  TimeoutError,
  TransactionExecutionError,
  WaitForTransactionReceiptTimeoutError,
} from 'viem';
import type { OnChain } from './chain.js';

export type SentTransaction =
  | { success: true; txHash: Hex }
  | { success: false; txHash: Hex | null; error: string };

export async function sendOwnTransaction(
  chain: OnChain,
  privateKey: Hex,
  call: { to: Hex; data: Hex },
  receiptTimeoutMs: number,
): Promise<SentTransaction> {
  const wallet = chain.wallet(privateKey);
  let txHash: Hex;
  try {
    txHash = await wallet.sendTransaction({
      to: call.to,
      data: call.data,
      account: wallet.account,
      chain: chain.chain,
    });
  } catch (error) {
    return { success: false, txHash: null, error: reason(error) };
  }
  try {
    const receipt = await chain.client.waitForTransactionReceipt({ hash: txHash, timeout: receiptTimeoutMs });
    return receipt.status === 'success'
      ? { success: true, txHash }
      : { success: false, txHash, error: 'the transaction reverted' };
  } catch (error) {
    return { success: false, txHash, error: reason(error) };
  }
}

function reason(error: unknown): string {
  if (!(error instanceof BaseError)) return 'the chain refused the transaction';
  if (error.walk((e) => e instanceof InsufficientFundsError)) {
    return 'the wallet has not enough native token (POL) to pay for gas';
  }
  if (error.walk((e) => e instanceof WaitForTransactionReceiptTimeoutError)) {
    return 'the transaction was sent but no receipt came in time';
  }
  if (error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError)) {
    return 'the chain RPC endpoint did not answer';
  }
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError)
    return `the call would revert: ${reverted.reason ?? 'no reason'}`;
  if (error instanceof TransactionExecutionError)
    return `the chain refused the transaction: ${error.shortMessage}`;
  return `the chain refused the transaction: ${error.shortMessage}`;
}
