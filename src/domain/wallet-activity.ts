// One item of a wallet's public activity as a venue publishes it, named so that the same item read twice (in two
// overlapping polls) is recognised: `id` is the venue's own id where it has one, else a key built from the row's
// fields that is the same on every read (see each adapter). `raw` is the venue's row as sent.
export interface WalletActivityItem {
  id: string;
  /** When the venue says the activity happened (Unix ms). */
  timestamp_ms: number;
  raw: Record<string, unknown>;
}

/** What a poll asks for: every item at or after `sinceMs` (inclusive), oldest first, at most `max` of them. */
export interface WalletActivityQuery {
  sinceMs: number;
  max: number;
}
