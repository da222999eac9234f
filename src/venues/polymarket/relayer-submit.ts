// A relayed submission and its follow-up, shared by the deposit-wallet, Safe and proxy-wallet paths: `POST /submit`
// with the operator's builder HMAC headers (`POLY_BUILDER_*`), then `GET /transaction?id=` until the relayer reports
// it mined or failed (`@polymarket/builder-relayer-client@0.0.10` `dist/client.js`, `pollUntilState`).
import { Type } from 'typebox';
import type { Hex } from 'viem';
import type { RelayedTransaction, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { builderHeaders, type signerFromSession } from './auth.js';
import type { PolymarketClient } from './client.js';

export const decodeNonce = payloadDecoder(Type.Object({ nonce: Type.String({ pattern: '^\\d{1,78}$' }) }));
const decodeSubmit = payloadDecoder(
  Type.Object({ transactionID: Type.String({ minLength: 1 }), state: Type.Optional(Type.String()) }),
);
const decodeTxs = payloadDecoder(
  Type.Array(Type.Object({ state: Type.String(), transactionHash: Type.Optional(Type.String()) })),
);

const MINED = new Set(['STATE_MINED', 'STATE_CONFIRMED']);
const FAILED = new Set(['STATE_FAILED', 'STATE_INVALID']);
const POLL_MS = 1_000;
const MAX_POLLS = 60;

/** What a relayed submission needs: the adapter's client, the relayer and its builder credentials, who signs. */
export interface Relay {
  client: PolymarketClient;
  ctx: VenueContext;
  relayer: NonNullable<PolymarketClient['relayer']>;
  auth: NonNullable<PolymarketClient['options']['relayerAuth']>;
  signer: ReturnType<typeof signerFromSession>;
  /** The contract wallet the calls act from (the session's funder). */
  wallet: Hex;
}

/** `POST /submit` with the builder HMAC headers, then `GET /transaction?id=` until mined or failed. */
export async function submitRelayed(
  { client, ctx, relayer, auth }: Relay,
  body: string,
): Promise<RelayedTransaction> {
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
