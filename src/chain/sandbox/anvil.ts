// Starts a local anvil (Foundry's EVM node) from the `@foundry-rs/anvil` npm package: the platform binary comes
// with the package's optional dependency for this machine, so `npm install` is all it needs (no network later).
// Answers as chain 137, listens on a free loopback port it reports on standard output.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const PLATFORMS = new Map([
  ['linux-x64', 'linux-amd64'],
  ['linux-arm64', 'linux-arm64'],
  ['darwin-x64', 'darwin-amd64'],
  ['darwin-arm64', 'darwin-arm64'],
  ['win32-x64', 'win32-amd64'],
]);

/** Path of the anvil binary npm installed for this platform. */
export function anvilBinary(): string {
  const platform = PLATFORMS.get(`${process.platform}-${process.arch}`);
  if (!platform) throw new Error(`anvil has no npm build for ${process.platform}-${process.arch}`);
  const require = createRequire(import.meta.url);
  const pkg = require.resolve(`@foundry-rs/anvil-${platform}/package.json`);
  return join(dirname(pkg), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

export interface RunningAnvil {
  rpcUrl: string;
  close(): Promise<void>;
}

/**
 * Runs anvil under a shell that holds our end of a pipe on its standard input: when this process ends in any way
 * (SIGKILL included, as in the crash tests) the pipe closes, `cat` returns and anvil is stopped, so no orphaned
 * chain outlives the server that started it.
 */
const TIED_TO_PARENT = '"$0" "$@" <&- & pid=$!; cat >/dev/null; kill $pid 2>/dev/null; wait $pid';

const LISTENING = /Listening on (127\.0\.0\.1:\d+)/;

export async function startAnvil(options: {
  chainId: number;
  startTimeoutMs?: number;
}): Promise<RunningAnvil> {
  // One dev account is enough: the sandbox funds its own keys with anvil_setBalance.
  const args = [
    '--chain-id',
    String(options.chainId),
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--accounts',
    '1',
  ];
  const child =
    process.platform === 'win32'
      ? spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('/bin/sh', ['-c', TIED_TO_PARENT, anvilBinary(), ...args], {
          stdio: ['pipe', 'pipe', 'pipe'],
        });
  const rpcUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => fail(new Error('anvil did not start listening')),
      options.startTimeoutMs ?? 20_000,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code) =>
      fail(new Error(`anvil exited (${code}) before listening: ${seen.slice(-500)}`)),
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = LISTENING.exec(seen);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.removeAllListeners('error');
        resolve(`http://${m[1]}`);
      }
    });
  });
  // Past the banner its output is per-request noise.
  child.stdout?.resume();
  child.stderr?.resume();
  return { rpcUrl, close: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    // Closing standard input is how the shell wrapper is told to stop anvil and wait for it.
    if (child.stdin) child.stdin.end();
    else child.kill('SIGTERM');
  });
}
