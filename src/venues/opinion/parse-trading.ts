// Pure normalizers from Opinion's order and trade documents to our Order and Fill; no I/O. Order status codes are
// the OpenAPI's (1 pending, 2 finished, 3 canceled, 4 expired, 5 failed); a pending order with shares filled is
// partially filled. Amounts are human-unit decimal strings.
import type { Fill, Order, OrderStatus } from '../../domain/trading.js';
import { AppError } from '../../errors/app-error.js';
import { toNumber } from './parse.js';
import type { OpinionFillRow, OpinionOrder } from './payloads.js';

const nonEmpty = (s: string | null | undefined): string | undefined =>
  s !== null && s !== undefined && s.trim() !== '' ? s : undefined;

function outcomeOf(row: {
  outcome?: string | null;
  outcomeSideEnum?: string | null;
  outcomeSide?: number | null;
}): string {
  return (
    nonEmpty(row.outcome) ??
    nonEmpty(row.outcomeSideEnum) ??
    (row.outcomeSide === 1 ? 'Yes' : row.outcomeSide === 2 ? 'No' : '')
  );
}

const iso = (unixSeconds: number | null | undefined): string =>
  new Date((typeof unixSeconds === 'number' && unixSeconds > 0 ? unixSeconds : 0) * 1000).toISOString();

function sideOf(sideEnum: string | null | undefined, code: number | null | undefined): 'buy' | 'sell' {
  const named = (sideEnum ?? '').toLowerCase();
  if (named === 'buy' || named === 'sell') return named;
  // The numeric side is documented 1 BUY / 2 SELL on OrderData (V2OrderData), but samples show 0 for a buy.
  if (code === 1 || code === 0) return 'buy';
  if (code === 2) return 'sell';
  throw new AppError('service_unavailable', `opinion sent an order side it does not document (${code})`);
}

export function toOrder(o: OpinionOrder): Order {
  const size = toNumber(o.orderShares) ?? 0;
  const filled = toNumber(o.filledShares) ?? 0;
  let status: OrderStatus;
  switch (o.status) {
    case 1:
      status = filled > 0 ? 'partially_filled' : 'open';
      break;
    case 2:
      status = 'filled';
      break;
    case 3:
      status = 'cancelled';
      break;
    case 4:
      status = 'expired';
      break;
    case 5:
      status = 'rejected';
      break;
    default:
      throw new AppError(
        'service_unavailable',
        `opinion sent an order status it does not document (${o.status})`,
      );
  }
  return {
    id: o.orderId,
    market_id: String(o.marketId),
    outcome: outcomeOf(o),
    side: sideOf(o.sideEnum, o.side),
    price: toNumber(o.price) ?? 0,
    size,
    filled,
    status,
    created_at: iso(o.createdAt),
    // Opinion's order documents carry no time of their last change.
    updated_at: null,
  };
}

/**
 * A row of GET /trade as a fill. The row names no liquidity role; Opinion charges makers nothing and takers a fee on
 * every fill (docs.opinion.trade fees; FeeManager rate bps × p(1−p)), so a fill with a fee was a taker's.
 */
export function toFill(t: OpinionFillRow): Fill {
  const fee = toNumber(t.feeFormatted);
  return {
    fill_id: t.tradeNo,
    order_id: t.orderNo,
    market_id: String(t.marketId),
    outcome: outcomeOf(t),
    side: t.side.toLowerCase() === 'sell' ? 'sell' : 'buy',
    price: toNumber(t.price) ?? 0,
    size: toNumber(t.shares) ?? 0,
    is_taker: fee !== null && fee > 0,
    fee,
    created_at: iso(t.createdAt),
  };
}
