// The smallest fee a builder order may carry: the configured floor (min_fee_usdc) or min_fee_bps of the order's
// notional (price × size, in USDC base units), whichever is larger. Exact: price and size enter as decimals, never
// as a float product.
import type { Config } from '../../config/schema.js';

const SCALE = 9;

function scaled(n: number): bigint {
  const [whole, fraction = ''] = n.toFixed(SCALE).split('.');
  return BigInt(`${whole}${fraction.padEnd(SCALE, '0')}`);
}

/** price × size in USDC base units (6 decimals), rounded down. */
export function notionalBaseUnits(price: number, size: number): bigint {
  return (scaled(price) * scaled(size)) / 10n ** BigInt(2 * SCALE - 6);
}

export function minimumFee(
  order: { price: number; size: number },
  config: Pick<Config['builder'], 'minFeeUsdc' | 'minFeeBps'>,
): bigint {
  const floor = BigInt(config.minFeeUsdc);
  const byBps = ceilDiv(notionalBaseUnits(order.price, order.size) * BigInt(config.minFeeBps), 10_000n);
  return byBps > floor ? byBps : floor;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
