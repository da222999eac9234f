// How many WebSockets this node holds, and for whom: a connection takes an unauthenticated seat when it opens (the
// gateway refuses the upgrade when they are all taken, so clients without a key cannot hold the node's sockets
// and memory) and moves to its customer's seats when it authenticates (refused past the tier's number). Counts are
// this node's own.
import type { TierName } from '../domain/tiers.js';

export interface SeatLimits {
  /** Connections that have not authenticated yet, on this node at once. */
  maxUnauthenticated: number;
  /** Authenticated connections per customer on this node, by the key's tier (0: no limit). */
  perCustomer: Readonly<Record<TierName, number>>;
}

export class ConnectionSeats {
  private unauthenticated = 0;
  private readonly customers = new Map<string, number>();

  constructor(private readonly limits: SeatLimits) {}

  /** Whether one more unauthenticated connection may open. */
  get hasRoom(): boolean {
    return this.unauthenticated < this.limits.maxUnauthenticated;
  }

  get unauthenticatedCount(): number {
    return this.unauthenticated;
  }

  /** A new connection's seat, before it authenticated (the caller checked `hasRoom`). */
  open(): void {
    this.unauthenticated += 1;
  }

  /**
   * Moves an unauthenticated seat to the customer's; false when the customer already holds all its tier allows
   * (the seat stays unauthenticated until released).
   */
  authenticate(customerId: string, tier: TierName): boolean {
    const held = this.customers.get(customerId) ?? 0;
    const max = this.limits.perCustomer[tier];
    if (max > 0 && held >= max) return false;
    this.customers.set(customerId, held + 1);
    this.unauthenticated -= 1;
    return true;
  }

  /** The tier's number, for the message that refuses one more. */
  limitFor(tier: TierName): number {
    return this.limits.perCustomer[tier];
  }

  /** Frees a closed connection's seat: the customer's when it authenticated (`customerId`), else unauthenticated. */
  release(customerId: string | null): void {
    if (customerId === null) {
      this.unauthenticated -= 1;
      return;
    }
    const held = this.customers.get(customerId) ?? 0;
    if (held <= 1) this.customers.delete(customerId);
    else this.customers.set(customerId, held - 1);
  }
}
