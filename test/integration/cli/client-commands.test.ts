// The `omnibook` client commands as a user runs them: real child processes talking to one sandbox server (the five
// simulators and the chain) through @omnibook/client. Tables by default, the API's JSON with --json, the API's
// error code and a non-zero exit on failure, a live book redrawn from the WebSocket until Ctrl-C, and never a
// secret (the API key, an exchange private key) in anything printed.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { BIN, type CliResult, runCli } from '../../support/cli.js';
import { type SandboxServer, startSandboxServer } from '../../support/sandbox.js';

let sandbox: SandboxServer;
let env: Record<string, string>;
let credentialsFile: string;
const dir = mkdtempSync(join(tmpdir(), 'omnibook-client-cli-'));
const secrets: string[] = [];
const children: ChildProcess[] = [];

before(async () => {
  sandbox = await startSandboxServer(20);
  env = { OMNIBOOK_URL: sandbox.server.url, OMNIBOOK_API_KEY: sandbox.server.adminKey, LOG_LEVEL: 'warn' };
  // The sandbox's accounts file, as `omnibook sandbox` writes it.
  const accounts = Object.fromEntries([...sandbox.sims].map(([id, sim]) => [id, sim.account]));
  credentialsFile = join(dir, 'sandbox-accounts.json');
  writeFileSync(credentialsFile, JSON.stringify(accounts), { mode: 0o600 });
  secrets.push(sandbox.server.adminKey);
  for (const account of Object.values(accounts)) {
    for (const [field, value] of Object.entries(account.credentials)) {
      if (/key|secret|pass/i.test(field) && value.length >= 16) secrets.push(value);
    }
  }
});
after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function active(exchange: ExchangeId, n = 0): Market {
  const m = [...sandbox.markets.values()].filter(
    (x) => x.exchange === exchange && x.status === 'active' && x.outcomes.every((o) => o.token_id),
  )[n];
  assert.ok(m, `${exchange} has fewer than ${n + 1} active markets`);
  return m;
}

/** Runs the command; fails the test if anything it printed holds a secret. */
async function cli(args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  const result = await runCli(args, { ...env, ...extraEnv });
  for (const secret of secrets) {
    assert.ok(
      !result.stdout.includes(secret) && !result.stderr.includes(secret),
      `${args[0]} printed a secret`,
    );
  }
  return result;
}

function ok(result: CliResult): string {
  assert.equal(result.code, 0, `exit ${result.code}: ${result.stderr}`);
  return result.stdout;
}

describe('market data', () => {
  test('markets search prints an aligned table; --json the API page; an unknown market exits 1 with its code', async () => {
    const m = active('polymarket');
    const word = m.question.split(' ').find((w) => /^[A-Za-z]{4,}$/.test(w)) ?? 'will';
    const [search, asJson, one, missing] = await Promise.all([
      cli(['markets', 'search', word, '--limit', '5']),
      cli(['markets', 'search', word, '--json']),
      cli(['market', m.svc_id]),
      cli(['market', 'polymarket:0xnope']),
    ]);
    const lines = ok(search).trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^svc_id\s+exchange\s+question\s+bid\s+ask\s+volume$/);
    assert.ok(lines.length >= 3, 'a header, at least one market, a count');
    const page = JSON.parse(ok(asJson)) as { markets: Array<{ svc_id: string }> };
    assert.ok(page.markets.length > 0);
    assert.ok(page.markets.every((x) => lines.join('\n').includes(x.svc_id) || page.markets.length > 5));
    assert.match(ok(one), new RegExp(`^svc_id\\s+${m.svc_id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /market_not_found \(HTTP 404\)/);
  });

  test('book, candles, quote, consolidated and route answer what the API answers', async () => {
    const m = active('kalshi');
    const [book, bookJson, candles, quote, consolidated, route] = await Promise.all([
      cli(['book', m.svc_id, '--depth', '5']),
      cli(['book', m.svc_id, '--depth', '5', '--json']),
      cli(['candles', m.svc_id, '--interval', '1h', '--json']),
      cli(['quote', m.svc_id, '--side', 'buy', '--amount', '2', '--json']),
      cli(['consolidated', m.svc_id, '--json']),
      cli(['route', m.svc_id, '--side', 'buy', '--amount', '2', '--json']),
    ]);
    assert.match(ok(book).split('\n')[1] ?? '', /^bid size\s+bid\s+ask\s+ask size$/);
    const parsed = JSON.parse(ok(bookJson)) as { svc_id: string; bids: unknown[] };
    assert.equal(parsed.svc_id, m.svc_id);
    assert.ok(parsed.bids.length <= 5);
    assert.ok(Array.isArray((JSON.parse(ok(candles)) as { candles: unknown[] }).candles));
    assert.equal((JSON.parse(ok(quote)) as { side: string }).side, 'buy');
    assert.equal((JSON.parse(ok(consolidated)) as { svc_id: string }).svc_id, m.svc_id);
    assert.ok(Array.isArray((JSON.parse(ok(route)) as { legs: unknown[] }).legs));
  });

  test('book --watch redraws the live book from the WebSocket until Ctrl-C; an unknown id exits 1 at once', async () => {
    const m = active('polymarket', 1);
    const child = spawn(process.execPath, [BIN, 'book', m.svc_id, '--watch', '--json', '--depth', '3'], {
      env: { ...process.env, ...env },
      stdio: 'pipe',
    });
    children.push(child);
    let out = '';
    const views: Array<{ state: string; server_seq: number; bids: unknown[] }> = [];
    const seen = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (views.length >= n) resolve();
        };
        child.stdout.on('data', check);
        child.once('exit', () => reject(new Error(`exited early: ${out}`)));
        check();
      });
    child.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) views.push(JSON.parse(line));
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await seen(1);
    assert.equal(views[0]?.state, 'fresh');
    assert.ok((views[0]?.bids.length ?? 0) <= 3);
    const sim = sandbox.sims.get('polymarket');
    assert.ok(sim);
    await fetch(`${sim.control}/__sim/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ steps: 3 }),
    });
    await seen(2);
    assert.ok((views[1]?.server_seq ?? 0) > (views[0]?.server_seq ?? 0), 'a later state of the book');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    assert.equal(await exited, 0, stderr);

    const unknown = await cli(['book', 'polymarket:0xnope', '--watch']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /market_not_found/);
  });
});

describe('trading', () => {
  test('order place, get, list and cancel with --credentials; fills, positions and balance as tables', async () => {
    const m = active('kalshi', 0);
    const book = JSON.parse(ok(await cli(['book', m.svc_id, '--json']))) as { tick_size: number };
    const creds = ['--credentials', credentialsFile];
    const placed = await cli([
      'order',
      'place',
      m.svc_id,
      '--side',
      'buy',
      '--price',
      String(book.tick_size),
      '--size',
      '1',
      '--json',
      ...creds,
    ]);
    const order = JSON.parse(ok(placed)) as {
      id: string;
      status: string;
      exchange: string;
      idempotency_key: string;
    };
    assert.equal(order.exchange, 'kalshi');
    assert.ok(order.idempotency_key);
    // The same command with the printed key is the same order, not a second one.
    const again = await cli([
      'order',
      'place',
      m.svc_id,
      '--side',
      'buy',
      '--price',
      String(book.tick_size),
      '--size',
      '1',
      '--json',
      '--idempotency-key',
      order.idempotency_key,
      ...creds,
    ]);
    assert.equal((JSON.parse(ok(again)) as { id: string }).id, order.id);
    const [got, list, fills, positions, balance] = await Promise.all([
      cli(['order', 'get', order.id, '--exchange', 'kalshi', ...creds]),
      cli(['order', 'list', '--exchange', 'kalshi', '--json', ...creds]),
      cli(['fills', '--exchange', 'kalshi', ...creds]),
      cli(['positions', '--exchange', 'kalshi', ...creds]),
      cli(['balance', '--exchange', 'kalshi', ...creds]),
    ]);
    assert.match(ok(got), new RegExp(`^${order.id}\\s`, 'm'));
    assert.ok((JSON.parse(ok(list)) as Array<{ id: string }>).some((o) => o.id === order.id));
    assert.match(ok(fills).split('\n')[0] ?? '', /^fill_id\s+order_id/);
    assert.match(ok(positions).split('\n')[0] ?? '', /^market_id\s+outcome\s+size/);
    assert.ok(ok(balance).trim().length > 0);
    const cancelled = await cli(['order', 'cancel', order.id, '--exchange', 'kalshi', '--json', ...creds]);
    assert.equal((JSON.parse(ok(cancelled)) as { status: string }).status, 'cancelled');
  });

  test('refusals exit non-zero with the code: no credentials 1, no key and bad flags 2, no server 3', async () => {
    const [noCreds, noKey, noExchange, noServer] = await Promise.all([
      cli(['balance', '--exchange', 'kalshi']),
      cli(['markets', 'search', 'x'], { OMNIBOOK_API_KEY: '' }),
      cli(['fills']),
      cli(['market', 'kalshi:X', '--url', 'http://127.0.0.1:9']),
    ]);
    assert.equal(noCreds.code, 1);
    assert.match(noCreds.stderr, /credentials_required \(HTTP 403\)/);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /OMNIBOOK_API_KEY/);
    assert.equal(noExchange.code, 2);
    assert.match(noExchange.stderr, /--exchange is required/);
    assert.equal(noServer.code, 3);
    assert.match(noServer.stderr, /network_error/);
  });
});
