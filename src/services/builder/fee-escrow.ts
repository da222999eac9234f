// The seam where fee escrow joins the order path (wire contract §5 `fee_auth`). An order that carries fee fields is
// a builder's order for one of its end-users; with no FeeEscrow deployed and wired in, such an order is refused
// (501) before anything reaches an exchange, so a fee the builder expected to collect is never silently dropped.
import type { Order } from '../../domain/trading.js';
import { AppError } from '../../errors/app-error.js';
import type { Principal } from '../../tenancy/principal.js';
import type { CallerContext } from '../caller-context.js';
import type { OrderCharge } from '../trading/orders-service.js';

/** The builder-only fields of POST /orders. */
export interface FeeFields {
  fee_auth?: unknown;
  payer_address?: string | undefined;
  signer_address?: string | undefined;
  affiliate?: string | undefined;
}

/**
 * What the order path needs from the escrow: `authorize` before the order is sent (a bad signature, wrong payer,
 * expired deadline or a fee under the minimum is a 400 and nothing is sent or pulled; the charge it returns pulls
 * the fee immediately before sending and gives it back if the exchange refuses the order), and `follow` whenever
 * the order's latest state is known, which settles a closed order's fee (pro rata on partial fills, refund on
 * cancel or expiry).
 */
export interface FeeEscrow {
  readonly address: string;
  readonly chainId: number;
  readonly treasury: string;
  authorize(
    builder: Principal,
    fields: FeeFields,
    order: { price: number; size: number },
    caller: CallerContext,
  ): Promise<OrderCharge>;
  follow(caller: CallerContext & { tenant: string }, exchange: string, order: Order): Promise<void>;
}

export function hasFeeFields(fields: FeeFields): boolean {
  return (
    fields.fee_auth !== undefined ||
    fields.payer_address !== undefined ||
    fields.signer_address !== undefined ||
    fields.affiliate !== undefined
  );
}

/** Refuses fee fields on an order this server cannot escrow; returns nothing when the order carries none. */
export function refuseFeeFields(fields: FeeFields, impersonating: boolean, escrow: FeeEscrow | null): void {
  if (!hasFeeFields(fields)) return;
  if (!impersonating) {
    throw new AppError(
      'forbidden',
      'fee_auth, payer_address, signer_address and affiliate are for builder orders (X-Builder-Customer-Id)',
    );
  }
  if (!escrow) {
    throw new AppError(
      'not_supported',
      'fee escrow is not deployed on this server (GET /builder/escrow/config)',
    );
  }
}
