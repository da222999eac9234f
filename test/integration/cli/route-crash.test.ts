// Routed orders across a crash, rounds 1-10 of the 20 SIGKILL trials (11-20: route-crash-2.test.ts); the real
// `omnibook serve` runs as a child process against the polymarket and kalshi simulators in this process
// (test/support/crash-harness.ts). What a round does and checks: route-crash-rounds.ts.
import { after, before, test } from 'node:test';
import type { CrashHarness } from '../../support/crash-harness.js';
import { crashRounds, routeCrashHarness } from './route-crash-rounds.js';

let harness: CrashHarness;
before(async () => {
  harness = await routeCrashHarness();
});
after(async () => {
  await harness?.close();
});

// Two halves: the first server syncs the catalogue; the second half starts from its data directory after a clean stop.
test("a route whose legs' answers are lost to a SIGKILL is completed after restart (rounds 1-5)", async () => {
  await crashRounds(harness, 0, 5);
});

test('the same, rounds 6-10', async () => {
  await crashRounds(harness, 5, 10);
});
