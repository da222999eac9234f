// `omnibook doctor`, run as a user runs it: against the sandbox (every check of every exchange passes, credentials
// included), and as `omnibook doctor` on a live configuration pointed at a Kalshi simulator — passing while the
// simulator behaves, then failing with exit 1 and the JSON paths that no longer decode once its market listing
// changes shape. The values the simulator corrupted, and the credentials, never appear in the output.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type KalshiSim, startKalshiSim } from '../../../sim/kalshi/index.js';
import type { ExchangeReport } from '../../../src/cli/doctor/doctor.js';
import { runCli } from '../../support/cli.js';

let sim: KalshiSim;
let dir: string;
let account: Record<string, string>;

before(async () => {
  sim = await startKalshiSim({ size: 10 });
  dir = mkdtempSync(join(tmpdir(), 'omnibook-doctor-'));
  const stream = (await sim.createAccount()).credentials;
  account = (await sim.createAccount()).credentials;
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      venues: {
        kalshi: {
          restUrl: sim.url,
          wsUrl: sim.wsUrl,
          streamApiKeyId: stream.api_key_id,
          streamPrivateKey: stream.private_key,
        },
      },
    }),
    { mode: 0o600 },
  );
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ kalshi: account }), { mode: 0o600 });
});
after(async () => {
  await sim?.close();
});

const faults = (body: unknown) =>
  fetch(`${sim.control}/__sim/faults`, {
    method: body === null ? 'DELETE' : 'POST',
    ...(body === null ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });

const doctor = (...extra: string[]) =>
  runCli([
    'doctor',
    '--exchange',
    'kalshi',
    '--config',
    join(dir, 'config.json'),
    '--credentials',
    join(dir, 'credentials.json'),
    ...extra,
  ]);

test('the sandbox: every check of every exchange passes, the table ends with the verdict', async () => {
  const res = await runCli(['doctor', '--sandbox']);
  assert.equal(res.code, 0, res.stdout + res.stderr);
  const lines = res.stdout.trim().split('\n');
  assert.match(lines[0] ?? '', /^exchange\s+check\s+result\s+time\s+detail$/);
  for (const exchange of ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun']) {
    for (const check of ['dns', 'connect', 'clock', 'catalogue', 'book', 'stream', 'auth']) {
      assert.ok(
        lines.some((l) => new RegExp(`^${exchange}\\s+${check}\\s+ok\\s`).test(l)),
        `${exchange} ${check} did not pass:\n${res.stdout}`,
      );
    }
  }
  assert.equal(lines.at(-1), 'all checks passed');
});

test('a live configuration on a healthy venue passes; the credentials are read, used and never printed', async () => {
  const res = await doctor('--json');
  assert.equal(res.code, 0, res.stdout + res.stderr);
  const [report] = JSON.parse(res.stdout) as ExchangeReport[];
  assert.equal(report?.exchange, 'kalshi');
  assert.deepEqual(
    report?.checks.map((c) => [c.check, c.result]),
    [
      ['dns', 'ok'],
      ['connect', 'ok'],
      ['clock', 'ok'],
      ['catalogue', 'ok'],
      ['book', 'ok'],
      ['stream', 'ok'],
      ['auth', 'ok'],
    ],
  );
  const secret = (account.private_key ?? '').split('\n')[1] ?? 'unset';
  assert.ok(secret.length > 20);
  assert.ok(!res.stdout.includes(secret) && !res.stderr.includes(secret), 'a credential was printed');
});

test('a venue whose listing changed shape: exit 1, the failing paths named, no value shown', async () => {
  await faults({ malformed: 'wrong_types', only: ['GET /trade-api/v2/events'] });
  try {
    const res = await doctor();
    assert.equal(res.code, 1, res.stdout + res.stderr);
    const catalogue = res.stdout.split('\n').find((l) => /^kalshi\s+catalogue\s/.test(l));
    assert.match(
      catalogue ?? '',
      /failed.*exchange_format_changed: kalshi answered \w+ in a format .*\(at \//,
    );
    // Nothing to read a book or a stream of: skipped, not failed twice over.
    assert.match(res.stdout, /^kalshi\s+book\s+skipped/m);
    assert.match(res.stdout.trim().split('\n').at(-1) ?? '', /^failed: kalshi$/);
    assert.doesNotMatch(res.stdout, /"\?"/);
  } finally {
    await faults(null);
  }
});

test('usage errors exit 2 and say why', async () => {
  const res = await runCli(['doctor', '--exchange', 'nasdaq']);
  assert.equal(res.code, 2);
  assert.match(res.stderr, /unknown exchange 'nasdaq'/);
});
