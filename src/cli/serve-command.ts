// `omnibook serve` (live venues) and `omnibook sandbox` (simulated venues, paper money): start, print the
// `listening on` line, and shut down cleanly on SIGTERM/SIGINT.
import { mkdirSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createRuntime, type Runtime } from '../main.js';
import { PRIVATE_DIR_MODE } from '../store/private-file.js';
import { ServerLock } from '../store/server-lock.js';
import { parse, SERVER_FLAGS, serverOverrides } from './args.js';
import { liveVenues } from './live-venues.js';
import type { SandboxVenues } from './sandbox-venues.js';

export async function serveCommand(mode: Config['mode'], argv: string[]): Promise<number> {
  const { values } = parse(argv, SERVER_FLAGS);
  if (values.help) {
    process.stdout.write(
      `usage: omnibook ${mode} [--port N] [--host H] [--data-dir DIR] [--config FILE] [--log-level L]${mode === 'sandbox' ? ' [--no-chain]' : ''}\n`,
    );
    return 0;
  }
  const config = loadConfig({
    ...(values.config ? { file: values.config } : {}),
    overrides: { ...serverOverrides(values), mode },
  });
  mkdirSync(config.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // Before the sandbox writes its accounts file into the data directory: a second server there stops here.
  const lock = ServerLock.forStore(config);
  let sandbox: SandboxVenues | null;
  try {
    // The simulators are loaded only for the sandbox: they use development dependencies (the venues' official
    // SDKs, ethers) that a production install (`npm ci --omit=dev`) leaves out.
    sandbox =
      mode === 'sandbox' ? await (await import('./sandbox-venues.js')).startSandboxVenues(config) : null;
  } catch (error) {
    lock?.release();
    throw error;
  }
  let runtime: Runtime;
  try {
    runtime = await createRuntime(config, {
      lock,
      venues: sandbox ? sandbox.venues : liveVenues(config),
      ...(sandbox
        ? { onStop: () => sandbox.close(), chain: sandbox.chain, feeEscrow: sandbox.feeEscrow }
        : {}),
    });
  } catch (error) {
    await sandbox?.close();
    throw error;
  }
  let url: string;
  try {
    url = await runtime.listen();
  } catch (error) {
    // Close the database and Redis, or their handles would keep the process alive after a failed start.
    await runtime.stop();
    throw error;
  }
  installShutdown(runtime);
  if (sandbox) await printSandboxBanner(runtime, url, sandbox.accountsFile);
  process.stdout.write(`listening on ${url}\n`);
  return new Promise<number>(() => undefined);
}

async function printSandboxBanner(runtime: Runtime, url: string, accountsFile: string): Promise<void> {
  const lines = ['Omnibook sandbox: simulated exchanges and paper money, nothing leaves this machine.'];
  if (runtime.config.adminKey) {
    lines.push('API key: the value of OMNIBOOK_ADMIN_KEY (admin tier)');
  } else {
    const { key } = await runtime.keys.create({ name: `sandbox ${new Date().toISOString()}`, tier: 'admin' });
    lines.push(`API key (admin tier, shown once; set OMNIBOOK_ADMIN_KEY to choose your own): ${key}`);
    lines.push(`try:  curl -H 'X-API-Key: ${key}' ${url}/api/v1/exchanges`);
  }
  lines.push(`paper accounts (X-Exchange-Credentials per exchange): ${accountsFile}`);
  lines.push(`docs: ${url}/docs`);
  lines.push(`console: ${url}/console (sign in with the API key)`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function installShutdown(runtime: Runtime): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = true;
    runtime.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      runtime.logger.error({ graceMs: runtime.config.shutdownGraceMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, runtime.config.shutdownGraceMs);
    force.unref();
    runtime
      .stop()
      .then(() => process.exit(0))
      .catch((err) => {
        runtime.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
