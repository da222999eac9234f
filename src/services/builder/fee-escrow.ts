// The seam where fee escrow joins the order path (wire contract §5 `fee_auth`). An order that carries fee fields is
// a builder's order for one of its end-users; with no FeeEscrow deployed and wired in, such an order is refused
// (501) before anything reaches an exchange, so a fee the builder expected to collect is never silently dropped.
import { AppError } from '../../errors/app-error.js';

/** The builder-only fields of POST /orders. */
export interface FeeFields {
  fee_auth?: unknown;
  payer_address?: string | undefined;
  signer_address?: string | undefined;
  affiliate?: string | undefined;
}

/**
 * What the order path needs from the escrow: `verify` before the order is sent (a bad signature, wrong payer,
 * expired deadline or a fee under the minimum is a 400 and nothing is sent or pulled), `settle` once the order's
 * fate is known (pro rata on partial fills, refund on cancel or expiry).
 */
export interface FeeEscrow {
  verify(fields: FeeFields, order: { notionalUsdc: string }): Promise<{ orderId: string }>;
  settle(orderId: string, filledFraction: { filled: number; size: number }): Promise<void>;
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
