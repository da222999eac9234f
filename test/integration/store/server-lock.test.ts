// The data directory's server lock (SQLite mode): a second holder, in another process or the same one, is refused
// at once with DataDirInUseError; a release lets the next one in; and a holder killed with SIGKILL leaves no lock
// behind, because the operating system drops it with the process (nothing stale to clean up after a crash).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DataDirInUseError, ServerLock } from '../../../src/store/server-lock.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'omnibook-lock-'));
  dirs.push(dir);
  return dir;
}

test('in one process: a second acquire is refused until the first is released', () => {
  const dir = dataDir();
  const first = ServerLock.acquire(dir);
  assert.throws(
    () => ServerLock.acquire(dir),
    (e: unknown) => e instanceof DataDirInUseError && e.message.includes(dir),
  );
  first.release();
  first.release(); // twice is harmless
  ServerLock.acquire(dir).release();
  // Another directory is another lock.
  const other = ServerLock.acquire(dataDir());
  const again = ServerLock.acquire(dir);
  other.release();
  again.release();
});

test('a holder in another process refuses us; killed with SIGKILL, it leaves the lock free', async () => {
  const dir = dataDir();
  const module = fileURLToPath(new URL('../../../src/store/server-lock.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { ServerLock } = await import(${JSON.stringify(module)});
       ServerLock.acquire(${JSON.stringify(dir)});
       process.stdout.write('held\\n');
       setInterval(() => {}, 60_000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('held\n')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`the holder exited (${code}) before taking the lock`)));
    });
    assert.throws(() => ServerLock.acquire(dir), DataDirInUseError);
  } finally {
    child.kill('SIGKILL');
  }
  assert.equal(await exited, 'SIGKILL');
  ServerLock.acquire(dir).release();
});
