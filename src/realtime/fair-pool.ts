// What this node polls upstream for WebSocket clients — watched wallets, books of venues whose stream is REST
// polling — costs the operator's exchange quota once per poll period each, whoever asked. A pool bounds how many
// this node polls at once (its capacity, from config) and how many of them one customer may bring in: a customer
// asking for one nobody polls yet is admitted while it holds fewer than its fair share,
//   share = max(1, floor(capacity / (customers holding + 1)))        (customers holding counts the asker)
// so a customer alone gets half the pool, and room is left for the next customer whatever the others did. As more
// customers hold, each share shrinks; what a customer holds is never taken back (a subscription stays until it is
// ended), but one past its share gets nothing new until it is under again. Joining what someone already polls
// costs the exchange nothing and is always admitted (counted towards the customer's holding all the same). The
// tier's subscription cap applies on top. The pool is this node's: each node polls for its own clients.
export interface PoolRefusal {
  reason: 'full' | 'share';
  message: string;
}

export function isPoolRefusal(value: object): value is PoolRefusal {
  return 'reason' in value;
}

export class FairPool {
  /** Each unit polled, with its holders (customer → subscriptions of it). */
  private readonly units = new Map<string, Map<string, number>>();
  /** Distinct units per customer. */
  private readonly holdings = new Map<string, number>();

  constructor(
    /** What a unit is, for messages ("watched wallets"). */
    private readonly what: string,
    readonly capacity: number,
  ) {}

  /** Takes `unit` for `customer`: null when admitted (release it later), else why not. */
  acquire(customer: string, unit: string): PoolRefusal | null {
    const holders = this.units.get(unit);
    const mine = holders?.get(customer);
    if (holders && mine !== undefined) {
      holders.set(customer, mine + 1);
      return null;
    }
    if (!holders) {
      if (this.units.size >= this.capacity) {
        return {
          reason: 'full',
          message: `this server polls as many ${this.what} as it may (${this.capacity})`,
        };
      }
      const share = this.shareFor(customer);
      if ((this.holdings.get(customer) ?? 0) >= share) {
        return {
          reason: 'share',
          message: `your fair share of this server's ${this.what} is ${share} of ${this.capacity}, and you hold it`,
        };
      }
    }
    const entry = holders ?? new Map<string, number>();
    if (!holders) this.units.set(unit, entry);
    entry.set(customer, 1);
    this.holdings.set(customer, (this.holdings.get(customer) ?? 0) + 1);
    return null;
  }

  release(customer: string, unit: string): void {
    const holders = this.units.get(unit);
    const mine = holders?.get(customer);
    if (!holders || mine === undefined) return;
    if (mine > 1) {
      holders.set(customer, mine - 1);
      return;
    }
    holders.delete(customer);
    if (holders.size === 0) this.units.delete(unit);
    const held = (this.holdings.get(customer) ?? 1) - 1;
    if (held > 0) this.holdings.set(customer, held);
    else this.holdings.delete(customer);
  }

  /** Units polled now. */
  get size(): number {
    return this.units.size;
  }

  private shareFor(customer: string): number {
    const customers = this.holdings.size + (this.holdings.has(customer) ? 0 : 1);
    return Math.max(1, Math.floor(this.capacity / (customers + 1)));
  }
}
