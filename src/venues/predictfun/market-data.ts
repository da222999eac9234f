// Market-data facet: live books (the venue's YES book, complemented for the other outcome), the public match tape
// per outcome, wallet activity by public address (raw positions and matches), and the polled book stream.
import { Type } from 'typebox';
import { isAddress } from 'viem';
import type { OrderBook } from '../../domain/book.js';
import { Decimal } from '../../domain/decimal.js';
import type { FeeSchedule } from '../../domain/fees/schedule.js';
import type { Market } from '../../domain/market.js';
import type { WalletActivityItem, WalletActivityQuery } from '../../domain/wallet-activity.js';
import { AppError } from '../../errors/app-error.js';
import type { MarketDataFacet, StreamContext, TradesPage, TradesQuery, VenueContext } from '../port.js';
import { payloadDecoder } from '../shared/payload.js';
import { walkTape } from '../shared/trade-tape.js';
import { VenuePayloadError } from '../shared/venue-errors.js';
import type { PredictfunClient } from './client.js';
import { matchToTrades, toOrderBook } from './parse.js';
import type { PredictfunMatch as PredictfunMatchDoc } from './payloads.js';
import {
  envelope,
  PredictfunBook,
  PredictfunMarket,
  PredictfunMatch,
  PredictfunRawPage,
} from './payloads.js';
import { openPredictfunStream } from './stream.js';

const decodeBook = payloadDecoder(envelope(PredictfunBook));
const decodeMarket = payloadDecoder(envelope(PredictfunMarket));
const decodeMatches = payloadDecoder(envelope(Type.Array(PredictfunMatch)));
const decodeRawPage = payloadDecoder(PredictfunRawPage);
const PAGE_SIZE = 100;
/** Match pages one trades request reads at most (a match may hold no print on the outcome asked for). */
const MATCH_PAGES = 10;
/** Match pages one wallet-activity poll reads at most (newest first, until it passes the poll's start). */
const WALLET_PAGES = 10;

function checkAddress(address: string): void {
  if (!isAddress(address, { strict: false })) {
    throw new AppError('validation_error', `'${address}' is not a BNB Chain address`, {
      validationErrors: ['address must be a 0x-prefixed 20-byte hex address'],
    });
  }
}

export interface ResolvedOutcome {
  name: string;
  token_id: string;
  /** 1 for the outcome the book is quoted in, 2 for its complement. */
  indexSet: number;
}

/**
 * Finds an outcome by name, case-insensitively. Binary markets also answer to `yes`/`no` when their outcomes are
 * named otherwise (Up/Down, team names): indexSet 1 is the venue's YES side. Unknown outcomes are a 400.
 */
export function resolveOutcome(market: Market, outcome: string): ResolvedOutcome {
  const wanted = outcome.trim().toLowerCase();
  let index = market.outcomes.findIndex((o) => o.name.toLowerCase() === wanted);
  if (index < 0 && market.outcomes.length === 2 && (wanted === 'yes' || wanted === 'no')) {
    index = wanted === 'yes' ? 0 : 1;
  }
  const found = market.outcomes[index];
  if (!found) {
    const valid = market.outcomes.map((o) => o.name).join(', ');
    throw new AppError(
      'validation_error',
      `${market.svc_id} has no outcome '${outcome}' (outcomes: ${valid})`,
      {
        validationErrors: [`outcome must be one of: ${valid}`],
      },
    );
  }
  if (!found.token_id)
    throw new AppError('service_unavailable', `${market.svc_id} ${found.name} has no token id`);
  return { name: found.name, token_id: found.token_id, indexSet: index + 1 };
}

export async function fetchBook(
  client: PredictfunClient,
  ctx: VenueContext,
  market: Market,
  outcome: ResolvedOutcome,
): Promise<OrderBook> {
  const { data } = await client.public(ctx, decodeBook, {
    path: `/v1/markets/${market.exchange_market_id}/orderbook`,
    operation: 'orderbook',
  });
  return toOrderBook(data, market, outcome);
}

export function predictfunMarketData(client: PredictfunClient): MarketDataFacet {
  return {
    async fetchOrderBook(ctx: VenueContext, market: Market, outcome: string): Promise<OrderBook> {
      return fetchBook(client, ctx, market, resolveOutcome(market, outcome));
    },

    async fetchFeeSchedule(ctx: VenueContext, market: Market): Promise<FeeSchedule> {
      const { data } = await client.public(ctx, decodeMarket, {
        path: `/v1/markets/${encodeURIComponent(market.exchange_market_id)}`,
        operation: 'get_market',
      });
      const bps = data.feeRateBps;
      return { venue: 'predictfun', feeRateBps: bps == null ? null : Decimal.fromNumber(bps).toString() };
    },

    async fetchTrades(
      ctx: VenueContext,
      market: Market,
      outcome: string,
      query: TradesQuery,
    ): Promise<TradesPage> {
      const wanted = resolveOutcome(market, outcome);
      // Keyset pages (`after`), newest first, without a time filter; each match becomes this outcome's prints.
      const page = await walkTape<string | null>(
        {
          first: null,
          maxPages: MATCH_PAGES,
          isHandle: (v): v is string | null => v === null || (typeof v === 'string' && v.length <= 1_024),
          fetchPage: async (after) => {
            const res: { data: PredictfunMatchDoc[]; cursor?: string | null } = await client.public(
              ctx,
              decodeMatches,
              {
                path: '/v1/orders/matches',
                query: { marketId: market.exchange_market_id, first: PAGE_SIZE, after: after ?? undefined },
                operation: 'matches',
              },
            );
            const rows = res.data.flatMap((m) =>
              matchToTrades(m, wanted.indexSet, wanted.name).map((trade) => ({ trade, resume: after })),
            );
            return { rows, next: res.data.length > 0 ? (res.cursor ?? null) : null };
          },
        },
        query,
      );
      return { ...page, sourceChannel: 'predictfun_order_matches' };
    },

    async fetchUserActivity(
      ctx: VenueContext,
      address: string,
      limit: number,
    ): Promise<Record<string, unknown>> {
      checkAddress(address);
      const [positions, matches] = await Promise.all([
        collect(client, ctx, `/v1/positions/${address}`, {}, limit, 'positions_by_address'),
        collect(client, ctx, '/v1/orders/matches', { signerAddress: address }, limit, 'matches_by_signer'),
      ]);
      return { positions, matches };
    },

    /**
     * GET /v1/orders/matches?signerAddress= (matches the wallet signed as taker or maker, newest first, keyset pages
     * of 100, no time filter) read until a match older than `sinceMs` or the last page; then oldest first. A match
     * is named by its `settlementId`; one without (not settled yet) is left for a later read, which finds it once
     * settled with the same `executedAt`.
     */
    async fetchWalletActivity(
      ctx: VenueContext,
      address: string,
      query: WalletActivityQuery,
    ): Promise<WalletActivityItem[]> {
      checkAddress(address);
      const items = new Map<string, WalletActivityItem>();
      let after: string | null = null;
      for (let page = 0; page < WALLET_PAGES; page++) {
        const res: { data: PredictfunMatchDoc[]; cursor?: string | null } = await client.public(
          ctx,
          decodeMatches,
          {
            path: '/v1/orders/matches',
            query: { signerAddress: address, first: PAGE_SIZE, after: after ?? undefined },
            operation: 'matches_by_signer',
          },
        );
        let older = false;
        for (const match of res.data) {
          const at = Date.parse(match.executedAt);
          if (!Number.isFinite(at)) {
            throw new VenuePayloadError(
              'predictfun',
              'matches_by_signer',
              [`executedAt ${match.executedAt} is not a time`],
              ['/data/*/executedAt'],
            );
          }
          if (at < query.sinceMs) {
            older = true;
            continue;
          }
          if (!match.settlementId || items.has(match.settlementId)) continue;
          items.set(match.settlementId, { id: match.settlementId, timestamp_ms: at, raw: match });
        }
        after = res.data.length > 0 ? (res.cursor ?? null) : null;
        if (older || after === null) break;
      }
      return [...items.values()]
        .reverse()
        .sort((a, b) => a.timestamp_ms - b.timestamp_ms)
        .slice(0, query.max);
    },

    openMarketStream(ctx: StreamContext) {
      return openPredictfunStream(client, ctx);
    },
  };
}

/** Up to `limit` raw documents of a cursor-paged list, as the venue sent them. */
async function collect(
  client: PredictfunClient,
  ctx: VenueContext,
  path: string,
  query: Record<string, string>,
  limit: number,
  operation: string,
): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let after: string | null = null;
  while (out.length < limit) {
    const res: { data: Array<Record<string, unknown>>; cursor?: string | null } = await client.public(
      ctx,
      decodeRawPage,
      {
        path,
        query: { ...query, first: Math.min(PAGE_SIZE, limit - out.length), after: after ?? undefined },
        operation,
      },
    );
    out.push(...res.data);
    after = res.data.length > 0 ? (res.cursor ?? null) : null;
    if (after === null) break;
  }
  return out.slice(0, limit);
}
