// `omnibook sync` and the server's background sync as a user sees them: real child processes and SQLite files.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { BIN, runCli, startServerProcess } from '../../support/cli.js';
import { send, waitFor } from '../../support/server.js';

const BASE_ENV: Record<string, string> = {
  DATABASE_URL: '',
  REDIS_URL: '',
  OMNIBOOK_ADMIN_KEY: '',
  OMNIBOOK_CONFIG: '',
  OMNIBOOK_DATA_DIR: '',
  OMNIBOOK_CATALOGUE_SYNC: '',
  LOG_LEVEL: '',
};
const EXCHANGES = ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun'];

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'omnibook-sync-'));
  tempDirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

interface SummaryRow {
  markets: number;
  events: number;
  written: number;
  status: string;
}

function summaryRows(stdout: string): Map<string, SummaryRow> {
  const rows = new Map<string, SummaryRow>();
  for (const line of stdout.split('\n')) {
    const m = /^(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+\s+(.+)$/.exec(line);
    if (m?.[1] && EXCHANGES.includes(m[1])) {
      rows.set(m[1], {
        markets: Number(m[2]),
        events: Number(m[3]),
        written: Number(m[4]),
        status: m[5] ?? '',
      });
    }
  }
  return rows;
}

function syncState(dataDir: string): Array<{ exchange: string; resource: string; cursor: string | null }> {
  const db = new SqliteDatabase(join(dataDir, 'omnibook.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('select exchange, resource, cursor from sync_state').all() as Array<{
      exchange: string;
      resource: string;
      cursor: string | null;
    }>;
  } finally {
    db.close();
  }
}

test('omnibook sync --sandbox --size 30 prints a summary per exchange and exits 0; a rerun writes nothing', async () => {
  const dataDir = tempDir();
  const first = await runCli(['sync', '--sandbox', '--size', '30', '--data-dir', dataDir], BASE_ENV);
  assert.equal(first.code, 0, first.stderr);
  const rows = summaryRows(first.stdout);
  assert.deepEqual([...rows.keys()], EXCHANGES, first.stdout);
  for (const [id, row] of rows) {
    assert.equal(row.status, 'ok', id);
    assert.ok(row.markets > 0, id);
    assert.equal(row.written, row.markets + row.events, id);
  }
  assert.match(first.stderr, /polymarket\s+done\s+markets\s+\d+/, 'no progress line');

  const again = await runCli(
    ['sync', '--sandbox', '--size', '30', '--exchange', 'kalshi', '--data-dir', dataDir],
    BASE_ENV,
  );
  assert.equal(again.code, 0, again.stderr);
  const kalshi = summaryRows(again.stdout);
  assert.deepEqual([...kalshi.keys()], ['kalshi']);
  assert.equal(kalshi.get('kalshi')?.written, 0);
  assert.equal(kalshi.get('kalshi')?.markets, rows.get('kalshi')?.markets);
});

test('omnibook sync rejects an unknown exchange with exit 2', async () => {
  const res = await runCli(['sync', '--sandbox', '--exchange', 'nope', '--data-dir', tempDir()], BASE_ENV);
  assert.equal(res.code, 2);
  assert.match(res.stderr, /unknown exchange 'nope'/);
});

test('Ctrl-C stops omnibook sync with its cursor saved, and the next run resumes from it', async () => {
  const dataDir = tempDir();
  const args = ['sync', '--sandbox', '--size', '4000', '--exchange', 'opinion', '--data-dir', dataDir];
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...BASE_ENV },
    stdio: 'pipe',
  });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await waitFor(
    async () => {
      try {
        return syncState(dataDir).some((s) => s.cursor !== null);
      } catch {
        return false;
      }
    },
    30_000,
    'a saved cursor',
  );
  child.kill('SIGINT');
  assert.equal(await exited, 130, stdout);
  assert.match(stdout, /opinion .*interrupted/);
  const saved = syncState(dataDir).find((s) => s.exchange === 'opinion' && s.cursor !== null);
  assert.ok(saved, 'no cursor left to resume from');

  const rerun = await runCli(args, BASE_ENV);
  assert.equal(rerun.code, 0, rerun.stderr);
  assert.equal(summaryRows(rerun.stdout).get('opinion')?.status, 'ok (resumed)', rerun.stdout);
  assert.ok(syncState(dataDir).every((s) => s.cursor === null));
});

test('omnibook sandbox syncs in the background and reports it in /healthz', async () => {
  const server = await startServerProcess(['sandbox', '--port', '0', '--data-dir', tempDir()], BASE_ENV);
  try {
    const report = await waitFor(
      async () => {
        const res = await send(server.url, '', '/healthz', { key: null });
        const body = res.body as {
          workers: Array<{ name: string; health: string }>;
          catalogue?: { leader: boolean; exchanges: Record<string, { last_full_at: string | null }> };
        };
        const worker = body.workers.find((w) => w.name === 'catalogue-sync');
        return worker?.health === 'running' ? body : undefined;
      },
      30_000,
      'a completed background pass',
    );
    assert.equal(report.catalogue?.leader, true);
    for (const id of EXCHANGES) assert.ok(report.catalogue?.exchanges[id]?.last_full_at, id);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});
