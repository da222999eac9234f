// `omnibook record`, run as a user runs it, against the sandbox: one fixture per read call and stream frame kind
// under DIR/<exchange>/, each 0600, a README naming every file with its endpoint, and the paper account's key never
// written anywhere (its credentials are given with --credentials, as a user with a live account would).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import { runCli } from '../../support/cli.js';

let sim: KalshiSim;
let dir: string;
let account: Record<string, string>;

before(async () => {
  sim = await startKalshiSim({ size: 10 });
  dir = mkdtempSync(join(tmpdir(), 'omnibook-record-'));
  const stream = (await sim.createAccount()).credentials;
  account = (await sim.createAccount()).credentials;
  const venue = {
    restUrl: sim.url,
    wsUrl: sim.wsUrl,
    streamApiKeyId: stream.api_key_id,
    streamPrivateKey: stream.private_key,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ venues: { kalshi: venue } }), { mode: 0o600 });
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ kalshi: account }), { mode: 0o600 });
});
after(async () => {
  await sim?.close();
});

test('records each read call and stream frame kind as a fixture with its provenance, no secret written', async () => {
  const out = join(dir, 'out');
  const res = await runCli([
    'record',
    '--exchange',
    'kalshi',
    '--out',
    out,
    '--config',
    join(dir, 'config.json'),
    '--credentials',
    join(dir, 'credentials.json'),
  ]);
  assert.equal(res.code, 0, res.stdout + res.stderr);
  const folder = join(out, 'kalshi');
  const files = readdirSync(folder).sort();
  for (const want of [
    'README.md',
    'http_get_events.json',
    'http_get_market.json',
    'http_get_orderbook.json',
    'http_get_trades.json',
    'http_get_balance.json',
    'ws_orderbook_snapshot.json',
  ]) {
    assert.ok(files.includes(want), `${want} not recorded: ${files.join(', ')}`);
  }
  const readme = readFileSync(join(folder, 'README.md'), 'utf8');
  const secretLine = (account.private_key ?? '').split('\n')[1] ?? 'unset';
  for (const file of files) {
    assert.equal(statSync(join(folder, file)).mode & 0o777, 0o600, `${file} is not 0600`);
    const text = readFileSync(join(folder, file), 'utf8');
    assert.ok(
      !text.includes(secretLine) && !text.includes(account.api_key_id ?? 'unset'),
      `${file} holds a key`,
    );
    if (file === 'README.md') continue;
    JSON.parse(text);
    assert.match(
      readme,
      new RegExp(`\\| \`${file.replace('.', '\\.')}\` \\| `),
      `${file} has no provenance row`,
    );
  }
  assert.match(readme, /\| `http_get_orderbook\.json` \| GET \/trade-api\/v2\/markets\/[^/]+\/orderbook \|/);
  // The recorded book is the venue's own payload, as the contract tests read it.
  const book = JSON.parse(readFileSync(join(folder, 'http_get_orderbook.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  assert.ok('orderbook_fp' in book || 'orderbook' in book, JSON.stringify(book).slice(0, 200));
  assert.match(res.stdout, /^kalshi: \d+ files in /m);
});

test('--exchange and --out are required', async () => {
  const res = await runCli(['record', '--out', join(dir, 'x')]);
  assert.equal(res.code, 2);
  assert.match(res.stderr, /--exchange is required/);
});
