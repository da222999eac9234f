// Predict.fun's wallet routes: the sign-in flow (GET /v1/auth/message, POST /v1/auth → JWT), the connected account
// (GET /v1/account, JWT) and positions — the caller's own (GET /v1/positions, JWT) or any wallet's by address
// (GET /v1/positions/{address}, API key only).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJson, readBody } from '../shared/http.js';
import type { PfAccounts, PfWallet, SeededPosition } from './accounts.js';
import { AuthError, type PfAuth } from './auth.js';
import { complement } from './book.js';
import { marketStatuses, marketTokens } from './catalog.js';
import { BadRequest, cursorOffset, encodeCursor, fail, ok, parseFirst } from './envelope.js';
import { outcomeStatus } from './payloads.js';
import type { PfState } from './state.js';

export function getAuthMessage(auth: PfAuth, res: ServerResponse): void {
  ok(res, { message: auth.issueMessage() });
}

export async function postAuth(auth: PfAuth, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: unknown;
  try {
    body = parseJson(await readBody(req));
  } catch {
    throw new BadRequest('Invalid JSON body');
  }
  const b = (body ?? {}) as Record<string, unknown>;
  for (const field of ['signer', 'message', 'signature'] as const) {
    if (typeof b[field] !== 'string' || b[field] === '') throw new BadRequest(`${field} must be a string`);
  }
  try {
    const token = await auth.login(b.signer as string, b.message as string, b.signature as string);
    ok(res, { token });
  } catch (error) {
    if (error instanceof AuthError) return fail(res, 401, 'unauthorized', error.message);
    throw error;
  }
}

export function getAccount(accounts: PfAccounts, address: string, res: ServerResponse): void {
  const wallet = accounts.wallet(address);
  ok(res, {
    name: `${wallet.address.slice(0, 6)}…${wallet.address.slice(-4)}`,
    address: wallet.address,
    imageUrl: null,
    referral: { code: null, status: 'LOCKED' },
  });
}

export function listPositions(
  state: PfState,
  wallet: PfWallet | undefined,
  res: ServerResponse,
  q: URLSearchParams,
): void {
  const first = parseFirst(q.get('first'));
  const offset = cursorOffset(q.get('after'));
  const marketRaw = q.get('marketId');
  if (marketRaw !== null && !/^\d+$/.test(marketRaw)) throw new BadRequest('marketId must be a number');
  const resolvedRaw = q.get('isResolved');
  const held = (wallet?.positions ?? []).filter((p) => {
    if (marketRaw !== null && p.marketId !== Number(marketRaw)) return false;
    if (resolvedRaw === null) return true;
    const resolved = state.catalog.market(p.marketId)?.category.prop.status === 'resolved';
    return resolvedRaw === 'true' ? resolved : !resolved;
  });
  const page = held.slice(offset, offset + first);
  const next = offset + page.length < held.length ? encodeCursor({ offset: offset + page.length }) : null;
  ok(
    res,
    page.map((p) => positionJson(state, p)),
    next,
  );
}

/** One holding as the API shows it: shares in wei, USD figures already scaled, the outcome's best quotes. */
function positionJson(state: PfState, p: SeededPosition): Record<string, unknown> {
  const ref = state.catalog.market(p.marketId);
  if (!ref) throw new Error(`seeded position on unknown market ${p.marketId}`);
  const book = state.liveBook(ref);
  const yesBid = book.bids[0];
  const yesAsk = book.asks[0];
  const bestBid = p.indexSet === 1 ? yesBid : yesAsk && ([complement(yesAsk[0]), yesAsk[1]] as const);
  const bestAsk = p.indexSet === 1 ? yesAsk : yesBid && ([complement(yesBid[0]), yesBid[1]] as const);
  const shares = Number(p.amountWei) / 1e18;
  const valueUsd = Math.round(shares * (bestBid?.[0] ?? 0) * 100) / 100;
  const cost = shares * Number(p.averageBuyPriceUsd);
  const tokens = marketTokens(state.world, ref.id);
  const { status, tradingStatus } = marketStatuses(ref.category);
  return {
    id: encodeCursor({ marketId: ref.id, outcomeId: ref.id * 2 + p.indexSet }),
    amount: p.amountWei.toString(),
    averageBuyPriceUsd: p.averageBuyPriceUsd,
    pnlUsd: Math.round((valueUsd - cost) * 100) / 100,
    valueUsd,
    market: { id: ref.id, categorySlug: ref.category.slug, status, tradingStatus },
    outcome: {
      indexSet: p.indexSet,
      name: p.indexSet === 1 ? 'Yes' : 'No',
      onChainId: p.indexSet === 1 ? tokens.yes : tokens.no,
      status: outcomeStatus(ref, p.indexSet),
      bestBid: bestBid ? { price: bestBid[0], size: bestBid[1] } : null,
      bestAsk: bestAsk ? { price: bestAsk[0], size: bestAsk[1] } : null,
    },
  };
}
