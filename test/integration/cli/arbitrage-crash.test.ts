// Paired executions (POST /arbitrage/execute) across a crash, rounds 1-10 of the 20 SIGKILL trials (11-20:
// arbitrage-crash-2.test.ts); the real `omnibook serve` runs as a child process against the polymarket and kalshi
// simulators in this process (test/support/crash-harness.ts). What a round does and checks: arbitrage-crash-rounds.ts.
import { after, before, test } from 'node:test';
import type { CrashHarness } from '../../support/crash-harness.js';
import { arbitrageCrashHarness, arbitrageCrashRounds } from './arbitrage-crash-rounds.js';

let harness: CrashHarness;
before(async () => {
  harness = await arbitrageCrashHarness();
});
after(async () => {
  await harness?.close();
});

test('a paired execution whose leg answers are lost to a SIGKILL is finished after restart (rounds 1-5)', async () => {
  await arbitrageCrashRounds(harness, 0, 5);
});

test('the same, rounds 6-10', async () => {
  await arbitrageCrashRounds(harness, 5, 10);
});
