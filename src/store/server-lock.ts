// In SQLite mode one server owns a data directory. Its order journal gives row ids itself, counting on from the last
// one it read at start, and only it writes and empties the intent log (order-intent-log.ts). A second server on
// the same directory would hand out the same ids, and could commit or clear the first one's intents. This lock
// turns that into a clear error at start. It is an exclusive SQLite lock on a file of its own (POSIX advisory
// locks underneath), so the operating system drops it when the process dies, SIGKILL included: no stale lock file
// is left to clean up. The CLI's commands (sync, keys, migrate, vault rotate) open the database without it, which
// SQLite allows: they touch neither the journal's ids nor the intent log.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { ensurePrivateFile, PRIVATE_DIR_MODE } from './private-file.js';

/** Its name in the data directory, beside omnibook.sqlite. */
export const SERVER_LOCK_FILE = 'omnibook.sqlite-server-lock';

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

export class ServerLock {
  private constructor(private handle: SqliteDatabase.Database | null) {}

  /** Takes the data directory's lock, or throws DataDirInUseError at once when another server holds it. */
  static acquire(dataDir: string): ServerLock {
    mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const file = resolve(join(dataDir, SERVER_LOCK_FILE));
    ensurePrivateFile(file);
    const handle = new SqliteDatabase(file, { timeout: 0 });
    try {
      // Exclusive locking mode keeps the lock after the transaction that took it, until the connection closes.
      handle.pragma('locking_mode = EXCLUSIVE');
      handle.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (error) {
      handle.close();
      if ((error as { code?: string }).code === 'SQLITE_BUSY') {
        throw new DataDirInUseError(
          `another omnibook server is using the data directory ${resolve(dataDir)}: in SQLite mode one server ` +
            'owns a data directory (stop it, give this one its own --data-dir, or set DATABASE_URL to run several)',
        );
      }
      throw error;
    }
    return new ServerLock(handle);
  }

  /** The lock a server takes for its store: the data directory's on SQLite, none on PostgreSQL (several nodes). */
  static forStore(store: { databaseUrl?: string | undefined; dataDir: string }): ServerLock | null {
    return store.databaseUrl ? null : ServerLock.acquire(store.dataDir);
  }

  release(): void {
    this.handle?.close();
    this.handle = null;
  }
}
