// What the gateway needs of a replay's pacing (`omnibook replay --fast`, docs/replay.md): a connection that sends
// `replay_pace` joins the paced readers, each `replay_ack {step}` it sends says it has read everything up to that
// step, and it leaves when it closes. The replay (src/replay/ws-pacer.ts) implements it; a server that is not a
// replay has none, and those messages are refused there.
export interface PacedReader {
  /** Sends one frame on the reader's socket (after everything sent on it before). */
  send(frame: string): void;
}

export interface ReplayPacer {
  join(reader: PacedReader): void;
  ack(reader: PacedReader, step: number): void;
  leave(reader: PacedReader): void;
}
