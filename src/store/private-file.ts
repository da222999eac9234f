// Data files are the owner's only (0600), whatever the process's umask and whatever mode an older version left.
// A mode given to open() applies only when the call creates the file, and then narrowed by the umask; SQLite
// creates its files 0644 by itself. So each file is created here first, and its mode set explicitly, before
// whatever opens it; SQLite then gives its -wal and -shm files the database file's mode, and those an older
// version left wider are narrowed once the database is open.
import { chmodSync, closeSync, existsSync, fchmodSync, openSync } from 'node:fs';

export const PRIVATE_FILE_MODE = 0o600;
/** For a data directory the server creates. */
export const PRIVATE_DIR_MODE = 0o700;

/** Creates `path` (empty) if absent, and makes it owner-only either way. */
export function ensurePrivateFile(path: string): void {
  const fd = openSync(path, 'a', PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

/** Makes each of `paths` that exists owner-only (SQLite's side files, which it may not have created yet). */
export function restrictExisting(...paths: string[]): void {
  for (const path of paths) if (existsSync(path)) chmodSync(path, PRIVATE_FILE_MODE);
}
