// SQLite copies the WAL back into the database file (a checkpoint) from inside whichever commit crosses
// `wal_autocheckpoint` pages (1000 by default), on the event loop, and a checkpoint fsyncs the WAL and then the
// database file: 2 to 11 ms on the order bench's machine, landing on the request that happened to commit then (it
// was the p99 of POST /orders, whose journal writes fill 1000 pages every ~80 orders). Here a worker thread with a
// connection of its own checkpoints in PASSIVE mode, which neither waits for nor blocks writers and readers.
// Durability is unchanged: commits reach the WAL exactly as before; only the copy into the database file moved off
// the event loop.
// When it checkpoints matters too. A commit that lands while the worker's checkpoint fsyncs can wait for it in the
// kernel: with a checkpoint every 100 ms, one order journal write in ten stalled for milliseconds while Polymarket
// orders (~8 ms each) ran back to back in the order bench. So the worker waits for a quiet moment: every `intervalMs`
// it asks whether another connection committed since it last looked (`PRAGMA data_version`, read from the shared WAL
// index, no disk I/O), and checkpoints at a look that finds no new commit; under writes that never pause it checkpoints
// anyway once `maxIntervalMs` has passed since its last one, keeping the WAL to about a second of writes.
// The writer connection keeps an automatic checkpoint, at BOUND_PAGES instead of 1000, because SQLite starts the
// WAL over only after a checkpoint that copied every frame: a worker racing writes that never pause would let the
// WAL grow without end. In the usual case a pause lets the worker finish and the WAL restarts without the event
// loop ever waiting; under writes that never pause, the commit crossing the bound checkpoints as before, 16 times
// less often. Should the worker fail, the writer's automatic checkpoint goes back to 1000 pages.
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/** What one checkpoint that moved pages reported: WAL frames, and how many of them are now in the database. */
export interface CheckpointReport {
  log: number;
  checkpointed: number;
}

/** SQLite's own default, restored when the worker is gone. */
const DEFAULT_PAGES = 1000;
/** The writer's own checkpoint while the worker runs: 64 MiB of WAL at 4 KiB pages. */
export const BOUND_PAGES = 16_384;

/** What the worker knows between looks at the database. */
export interface CheckpointClock {
  /** `PRAGMA data_version` at the last look (it changes when another connection has committed). */
  version: number | null;
  /** Commits were seen that no checkpoint has copied yet. */
  pending: boolean;
  /** When the last checkpoint ran (ms). */
  lastMs: number;
}

/**
 * One look: whether to checkpoint now, given the data version just read. Checkpoints wait for a look that finds no
 * new commit since the previous one, or for `maxIntervalMs` since the last checkpoint under writes that never pause.
 * Plain JavaScript with no outside references: its source is evaluated in the worker as it is (see WORKER_SOURCE).
 */
export function checkpointDue(clock: CheckpointClock, version: number, nowMs: number, maxIntervalMs: number) {
  const committed = clock.version !== null && version !== clock.version;
  if (committed || clock.version === null) clock.pending = true;
  clock.version = version;
  return clock.pending && (!committed || nowMs - clock.lastMs >= maxIntervalMs);
}

// Plain CommonJS evaluated in the worker: no loader hooks needed (the server runs TypeScript through tsx's, which
// a worker does not inherit). It reports only checkpoints that changed something, so an idle server stays quiet.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
const checkpointDue = ${checkpointDue.toString()};
const clock = { version: null, pending: false, lastMs: Date.now() };
let last = '';
const timer = setInterval(() => {
  try {
    const now = Date.now();
    if (!checkpointDue(clock, db.pragma('data_version', { simple: true }), now, workerData.maxIntervalMs)) return;
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    clock.lastMs = now;
    // Frames left behind (a reader still needs them) keep it pending for the next quiet look.
    clock.pending = r.checkpointed < r.log;
    const key = r.log + ' ' + r.checkpointed;
    if (key !== last && r.checkpointed > 0) parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed });
    last = key;
  } catch (error) {
    // A busy database answers SQLITE_BUSY; the next tick tries again.
    if (error && error.code !== 'SQLITE_BUSY') throw error;
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export class WalCheckpointer extends EventEmitter<{ checkpoint: [CheckpointReport]; failed: [Error] }> {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private stopping = false;

  /** Starts checkpointing `file`, the database `handle` (the writer connection) has open in WAL mode. */
  constructor(
    private readonly handle: SqliteDatabase.Database,
    file: string,
    intervalMs = 100,
    maxIntervalMs = 1_000,
  ) {
    super();
    handle.pragma(`wal_autocheckpoint = ${BOUND_PAGES}`);
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        file,
        intervalMs,
        maxIntervalMs,
      },
    });
    // It must never keep a process alive that is otherwise done.
    this.worker.unref();
    this.worker.on('message', (report: CheckpointReport) => this.emit('checkpoint', report));
    this.worker.on('error', (error) => this.fallBack(error));
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', (code) => {
        if (!this.stopping) this.fallBack(new Error(`the WAL checkpointer exited (code ${code})`));
        resolve();
      });
    });
  }

  /** Ends the worker (it closes its connection); the writer connection checkpoints every 1000 pages from then on. */
  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      // Waiting for its exit must keep the process alive until it has closed its connection.
      this.worker.ref();
      this.worker.postMessage('stop');
    }
    await this.exited;
    this.restoreAutocheckpoint();
  }

  private fallBack(error: Error): void {
    this.restoreAutocheckpoint();
    if (this.listenerCount('failed') > 0) this.emit('failed', error);
  }

  private restoreAutocheckpoint(): void {
    if (this.handle.open) this.handle.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
  }
}
