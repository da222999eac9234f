// The five exchange simulators in a process of their own, so a benchmark of `omnibook serve` measures our server
// and not the simulators sharing its event loop. Writes the omnibook config that points every venue at them (and
// the operator keys they expect) to BENCH_SIM_CONFIG_FILE, then prints `listening on …` and runs until SIGTERM.
import { writeFileSync } from 'node:fs';
import { startSimSet } from '../test/support/sim-set.js';

export type { SimHostConfig } from '../test/support/sim-set.js';

async function main(): Promise<void> {
  const file = process.env.BENCH_SIM_CONFIG_FILE;
  if (!file) throw new Error('BENCH_SIM_CONFIG_FILE is not set');
  const world = {
    seed: 7,
    ...(process.env.BENCH_SIM_SIZE ? { size: Number(process.env.BENCH_SIM_SIZE) } : {}),
  };
  const sims = await startSimSet(world);
  writeFileSync(file, JSON.stringify(sims.host), { mode: 0o600 });
  const stop = () => {
    sims.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`listening on ${sims.host.controls.polymarket}\n`);
}

main().catch((error) => {
  process.stderr.write(`sim-host: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
