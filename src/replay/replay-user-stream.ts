// A paper account's user stream in a replay (the VenueAdapter port's `openUserStream`): `feed_state healthy` at once,
// then each fill of that account as the replay venue makes it (an order's crossing fills when it is placed, resting
// fills when a recorded trade reaches it). The server's fill feeds read it exactly as they read a venue's user
// channel in the sandbox, so the fills reach the WebSocket as `activity` kind fill on the book's subscription.
// `idle()` lets the replay driver wait until the feed has taken every fill, as it does for the market streams.
import type { UserStreamEvent } from '../domain/stream.js';
import type { UserStream } from '../venues/port.js';
import { ReplayEventQueue } from './event-queue.js';

export class ReplayUserStream extends ReplayEventQueue<UserStreamEvent> implements UserStream {
  constructor(
    /** The paper account whose fills this stream carries. */
    readonly account: string,
    signal: AbortSignal,
    private readonly onClose: (stream: ReplayUserStream) => void,
  ) {
    super(signal, [{ type: 'feed_state', state: 'healthy', reason: '' }]);
  }

  /** Queues one of the account's events (the replay venue's fills). */
  override push(event: UserStreamEvent): void {
    super.push(event);
  }

  protected closed_(): void {
    this.onClose(this);
  }
}
