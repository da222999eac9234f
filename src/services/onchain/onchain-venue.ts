// What approvals and CTF operations share: the Polymarket venue (the only exchange whose on-chain side we act
// on), the chain (absent: 501), and the caller's signer and funding wallet from its session.
import type { OnChain } from '../../chain/chain.js';
import { AppError } from '../../errors/app-error.js';
import type { SessionResolver } from '../../vault/session-resolver.js';
import type { OnchainSigner, VenueAdapter, VenueContext } from '../../venues/port.js';
import type { ExchangesService } from '../exchanges-service.js';
import { sessionOf, type TradingCaller, tradingContext } from '../trading/trading-caller.js';

export interface OnchainOptions {
  exchanges: ExchangesService;
  sessions: SessionResolver;
  /** Null when no chain is configured (serve without POLYGON_RPC_URL, sandbox --no-chain). */
  chain: OnChain | null;
  timeoutMs: number;
  receiptTimeoutMs: number;
}

export interface OnchainCall {
  venue: VenueAdapter;
  chain: OnChain;
  ctx: VenueContext;
  signer: OnchainSigner;
  session: Awaited<ReturnType<typeof sessionOf>>;
}

export async function onchainCall(
  options: OnchainOptions,
  caller: TradingCaller,
  exchange: string,
): Promise<OnchainCall> {
  const venue = options.exchanges.venue(exchange);
  const onchainSigner = venue.trading.onchainSigner;
  if (venue.descriptor.id !== 'polymarket' || !onchainSigner) {
    throw new AppError(
      'not_supported',
      `on-chain approvals and CTF operations are polymarket only, not ${venue.descriptor.id}`,
    );
  }
  const chain = options.chain;
  if (!chain) {
    throw new AppError(
      'not_supported',
      'no chain is configured on this server (set POLYGON_RPC_URL; the sandbox runs one unless started with --no-chain)',
    );
  }
  const session = await sessionOf(options.sessions, caller, venue);
  const ctx = tradingContext(caller, options.timeoutMs);
  const signer = await onchainSigner(ctx, session);
  return { venue, chain, ctx, signer, session };
}

/** A read from the chain; an endpoint that does not answer is the upstream's failure (503), never the caller's. */
export async function chainRead<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new AppError('service_unavailable', `could not read ${what} from the chain`, { cause: error });
  }
}
