// The gasless relayer's deposit-wallet path (relayer-v2.polymarket.com): `POST /submit` with
// `{type: "WALLET-CREATE", from: <owner EOA>, to: <DepositWalletFactory>}` — no user signature in the payload,
// authenticated with the operator's builder HMAC headers (POLY_BUILDER_*, same HMAC as CLOB L2) — deploys the
// owner's deposit wallet; `GET /transaction?id=` follows it; `GET /relay-payload?address&type=WALLET` and
// `GET /deployed?address&type=WALLET` are the public look-ups. Transactions are mined at once here.
// `{type: "WALLET", from: <owner>, to: <factory>, nonce, signature, depositWalletParams: {depositWallet, deadline,
// calls: [{target, value, data}]}}` runs a deposit wallet's calls (what `@polymarket/builder-relayer-client`'s
// `executeDepositWalletBatch` sends): the owner's EIP-712 `Batch` signature in the `DepositWallet` v1 domain is
// checked against the wallet's owner, the nonce (`GET /nonce?address=<owner>&type=WALLET`) and the deadline, then the
// batch goes on chain as one transaction from the relayer's key to the factory, whose wallet contract checks the
// same signature, nonce and deadline again and runs every call or none (a reverting call fails the whole batch:
// STATE_FAILED, nothing moved, nonce unspent). With a chain, WALLET-CREATE deploys the wallet contract and the nonce
// is the wallet's own `nonce()`; without one, deposit wallets exist only in the simulator's registry and WALLET
// batches are refused. The Safe (SAFE-CREATE, SAFE) and proxy-wallet (PROXY) types are relayer-safe-proxy.ts.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type Hex, verifyTypedData } from 'viem';
import { ownValue } from '../shared/own-key.js';
import { l2Signature } from './auth.js';
import type { PmContext } from './context.js';
import { RELAYER_ERRORS } from './errors.js';
import { type Ctx, fail, parseBody, type Route, send } from './http-util.js';
import { type SafeProxyType, safeProxyRelayer } from './relayer-safe-proxy.js';
import { WALLET_FACTORIES } from './wallet-registry.js';

export interface BuilderCreds {
  key: string;
  secret: string;
  passphrase: string;
}

interface RelayerTx {
  transactionID: string;
  transactionHash: string;
  from: string;
  to: string;
  proxyAddress: string;
  type: string;
  state: string;
  createdAt: string;
  updatedAt: string;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const UINT = /^\d{1,78}$/;
/** A look-up's `type`: which kind of contract wallet it is about (none: any). */
const KIND_OF_TYPE = new Map([
  ['WALLET', 'deposit'],
  ['SAFE', 'safe'],
  ['PROXY', 'proxy'],
] as const);
const SAFE_PROXY_TYPES = new Set<unknown>(['SAFE', 'SAFE-CREATE', 'PROXY']);

const BATCH_TYPES = {
  Call: [
    { name: 'target', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
  ],
  Batch: [
    { name: 'wallet', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'calls', type: 'Call[]' },
  ],
} as const;

interface WalletCall {
  target: Hex;
  value: string;
  data: Hex;
}

function walletCalls(raw: unknown): WalletCall[] | null {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 50) return null;
  const out: WalletCall[] = [];
  for (const c of raw) {
    if (typeof c !== 'object' || c === null) return null;
    const { target, value, data } = c as Record<string, unknown>;
    if (typeof target !== 'string' || !ADDRESS.test(target)) return null;
    if (typeof value !== 'string' || !UINT.test(value)) return null;
    if (typeof data !== 'string' || !HEX_DATA.test(data)) return null;
    out.push({ target: target as Hex, value, data: data as Hex });
  }
  return out;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = ownValue(headers, name.toLowerCase());
  return Array.isArray(value) ? value[0] : value;
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Deploys (records, and with a chain deploys the contract of) the owner's deposit wallet. `created` is false when it
 * already existed; `txHash` is the factory transaction when there is a chain.
 */
export async function createDepositWallet(
  pm: PmContext,
  eoa: string,
): Promise<{ address: string; created: boolean; txHash: Hex | null }> {
  const existing = pm.wallets.find(eoa)?.wallets.get('deposit');
  if (existing) return { address: existing, created: false, txHash: null };
  const address = pm.wallets.predict(eoa, 'deposit');
  // On chain first: a wallet the registry knows must have its contract when there is a chain.
  const txHash = pm.chain ? await pm.chain.deployDepositWallet(eoa, address) : null;
  return { ...pm.wallets.deploy(eoa, 'deposit'), txHash };
}

export function relayerRoutes(pm: PmContext, builder: BuilderCreds): Route[] {
  const txs = new Map<string, RelayerTx>();
  const safeProxy = safeProxyRelayer(pm);

  const authorised = (ctx: Ctx): boolean => {
    const h = ctx.req.headers;
    const key = header(h, 'POLY_BUILDER_API_KEY');
    const passphrase = header(h, 'POLY_BUILDER_PASSPHRASE');
    const signature = header(h, 'POLY_BUILDER_SIGNATURE');
    const timestamp = header(h, 'POLY_BUILDER_TIMESTAMP');
    if (!key || !passphrase || !signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > pm.authWindowSeconds) return false;
    if (!same(key, builder.key) || !same(passphrase, builder.passphrase)) return false;
    return same(signature, l2Signature(builder.secret, timestamp, ctx.method, ctx.path, ctx.body));
  };

  const walletQuery = (ctx: Ctx): { address: string; type: 'WALLET' | 'SAFE' | 'PROXY' | null } | null => {
    const address = ctx.query.get('address');
    const type = ctx.query.get('type');
    if (!address || !ADDRESS.test(address) || (type !== null && !KIND_OF_TYPE.has(type as 'WALLET'))) {
      fail(ctx, 400, RELAYER_ERRORS.invalidRequest);
      return null;
    }
    return { address: address.toLowerCase(), type: type as 'WALLET' | 'SAFE' | 'PROXY' | null };
  };

  return [
    {
      method: 'GET',
      path: '/relay-payload',
      handler: async (ctx) => {
        const query = walletQuery(ctx);
        if (!query) return;
        if (query.type === 'SAFE' || query.type === 'PROXY')
          return send(ctx, 200, await safeProxy.relayPayload(query.type, query.address));
        const owner = query.address;
        const known = pm.wallets.find(owner)?.wallets.get('deposit');
        send(ctx, 200, { address: known ?? predicted(owner), nonce: '0' });
      },
    },
    {
      method: 'GET',
      path: '/deployed',
      handler: (ctx) => {
        const query = walletQuery(ctx);
        if (!query) return;
        const kind = pm.wallets.ownerOf(query.address)?.kind;
        // The official client asks about its Safe without a type; a typed look-up names the kind.
        send(ctx, 200, {
          deployed: kind !== undefined && (query.type === null || KIND_OF_TYPE.get(query.type) === kind),
        });
      },
    },
    {
      method: 'GET',
      path: '/nonce',
      handler: async (ctx) => {
        const address = ctx.query.get('address');
        const type = ctx.query.get('type');
        if (
          !address ||
          !ADDRESS.test(address) ||
          (type !== 'WALLET' && type !== 'SAFE' && type !== 'PROXY')
        ) {
          return fail(ctx, 400, RELAYER_ERRORS.invalidRequest);
        }
        const nonce = type === 'WALLET' ? await batchNonce(address) : await safeProxy.nonce(type, address);
        send(ctx, 200, { nonce: nonce.toString() });
      },
    },
    {
      method: 'GET',
      path: '/transaction',
      handler: (ctx) => {
        const tx = txs.get(ctx.query.get('id') ?? '');
        send(ctx, 200, tx ? [tx] : []);
      },
    },
    {
      method: 'POST',
      path: '/submit',
      handler: async (ctx) => {
        if (!authorised(ctx)) return fail(ctx, 401, RELAYER_ERRORS.unauthorized);
        let body: unknown;
        try {
          body = parseBody(ctx);
        } catch {
          return fail(ctx, 400, RELAYER_ERRORS.invalidRequest);
        }
        const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
        if (b.type === 'WALLET') return walletBatch(ctx, b);
        if (SAFE_PROXY_TYPES.has(b.type)) return safeProxySubmit(ctx, b.type as SafeProxyType, b);
        if (b.type !== 'WALLET-CREATE') return fail(ctx, 400, RELAYER_ERRORS.unsupportedType);
        if (
          typeof b.from !== 'string' ||
          !ADDRESS.test(b.from) ||
          typeof b.to !== 'string' ||
          b.to.toLowerCase() !== WALLET_FACTORIES.deposit.toLowerCase()
        ) {
          return fail(ctx, 400, RELAYER_ERRORS.invalidRequest);
        }
        const deployed = await createDepositWallet(pm, b.from);
        if (!deployed.created) return fail(ctx, 400, RELAYER_ERRORS.alreadyDeployed);
        // The sandbox's paper money for a new account lands where it can trade: its new deposit wallet.
        pm.accounts.wallet(deployed.address).collateral += pm.newWalletBalance;
        if (pm.chain && pm.newWalletBalance > 0) {
          await pm.chain.fundCollateral(deployed.address, BigInt(pm.newWalletBalance));
        }
        const now = new Date(pm.clock.now()).toISOString();
        const tx: RelayerTx = {
          transactionID: randomUUID(),
          transactionHash: deployed.txHash ?? `0x${randomBytes(32).toString('hex')}`,
          from: b.from.toLowerCase(),
          to: WALLET_FACTORIES.deposit,
          proxyAddress: deployed.address,
          type: 'WALLET-CREATE',
          state: 'STATE_CONFIRMED',
          createdAt: now,
          updatedAt: now,
        };
        txs.set(tx.transactionID, tx);
        send(ctx, 200, {
          transactionID: tx.transactionID,
          transactionHash: tx.transactionHash,
          state: 'STATE_NEW',
        });
      },
    },
  ];

  async function walletBatch(ctx: Ctx, b: Record<string, unknown>): Promise<void> {
    const params = (
      typeof b.depositWalletParams === 'object' && b.depositWalletParams !== null ? b.depositWalletParams : {}
    ) as Record<string, unknown>;
    const calls = walletCalls(params.calls);
    const { depositWallet, deadline } = params;
    if (
      typeof b.from !== 'string' ||
      !ADDRESS.test(b.from) ||
      typeof b.to !== 'string' ||
      b.to.toLowerCase() !== WALLET_FACTORIES.deposit.toLowerCase() ||
      typeof b.nonce !== 'string' ||
      !UINT.test(b.nonce) ||
      typeof b.signature !== 'string' ||
      !HEX_DATA.test(b.signature) ||
      typeof depositWallet !== 'string' ||
      !ADDRESS.test(depositWallet) ||
      typeof deadline !== 'string' ||
      !UINT.test(deadline) ||
      !calls
    ) {
      return fail(ctx, 400, RELAYER_ERRORS.invalidRequest);
    }
    const owner = b.from.toLowerCase();
    const wallet = pm.wallets.ownerOf(depositWallet);
    if (wallet?.kind !== 'deposit' || wallet.owner !== owner)
      return fail(ctx, 400, RELAYER_ERRORS.notDeployed);
    if (BigInt(b.nonce) !== (await batchNonce(owner))) return fail(ctx, 400, RELAYER_ERRORS.invalidNonce);
    if (BigInt(deadline) < BigInt(Math.floor(pm.clock.now() / 1000)))
      return fail(ctx, 400, RELAYER_ERRORS.expired);
    const valid = await verifyTypedData({
      address: owner as Hex,
      domain: { name: 'DepositWallet', version: '1', chainId: 137, verifyingContract: depositWallet as Hex },
      types: BATCH_TYPES,
      primaryType: 'Batch',
      message: {
        wallet: depositWallet as Hex,
        nonce: BigInt(b.nonce),
        deadline: BigInt(deadline),
        calls: calls.map((c) => ({ target: c.target, value: BigInt(c.value), data: c.data })),
      },
      signature: b.signature as Hex,
    }).catch(() => false);
    if (!valid) return fail(ctx, 400, RELAYER_ERRORS.invalidSignature);
    if (!pm.chain) return fail(ctx, 400, RELAYER_ERRORS.noChain);
    // A call's `value` is the wallet's own POL, forwarded by the wallet contract; a wallet without it fails the batch.
    const result = await pm.chain.executeBatch(
      {
        wallet: depositWallet as Hex,
        nonce: BigInt(b.nonce),
        deadline: BigInt(deadline),
        calls: calls.map((c) => ({ target: c.target, value: BigInt(c.value), data: c.data })),
      },
      b.signature as Hex,
    );
    const now = new Date(pm.clock.now()).toISOString();
    const tx: RelayerTx = {
      transactionID: randomUUID(),
      transactionHash: result.hash,
      from: owner,
      to: WALLET_FACTORIES.deposit,
      proxyAddress: depositWallet.toLowerCase(),
      type: 'WALLET',
      state: result.success ? 'STATE_CONFIRMED' : 'STATE_FAILED',
      createdAt: now,
      updatedAt: now,
    };
    txs.set(tx.transactionID, tx);
    send(ctx, 200, {
      transactionID: tx.transactionID,
      transactionHash: tx.transactionHash,
      state: 'STATE_NEW',
    });
  }

  async function safeProxySubmit(ctx: Ctx, type: SafeProxyType, b: Record<string, unknown>): Promise<void> {
    const done = await safeProxy.submit(type, b);
    if ('error' in done) return fail(ctx, 400, done.error);
    const now = new Date(pm.clock.now()).toISOString();
    const tx: RelayerTx = {
      transactionID: randomUUID(),
      transactionHash: done.hash ?? `0x${randomBytes(32).toString('hex')}`,
      from: done.from,
      to: done.to,
      proxyAddress: done.proxyAddress,
      type,
      state: done.success ? 'STATE_CONFIRMED' : 'STATE_FAILED',
      createdAt: now,
      updatedAt: now,
    };
    txs.set(tx.transactionID, tx);
    send(ctx, 200, {
      transactionID: tx.transactionID,
      transactionHash: tx.transactionHash,
      state: 'STATE_NEW',
    });
  }

  /** The owner's deposit wallet's next batch nonce: the contract's own with a chain (0 without, where no batch runs). */
  async function batchNonce(owner: string): Promise<bigint> {
    const wallet = pm.wallets.find(owner)?.wallets.get('deposit');
    return wallet && pm.chain ? pm.chain.walletNonce(wallet) : 0n;
  }

  function predicted(owner: string): string {
    return pm.wallets.predict(owner, 'deposit');
  }
}
