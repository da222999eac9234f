// "The end-user's key stops working at once": a deactivation (or a qps_limit change) drops this node's key and
// impersonation caches at once, and with Redis tells every other node to do the same over one pub/sub channel, so a
// revoked key is not served from another node's cache for the rest of its lifetime (auth.keyCacheTtlMs). Without
// Redis a single node needs nothing more; several nodes without Redis converge within auth.keyCacheTtlMs.
import type { Redis } from 'ioredis';
import type { LoggerLike } from '../../venues/port.js';

export class KeyChanges {
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly redis: { publisher: Redis; subscriber: Redis; channel: string } | null,
    private readonly logger: LoggerLike,
  ) {}

  /** Subscribes to the other nodes' announcements (with Redis). */
  async start(): Promise<void> {
    if (!this.redis) return;
    const { subscriber, channel } = this.redis;
    subscriber.on('message', (from: string) => {
      if (from === channel) this.dropLocal();
    });
    await subscriber.subscribe(channel);
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Drops the caches here, and announces the change to the other nodes. */
  changed(): void {
    this.dropLocal();
    this.redis?.publisher.publish(this.redis.channel, 'changed').catch((err: unknown) => {
      this.logger.warn(
        { err },
        'announcing a key change to the other nodes failed; their caches expire on their own',
      );
    });
  }

  private dropLocal(): void {
    for (const listener of this.listeners) listener();
  }
}
