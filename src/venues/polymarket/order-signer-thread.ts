// Order signatures off the event loop. An EIP-712 signature with viem's secp256k1 (pure JavaScript bigint
// arithmetic) held the event loop for about a millisecond per Polymarket order; a worker thread computes it instead,
// with the same viem function, so the main thread meanwhile journals the order (signing.ts) and serves others. The
// key travels to the worker with the one message that signs and is not kept there. Should the worker fail or stop,
// the main thread signs what it had not answered and everything after: an order is never refused for it.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Hex, TypedDataDefinition } from 'viem';
import { signTypedData } from 'viem/accounts';

/** What a signature is computed over: an EIP-712 definition without the signer (plain data, cloned to the worker). */
export type OrderTypedData = Pick<TypedDataDefinition, 'domain' | 'types' | 'primaryType' | 'message'>;

// Plain CommonJS evaluated in the worker: no loader hooks needed (tsx's are not inherited by a worker).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { signTypedData } = require(workerData.viemAccounts);
parentPort.on('message', ({ id, privateKey, typedData }) => {
  signTypedData({ privateKey, ...typedData }).then(
    (signature) => parentPort.postMessage({ id, signature }),
    (error) => parentPort.postMessage({ id, error: String(error && error.message) }),
  );
});
`;

interface Pending {
  resolve(signature: Hex): void;
  reject(error: Error): void;
  /** Signs this one on the main thread instead (the worker stopped before answering). */
  onMainThread(): void;
}

export class OrderSignerThread {
  private worker: Worker | null = null;
  private failed = false;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  /** The signature `privateKey` makes over `typedData`: viem's, computed on the worker thread when it runs. */
  sign(privateKey: Hex, typedData: OrderTypedData): Promise<Hex> {
    const worker = this.failed ? null : this.started();
    if (!worker) return signTypedData({ privateKey, ...typedData } as never);
    const id = this.nextId++;
    return new Promise<Hex>((resolve, reject) => {
      const onMainThread = () => {
        signTypedData({ privateKey, ...typedData } as never).then(resolve, reject);
      };
      this.pending.set(id, { resolve, reject, onMainThread });
      // Only while a signature is pending does the worker keep the process alive.
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, privateKey, typedData });
    });
  }

  /** Stops the worker; signatures it had not made yet, and later ones, are made on the main thread. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker) this.fallBack(worker);
    this.failed = true;
    await worker?.terminate();
  }

  private started(): Worker | null {
    if (this.worker) return this.worker;
    try {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { viemAccounts: createRequire(import.meta.url).resolve('viem/accounts') },
      });
      worker.unref();
      worker.on('message', (reply: { id: number; signature?: Hex; error?: string }) => {
        const waiting = this.pending.get(reply.id);
        if (!waiting) return;
        this.pending.delete(reply.id);
        if (this.pending.size === 0) worker.unref();
        if (reply.signature) waiting.resolve(reply.signature);
        else waiting.reject(new Error(`order signing failed: ${reply.error ?? 'no signature'}`));
      });
      const fail = () => this.fallBack(worker);
      worker.on('error', fail);
      worker.on('exit', fail);
      this.worker = worker;
      return worker;
    } catch {
      this.failed = true;
      return null;
    }
  }

  /** The worker is gone: the main thread signs what it had not answered, and everything after. */
  private fallBack(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.failed = true;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) w.onMainThread();
  }
}
