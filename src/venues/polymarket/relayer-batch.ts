// Gasless calls from a deposit wallet through Polymarket's relayer, as `@polymarket/builder-relayer-client`'s
// `executeDepositWalletBatch` makes them: `GET /nonce?address=<owner>&type=WALLET`, then the owner signs an EIP-712
// `Batch {wallet, nonce, deadline, calls: Call{target, value, data}[]}` in the domain `DepositWallet` v1 (chain 137,
// verifyingContract = the wallet), and `POST /submit` carries `{type: "WALLET", from, to: DepositWalletFactory,
// nonce, signature, depositWalletParams: {depositWallet, deadline, calls}}` with the operator's builder HMAC
// headers; `GET /transaction?id=` follows it. A Safe (signature type 2) or proxy wallet (1) session goes through
// relayer-safe.ts / relayer-proxy.ts instead; the submission and its follow-up are shared (`submitRelayed`).
// Sources: docs/venues/polymarket.md ("Relayer").
import type { Hex } from 'viem';
import { AppError } from '../../errors/app-error.js';
import type { RelayedCall, RelayedTransaction, VenueContext, VenueSession } from '../port.js';
import { signerFromSession } from './auth.js';
import type { PolymarketClient } from './client.js';
import { DEPOSIT_WALLET_FACTORY } from './deposit-wallet.js';
import { relayProxyCalls } from './relayer-proxy.js';
import { relaySafeCalls } from './relayer-safe.js';
import { decodeNonce, submitRelayed } from './relayer-submit.js';

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
  const relay = { client, ctx, relayer, auth, signer, wallet: wallet.maker as Hex };
  if (wallet.signatureType === 2) return relaySafeCalls(relay, calls);
  if (wallet.signatureType === 1) return relayProxyCalls(relay, calls);
  if (wallet.signatureType !== 3) {
    throw new AppError(
      'not_supported',
      'gasless transactions are made from a contract wallet (signature_type 1, 2 or 3); an EOA sends its own',
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
  return submitRelayed(relay, body);
}
