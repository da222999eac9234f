// Deposit wallets through Polymarket's gasless relayer. Creation is `POST /submit` with
// `{type: "WALLET-CREATE", from: <owner EOA>, to: <DepositWalletFactory>}` — no user signature in the payload —
// authenticated with the operator's builder HMAC headers. The wallet's address is a CREATE2 result derived locally
// as the official relayer client derives it (deposit-wallet-address.ts); `GET /deployed?address=<wallet>&type=WALLET`
// (the client's `getDeployed`) says whether it exists. Sources: docs/venues/polymarket.md ("Deposit wallets").
import { Type } from 'typebox';
import type { Hex } from 'viem';
import { AppError } from '../../errors/app-error.js';
import type { VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { VenueStatusError } from '../shared/venue-errors.js';
import { builderHeaders } from './auth.js';
import type { PolymarketClient } from './client.js';
import { DEPOSIT_WALLET_FACTORY, depositWalletCandidates } from './deposit-wallet-address.js';

export { DEPOSIT_WALLET_FACTORY };

const decodeDeployed = payloadDecoder(Type.Object({ deployed: Type.Boolean() }));
const decodeSubmit = payloadDecoder(Type.Object({ transactionID: Type.String({ minLength: 1 }) }));
const decodeTxs = payloadDecoder(Type.Array(Type.Object({ state: Type.String() })));

/** Relayer states that end a transaction. */
const MINED = new Set(['STATE_MINED', 'STATE_CONFIRMED']);
const FAILED = new Set(['STATE_FAILED', 'STATE_INVALID']);
const POLL_MS = 2_000;
const MAX_POLLS = 30;

function relayerOf(client: PolymarketClient) {
  const relayer = client.relayer;
  if (!relayer) {
    throw new AppError(
      'not_supported',
      'polymarket deposit wallets need the relayer (its URL and builder credentials are not configured)',
    );
  }
  return relayer;
}

/** The owner's deposit wallet address and whether the factory has deployed it. */
export async function lookupDepositWallet(
  client: PolymarketClient,
  ctx: VenueContext,
  owner: Hex,
): Promise<{ address: Hex; deployed: boolean }> {
  const relayer = relayerOf(client);
  const isDeployed = async (address: Hex) =>
    (
      await client.get(relayer, ctx, decodeDeployed, {
        path: '/deployed',
        query: { address, type: 'WALLET' },
        operation: 'deposit_wallet_deployed',
      })
    ).deployed;
  // The relayer client's choice: the UUPS clone when it is deployed or the factory has no beacon, else the beacon
  // clone (which the factory now deploys).
  const { uups, beacon } = depositWalletCandidates(owner, client.chainId);
  if (await isDeployed(uups)) return { address: uups, deployed: true };
  if (!beacon) return { address: uups, deployed: false };
  return { address: beacon, deployed: await isDeployed(beacon) };
}

/** Deploys the owner's deposit wallet unless it exists; idempotent, also when two callers race. */
export async function ensureDepositWallet(
  client: PolymarketClient,
  ctx: VenueContext,
  owner: Hex,
): Promise<{ address: string; created: boolean }> {
  const relayer = relayerOf(client);
  const auth = client.options.relayerAuth;
  if (!auth) {
    throw new AppError(
      'not_supported',
      'polymarket deposit wallet creation needs relayer builder credentials',
    );
  }
  const before = await lookupDepositWallet(client, ctx, owner);
  if (before.deployed) return { address: before.address, created: false };
  const body = JSON.stringify({ type: 'WALLET-CREATE', from: owner, to: DEPOSIT_WALLET_FACTORY });
  let transactionID: string;
  try {
    ({ transactionID } = await client.get(relayer, ctx, decodeSubmit, {
      method: 'POST',
      path: '/submit',
      body,
      // Re-sending a creation is harmless (the factory deploys one wallet per owner), so a lost answer may retry.
      idempotent: true,
      operation: 'deposit_wallet_create',
      headers: () => builderHeaders(auth, 'POST', '/submit', body),
    }));
  } catch (error) {
    // Someone else deployed it between our look-up and our submit.
    if (error instanceof VenueStatusError && error.status === 400) {
      const after = await lookupDepositWallet(client, ctx, owner);
      if (after.deployed) return { address: after.address, created: false };
    }
    throw error;
  }
  for (let poll = 0; poll < MAX_POLLS; poll++) {
    const [tx] = await client.get(relayer, ctx, decodeTxs, {
      path: '/transaction',
      query: { id: transactionID },
      operation: 'deposit_wallet_transaction',
    });
    if (tx && MINED.has(tx.state)) {
      // Read again: which clone the factory deployed is the factory's choice, not the prediction's.
      const after = await lookupDepositWallet(client, ctx, owner);
      return { address: after.deployed ? after.address : before.address, created: true };
    }
    if (tx && FAILED.has(tx.state)) {
      throw new AppError(
        'service_unavailable',
        `polymarket relayer failed to deploy the deposit wallet (${tx.state})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new AppError(
    'service_unavailable',
    `polymarket relayer has not mined deposit wallet creation ${transactionID}`,
  );
}
