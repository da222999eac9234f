// Gasless calls from a deposit wallet through Polymarket's relayer, as `@polymarket/builder-relayer-client`'s
// `executeDepositWalletBatch` makes them: `GET /nonce?address=<owner>&type=WALLET`, then the owner signs an EIP-712
// `Batch {wallet, nonce, deadline, calls: Call{target, value, data}[]}` in the domain `DepositWallet` v1 (chain 137,
// verifyingContract = the wallet), and `POST /submit` carries `{type: "WALLET", from, to: DepositWalletFactory,
// nonce, signature, depositWalletParams: {depositWallet, deadline, calls}}` with the operator's builder HMAC
// headers; `GET /transaction?id=` follows it. Sources: docs/venues/polymarket.md ("Relayer").
import { Type } from 'typebox';
import type { Hex } from 'viem';
import { AppError } from '../../errors/app-error.js';
import type { RelayedCall, RelayedTransaction, VenueContext, VenueSession } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { builderHeaders, signerFromSession } from './auth.js';
import type { PolymarketClient } from './client.js';
import { DEPOSIT_WALLET_FACTORY } from './deposit-wallet.js';

const decodeNonce = payloadDecoder(Type.Object({ nonce: Type.String({ pattern: '^\\d{1,78}$' }) }));
const decodeSubmit = payloadDecoder(
  Type.Object({ transactionID: Type.String({ minLength: 1 }), state: Type.Optional(Type.String()) }),
);
const decodeTxs = payloadDecoder(
  Type.Array(Type.Object({ state: Type.String(), transactionHash: Type.Optional(Type.String()) })),
);

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

/** How long the relayer may take to include a batch before the wallet refuses the signature. */
const DEADLINE_SECONDS = 600;
const MINED = new Set(['STATE_MINED', 'STATE_CONFIRMED']);
const FAILED = new Set(['STATE_FAILED', 'STATE_INVALID']);
const POLL_MS = 1_000;
const MAX_POLLS = 60;

export async function relayDepositWalletCalls(
  client: PolymarketClient,
  ctx: VenueContext,
  session: VenueSession,
  calls: readonly RelayedCall[],
): Promise<RelayedTransaction> {
  const relayer = client.relayer;
  const auth = client.options.relayerAuth;
  if (!relayer || !auth) {
    throw new AppError(
      'not_supported',
      'polymarket gasless transactions need the relayer and its builder credentials (not configured)',
    );
  }
  const signer = signerFromSession(session);
  const wallet = await client.tradingWallet(ctx, session, signer);
  if (wallet.signatureType !== 3) {
    throw new AppError(
      'not_supported',
      'gasless transactions are made from a deposit wallet (signature_type 3); proxy and Safe wallets are not supported here',
    );
  }
  const { nonce } = await client.get(relayer, ctx, decodeNonce, {
    path: '/nonce',
    query: { address: signer.address, type: 'WALLET' },
    operation: 'relayer_nonce',
  });
  const deadline = String(Math.floor(Date.now() / 1000) + DEADLINE_SECONDS);
  const wire = calls.map((c) => ({ target: c.to, value: '0', data: c.data }));
  const signature = await signer.account.signTypedData({
    domain: { name: 'DepositWallet', version: '1', chainId: 137, verifyingContract: wallet.maker as Hex },
    types: BATCH_TYPES,
    primaryType: 'Batch',
    message: {
      wallet: wallet.maker as Hex,
      nonce: BigInt(nonce),
      deadline: BigInt(deadline),
      calls: calls.map((c) => ({ target: c.to, value: 0n, data: c.data })),
    },
  });
  const body = JSON.stringify({
    type: 'WALLET',
    from: signer.address,
    to: DEPOSIT_WALLET_FACTORY,
    nonce,
    signature,
    depositWalletParams: { depositWallet: wallet.maker, deadline, calls: wire },
  });
  const submitted = await client.get(relayer, ctx, decodeSubmit, {
    method: 'POST',
    path: '/submit',
    body,
    // The wallet's nonce makes a second copy fail, but an answer lost after submission must not be re-sent blind.
    idempotent: false,
    operation: 'relayer_submit',
    headers: () => builderHeaders(auth, 'POST', '/submit', body),
  });
  for (let poll = 0; poll < MAX_POLLS; poll++) {
    const [tx] = await client.get(relayer, ctx, decodeTxs, {
      path: '/transaction',
      query: { id: submitted.transactionID },
      operation: 'relayer_transaction',
    });
    if (tx && (MINED.has(tx.state) || FAILED.has(tx.state))) {
      return {
        transactionId: submitted.transactionID,
        transactionHash: tx.transactionHash ?? null,
        state: tx.state,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { transactionId: submitted.transactionID, transactionHash: null, state: 'STATE_NEW' };
}
