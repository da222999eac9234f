// Routed orders across a crash, rounds 11-20 of the 20 SIGKILL trials (1-10: route-crash.test.ts), in a file of their
// own so the runner runs the halves side by side. What a round does and checks: route-crash-rounds.ts.
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
test("a route whose legs' answers are lost to a SIGKILL is completed after restart (rounds 11-15)", async () => {
  await crashRounds(harness, 10, 15);
});

test('the same, rounds 16-20', async () => {
  await crashRounds(harness, 15, 20);
});
