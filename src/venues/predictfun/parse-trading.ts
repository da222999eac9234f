// Pure normalizers of Predict.fun's trading documents: an order (the signed struct under `order`, amounts in wei)
// into ours, and the legs of a settled match that the wallet signed into fills with the fee it paid.
import type { Fill, Order, OrderStatus } from '../../domain/trading.js';
import { AppError } from '../../errors/app-error.js';
import { fromWei } from './parse.js';
import type { PredictfunMatch, PredictfunOrderDoc } from './payloads.js';
import { saltCreatedAt } from './signing.js';

const WEI = 10n ** 18n;

/** Names an outcome token of a market (the order document carries only its token id). */
export type OutcomeNamer = (marketId: number, tokenId: string) => string;

function status(doc: PredictfunOrderDoc, filled: bigint): OrderStatus {
  switch (doc.status.toUpperCase()) {
    case 'OPEN':
      return filled > 0n ? 'partially_filled' : 'open';
    case 'FILLED':
    case 'MATCHED':
      return 'filled';
    case 'CANCELLED':
    case 'CANCELED':
      return 'cancelled';
    case 'EXPIRED':
      return 'expired';
    case 'REJECTED':
      return 'rejected';
    default:
      return 'pending';
  }
}

/**
 * The order's limit price is its collateral leg over its share leg (exact for the SDK's amounts). The venue's
 * documents carry no timestamp: our own orders keep their creation time in the salt (signing.ts), any other order
 * shows the Unix epoch, which says "unknown" rather than inventing a time.
 */
export function toOrder(doc: PredictfunOrderDoc, outcomeName: OutcomeNamer, nowMs = Date.now()): Order {
  const o = doc.order;
  const buy = o.side === 0;
  const shares = BigInt(buy ? o.takerAmount : o.makerAmount);
  const collateral = BigInt(buy ? o.makerAmount : o.takerAmount);
  const priceWei = shares > 0n ? (collateral * WEI) / shares : 0n;
  const filled = BigInt(doc.amountFilled);
  return {
    id: o.hash.toLowerCase(),
    market_id: String(doc.marketId),
    outcome: outcomeName(doc.marketId, o.tokenId),
    side: buy ? 'buy' : 'sell',
    price: fromWei(priceWei.toString()),
    size: fromWei(doc.amount),
    filled: fromWei(doc.amountFilled),
    status: status(doc, filled),
    created_at: saltCreatedAt(String(o.salt), nowMs) ?? new Date(0).toISOString(),
    updated_at: null,
  };
}

/**
 * The legs of one match the wallet signed (a self-trade yields two), as fills. A taker's price is what it paid
 * (`priceExecuted`); a maker fills at its own price. The fee is what the venue took, in USD: a COLLATERAL fee as
 * is, a SHARES fee (a buying taker's) valued at the fill's price. A match not yet settled (no settlementId) is left
 * out: its id would change when it settles.
 */
export function matchFills(match: PredictfunMatch, wallet: string): Fill[] {
  if (!match.settlementId) return [];
  const me = wallet.toLowerCase();
  const legs = [
    { leg: match.taker, taker: true },
    ...match.makers.map((leg) => ({ leg, taker: false })),
  ].filter(({ leg }) => leg.signer.toLowerCase() === me);
  const at = Date.parse(match.executedAt);
  if (Number.isNaN(at))
    throw new AppError('service_unavailable', 'predictfun sent a match with an unreadable time');
  return legs.map(({ leg, taker }) => {
    const priceWei = BigInt(taker ? match.priceExecuted : leg.price);
    let fee: number | null = null;
    if (leg.fee) {
      const amount = BigInt(leg.fee.amount);
      fee = fromWei(
        (leg.fee.type.toUpperCase() === 'SHARES' ? (amount * priceWei) / WEI : amount).toString(),
      );
    }
    return {
      fill_id: `${match.settlementId}:${(leg.hash ?? '').toLowerCase()}`,
      order_id: (leg.hash ?? '').toLowerCase(),
      market_id: String(match.market.id),
      outcome: leg.outcome.name ?? String(leg.outcome.indexSet),
      side: leg.quoteType.toLowerCase() === 'bid' ? 'buy' : 'sell',
      price: fromWei(priceWei.toString()),
      size: fromWei(leg.amount),
      is_taker: taker,
      fee,
      created_at: new Date(at).toISOString(),
    };
  });
}
