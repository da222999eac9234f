// A customer's WebSocket subscriptions (books and wallet addresses) counted across all its connections, which is
// what the tier's wsMaxSubscriptions bounds: one key with 20 sockets holds no more than one socket would.
//
// This node's part is read live from its meters (WsUsage) at every check, so two of the customer's connections on
// one node can never pass the cap together. Other nodes' part (with Redis: ClusterWsUsage) is read once per
// subscribe frame and is as fresh as their last published live counts (websocket.usageFlushMs): connections on
// different nodes subscribing within that window may overshoot the cap by what they opened in it. When Redis cannot
// be read the count is this node's alone (logged): market data stays available, and the per-node pools of polled
// wallets and books (fair-pool.ts) still bound what reaches the exchanges.
import type { WsUsage } from '../services/ws-usage.js';
import type { LoggerLike } from '../venues/port.js';

/** The customer's subscriptions on the other nodes of a cluster. */
export interface RemoteSubscriptions {
  elsewhere(customerId: string): Promise<number>;
}

/** One frame's view of a customer's count: the other nodes' part as read, plus this node's live. */
export interface CustomerSubscriptions {
  used(): number;
}

export class SubscriptionQuota {
  constructor(
    private readonly local: Pick<WsUsage, 'active'>,
    private readonly remote: RemoteSubscriptions | null,
    private readonly logger: LoggerLike,
  ) {}

  async of(customerId: string): Promise<CustomerSubscriptions> {
    let elsewhere = 0;
    if (this.remote) {
      try {
        elsewhere = await this.remote.elsewhere(customerId);
      } catch (error) {
        this.logger.warn(
          { err: error },
          "other nodes' subscription counts unavailable: counting this node's",
        );
      }
    }
    return { used: () => elsewhere + this.local.active(customerId).subscriptions };
  }
}
