// The order journal's rows written before their orders are sent, kept until they are committed to SQLite: one JSON
// line each, appended to a file beside the database. An order's journal row must be durable before the request
// leaves. A SQLite commit of it writes six WAL frames (the row, four index entries, the AUTOINCREMENT counter):
// twelve writes and six shared-memory locks, 110–145 µs in POST /orders' send hook (bench:orders, marks in the
// code), against 55–75 µs for this one append.
// Durability is the same as the commit's at `synchronous = NORMAL`: the write has reached the operating system
// before the order is sent, so a killed process loses nothing, and a power cut can lose the last writes of either.
// The journal commits queued rows together (order-journal-repo.ts) and then empties the file; rows left in it when
// the server died are committed when the journal opens next. One serving process owns the file, as it owns the
// SQLite journal: a second server on the same data directory is refused at start (server-lock.ts).
import { closeSync, fchmodSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from './private-file.js';

/** Its name in the data directory: beside omnibook.sqlite, and like its -wal and -shm files, named after it. */
export const ORDER_INTENTS_FILE = 'omnibook.sqlite-intents';

export class OrderIntentLog {
  private fd: number | null;

  /** Opens (creating, owner-only) the log at `file`. */
  constructor(readonly file: string) {
    this.fd = openSync(file, 'a+', PRIVATE_FILE_MODE);
    // The mode above applies only to a file this call creates, narrowed by the umask: set it either way.
    fchmodSync(this.fd, PRIVATE_FILE_MODE);
  }

  /** Appends one record; returns once the write has reached the operating system. */
  append(record: unknown): void {
    writeSync(this.open(), `${JSON.stringify(record)}\n`);
  }

  /**
   * The records in the file, in the order written. A line that does not parse (the last one, torn by a power cut
   * mid-write) is skipped: its append never returned, so its order was never sent.
   */
  records(): unknown[] {
    const out: unknown[] = [];
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (line === '') continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        // Torn, as above.
      }
    }
    return out;
  }

  /** Empties the file once every record in it is committed elsewhere. */
  clear(): void {
    ftruncateSync(this.open());
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private open(): number {
    if (this.fd === null) throw new Error('the order intent log is closed');
    return this.fd;
  }
}
