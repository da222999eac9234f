// The rules a POST /orders body is held to before anything reaches an exchange. The order types an exchange takes
// and the gtd lead time come from its descriptor (`features.orderTypes`, `features.gtdMinLeadSeconds`), the one
// source the route enforces: a type the exchange does not take is 501, never a silent substitute. Price and size
// are checked exactly (decimals, not floats) against the market's tick and minimum.
import { Decimal } from '../../domain/decimal.js';
import type { Market } from '../../domain/market.js';
import { ORDER_TYPES, type OrderType } from '../../domain/trading.js';
import { AppError, validationError } from '../../errors/app-error.js';
import type { VenueDescriptor } from '../../venues/port.js';

export interface OrderParams {
  orderType: OrderType;
  expiration: number | undefined;
}

const PARAM_KEYS = new Set(['order_type', 'expiration']);

/** `params` (a string→string map) read into the order type and expiration, checked against the exchange. */
export function orderParams(
  descriptor: VenueDescriptor,
  params: ReadonlyMap<string, string>,
  nowSeconds: number,
): OrderParams {
  const unknown = [...params.keys()].filter((k) => !PARAM_KEYS.has(k));
  if (unknown.length > 0) {
    throw validationError(
      unknown.map((k) => `params.${k} is not a known order parameter (order_type, expiration)`),
    );
  }
  const rawType = (params.get('order_type') ?? 'gtc').toLowerCase();
  const orderType = ORDER_TYPES.find((t) => t === rawType);
  if (!orderType) throw validationError([`params.order_type must be one of: ${ORDER_TYPES.join(', ')}`]);
  if (!descriptor.features.orderTypes.includes(orderType)) {
    const offered = descriptor.features.orderTypes.join(', ') || 'none';
    throw new AppError(
      'not_supported',
      `${descriptor.id} does not take ${orderType} orders (it takes: ${offered})`,
    );
  }
  const rawExpiration = params.get('expiration');
  if (orderType !== 'gtd') {
    if (rawExpiration !== undefined) throw validationError(['params.expiration is only for gtd orders']);
    return { orderType, expiration: undefined };
  }
  if (rawExpiration === undefined) {
    throw new AppError('missing_parameter', 'a gtd order needs params.expiration (Unix seconds)', {
      validationErrors: ['params.expiration is required when order_type is gtd'],
    });
  }
  if (!/^\d{1,12}$/.test(rawExpiration)) {
    throw validationError(['params.expiration must be Unix seconds (an integer)']);
  }
  const expiration = Number(rawExpiration);
  const lead = descriptor.features.gtdMinLeadSeconds ?? 0;
  if (expiration < nowSeconds + lead) {
    throw validationError([`params.expiration must be at least ${lead} seconds in the future`]);
  }
  return { orderType, expiration };
}

/** Price strictly inside (0, 1) on the market's tick; size positive and at least the market's minimum. */
export function checkPriceAndSize(market: Market, price: number, size: number): void {
  const problems: string[] = [];
  const p = Decimal.fromNumber(price);
  if (!(price > 0 && price < 1)) problems.push('price must be strictly between 0 and 1');
  else if (typeof market.tick_size === 'number' && market.tick_size > 0) {
    const tick = Decimal.fromNumber(market.tick_size);
    const steps = p.div(tick, 0, 'floor');
    if (!steps.mul(tick).eq(p))
      problems.push(`price must be a multiple of the market's tick ${market.tick_size}`);
  }
  if (!(size > 0)) problems.push('size must be greater than 0');
  else if (typeof market.min_order_size === 'number' && size < market.min_order_size) {
    problems.push(`size must be at least the market's minimum ${market.min_order_size}`);
  }
  if (problems.length > 0) throw validationError(problems);
}
