// A user's live GTC order as the Polymarket simulator holds it (sim/polymarket/order.ts), for tests that drive the
// simulator's exchange or settlement directly; ids are unique within the test process.
import type { PmMarket } from '../../sim/polymarket/catalogue.js';
import { newOrder, type PmOrder } from '../../sim/polymarket/order.js';

let seq = 0;

export function simUserOrder(
  market: PmMarket,
  account: string,
  side: 'BUY' | 'SELL',
  price: number,
  size: number,
  outcome: 0 | 1 = 0,
): PmOrder {
  seq += 1;
  return newOrder({
    id: `0x${seq.toString(16).padStart(64, '0')}`,
    seq,
    house: false,
    ownerKey: account,
    makerAddress: account,
    account,
    market,
    outcome,
    side,
    price,
    size,
    createdAt: 0,
  });
}
