// The gasless relayer's deposit-wallet path (relayer-v2.polymarket.com): `POST /submit` with
// `{type: "WALLET-CREATE", from: <owner EOA>, to: <DepositWalletFactory>}` — no user signature in the payload,
// authenticated with the operator's builder HMAC headers (POLY_BUILDER_*, same HMAC as CLOB L2) — deploys the
// owner's deposit wallet; `GET /transaction?id=` follows it; `GET /relay-payload?address&type=WALLET` and
// `GET /deployed?address&type=WALLET` are the public look-ups. Transactions are mined at once here.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ownValue } from '../shared/own-key.js';
import { l2Signature } from './auth.js';
import type { PmContext } from './context.js';
import { RELAYER_ERRORS } from './errors.js';
import { type Ctx, fail, parseBody, type Route, send } from './http-util.js';
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

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = ownValue(headers, name.toLowerCase());
  return Array.isArray(value) ? value[0] : value;
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function relayerRoutes(pm: PmContext, builder: BuilderCreds): Route[] {
  const txs = new Map<string, RelayerTx>();

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

  const walletQuery = (ctx: Ctx): string | null => {
    const address = ctx.query.get('address');
    const type = ctx.query.get('type');
    if (!address || !ADDRESS.test(address) || (type !== null && type !== 'WALLET')) {
      fail(ctx, 400, RELAYER_ERRORS.invalidRequest);
      return null;
    }
    return address.toLowerCase();
  };

  return [
    {
      method: 'GET',
      path: '/relay-payload',
      handler: (ctx) => {
        const owner = walletQuery(ctx);
        if (!owner) return;
        const known = pm.wallets.find(owner)?.wallets.get('deposit');
        send(ctx, 200, { address: known ?? predicted(owner), nonce: '0' });
      },
    },
    {
      method: 'GET',
      path: '/deployed',
      handler: (ctx) => {
        const wallet = walletQuery(ctx);
        if (!wallet) return;
        send(ctx, 200, { deployed: pm.wallets.ownerOf(wallet)?.kind === 'deposit' });
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
      handler: (ctx) => {
        if (!authorised(ctx)) return fail(ctx, 401, RELAYER_ERRORS.unauthorized);
        let body: unknown;
        try {
          body = parseBody(ctx);
        } catch {
          return fail(ctx, 400, RELAYER_ERRORS.invalidRequest);
        }
        const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
        if (b.type !== 'WALLET-CREATE') return fail(ctx, 400, RELAYER_ERRORS.unsupportedType);
        if (
          typeof b.from !== 'string' ||
          !ADDRESS.test(b.from) ||
          typeof b.to !== 'string' ||
          b.to.toLowerCase() !== WALLET_FACTORIES.deposit.toLowerCase()
        ) {
          return fail(ctx, 400, RELAYER_ERRORS.invalidRequest);
        }
        const deployed = pm.wallets.deploy(b.from, 'deposit');
        if (!deployed.created) return fail(ctx, 400, RELAYER_ERRORS.alreadyDeployed);
        // The sandbox's paper money for a new account lands where it can trade: its new deposit wallet.
        pm.accounts.wallet(deployed.address).collateral += pm.newWalletBalance;
        const now = new Date(pm.clock.now()).toISOString();
        const tx: RelayerTx = {
          transactionID: randomUUID(),
          transactionHash: `0x${randomBytes(32).toString('hex')}`,
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

  function predicted(owner: string): string {
    return pm.wallets.predict(owner, 'deposit');
  }
}
