// What an Opinion order needs besides the request, each read from the venue and kept briefly as the official SDK
// keeps it (client.ts: markets 300 s, quote tokens 3,600 s): the market's outcome tokens and collateral
// (GET /market/{id}), the collateral's exchange contract and decimals (GET /quoteToken), and the key's Safe on BNB
// Chain (GET /user/auth walletUsers["56"], unless the credentials name it). Entries are keyed by market id, token
// address or a hash of the API key, never by a secret itself.
import { hash } from 'node:crypto';
import type { Hex } from 'viem';
import { getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AppError } from '../../errors/app-error.js';
import type { VenueContext, VenueSession } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { sessionKey, sessionSigner } from './auth.js';
import type { OpinionClient } from './client.js';
import { isNotFound } from './errors.js';
import { OpinionMarketDetail, OpinionQuoteTokenList, OpinionUserAuth } from './payloads.js';

const decodeMarket = payloadDecoder(OpinionMarketDetail);
const decodeQuoteTokens = payloadDecoder(OpinionQuoteTokenList);
const decodeAuth = payloadDecoder(OpinionUserAuth);

const MARKET_TTL_MS = 300_000;
const QUOTE_TTL_MS = 3_600_000;
const SAFE_TTL_MS = 3_600_000;
const MAX_ENTRIES = 5_000;

export interface OrderMarket {
  marketId: number;
  /** Outcome name (lower case) → token id. */
  tokens: ReadonlyMap<string, { name: string; tokenId: string }>;
  quoteToken: Hex;
  exchange: Hex;
  decimals: number;
}

function mismatch(): AppError {
  return new AppError(
    'authentication_failed',
    'opinion private_key is not the wallet this API key belongs to: orders it signs would be refused',
  );
}

class TtlMap<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  constructor(private readonly ttlMs: number) {}
  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit || hit.until < Date.now()) return undefined;
    return hit.value;
  }
  set(key: string, value: V): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, until: Date.now() + this.ttlMs });
  }
}

export class OrderContext {
  private readonly markets = new TtlMap<Omit<OrderMarket, 'exchange' | 'decimals'>>(MARKET_TTL_MS);
  private readonly quotes = new TtlMap<{ exchange: Hex; decimals: number }>(QUOTE_TTL_MS);
  private readonly identities = new TtlMap<{ wallet: Hex | null; safe: Hex | null }>(SAFE_TTL_MS);

  constructor(private readonly client: OpinionClient) {}

  async market(ctx: VenueContext, session: VenueSession, marketId: string): Promise<OrderMarket> {
    if (!/^\d{1,12}$/.test(marketId))
      throw new AppError('market_not_found', `opinion has no market '${marketId}'`);
    let market = this.markets.get(marketId);
    if (!market) {
      let data: Awaited<ReturnType<typeof decodeMarket>>['data'];
      try {
        ({ data } = await this.client.private(ctx, session, decodeMarket, {
          path: `/market/${marketId}`,
          operation: 'order_market',
        }));
      } catch (error) {
        if (isNotFound(error)) throw new AppError('market_not_found', `opinion has no market ${marketId}`);
        throw error;
      }
      if (
        !data ||
        (data.childMarkets?.length ?? 0) > 0 ||
        !data.yesTokenId ||
        !data.noTokenId ||
        !data.quoteToken
      ) {
        throw new AppError('market_not_found', `opinion market ${marketId} is not a tradable binary market`);
      }
      const yes = (data.yesLabel ?? '').trim() || 'Yes';
      const no = (data.noLabel ?? '').trim() || 'No';
      market = {
        marketId: data.marketId,
        tokens: new Map([
          [yes.toLowerCase(), { name: yes, tokenId: data.yesTokenId }],
          [no.toLowerCase(), { name: no, tokenId: data.noTokenId }],
        ]),
        quoteToken: getAddress(data.quoteToken),
      };
      this.markets.set(marketId, market);
    }
    return { ...market, ...(await this.quote(ctx, session, market.quoteToken)) };
  }

  /**
   * The Safe that makes the key holder's orders, after checking that `private_key` is the key's own wallet (an
   * order signed by another would be refused by the exchange after it was sent; here it is refused before).
   */
  async maker(ctx: VenueContext, session: VenueSession, privateKey: Hex): Promise<Hex> {
    const { wallet, safe } = await this.identity(ctx, session);
    const signer = privateKeyToAccount(privateKey).address;
    if (wallet !== null && wallet.toLowerCase() !== signer.toLowerCase()) throw mismatch();
    const named = (session.credentials.multisig_address ?? '').trim();
    if (named !== '') {
      if (!/^0x[0-9a-fA-F]{40}$/.test(named)) {
        throw new AppError('credentials_required', 'opinion multisig_address must be a 0x address');
      }
      return getAddress(named);
    }
    if (safe === null) {
      throw new AppError(
        'credentials_required',
        "the Opinion key's wallet has no trading wallet (Safe) on BNB Chain yet: enable trading in the Opinion app first",
      );
    }
    return safe;
  }

  /** Refuses a `private_key` that is not the API key's wallet (GET /user/auth's walletAddress); absent is fine. */
  async checkPair(ctx: VenueContext, session: VenueSession): Promise<void> {
    const raw = (session.credentials.private_key ?? '').trim();
    if (raw === '') return;
    const hex = sessionSigner(session);
    const { wallet } = await this.identity(ctx, session);
    if (wallet !== null && wallet.toLowerCase() !== privateKeyToAccount(hex).address.toLowerCase())
      throw mismatch();
  }

  /** The key's login wallet and its Safe on BNB Chain (null when Opinion names none). */
  private async identity(
    ctx: VenueContext,
    session: VenueSession,
  ): Promise<{ wallet: Hex | null; safe: Hex | null }> {
    const cacheKey = hash('sha256', sessionKey(session), 'hex');
    const cached = this.identities.get(cacheKey);
    if (cached) return cached;
    const auth = await this.client.private(ctx, session, decodeAuth, {
      path: '/user/auth',
      operation: 'identity',
    });
    const address = (a: string | null | undefined) =>
      a && /^0x[0-9a-fA-F]{40}$/.test(a) ? getAddress(a) : null;
    const found = { wallet: address(auth.walletAddress), safe: address(auth.walletUsers?.['56']) };
    this.identities.set(cacheKey, found);
    return found;
  }

  private async quote(
    ctx: VenueContext,
    session: VenueSession,
    token: Hex,
  ): Promise<{ exchange: Hex; decimals: number }> {
    const hit = this.quotes.get(token);
    if (hit) return hit;
    const { list } = await this.client.private(ctx, session, decodeQuoteTokens, {
      path: '/quoteToken',
      query: { chainId: '56' },
      operation: 'quote_tokens',
    });
    for (const q of list ?? []) {
      if (!q.quoteTokenAddress || !q.ctfExchangeAddress || !/^0x[0-9a-fA-F]{40}$/.test(q.ctfExchangeAddress))
        continue;
      const entry = { exchange: getAddress(q.ctfExchangeAddress), decimals: q.decimal ?? 18 };
      this.quotes.set(getAddress(q.quoteTokenAddress), entry);
    }
    const found = this.quotes.get(token);
    if (!found)
      throw new AppError('service_unavailable', `opinion lists no exchange contract for collateral ${token}`);
    return found;
  }
}
