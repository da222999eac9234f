// Runs a server as a child process, waits for its `listening on http://HOST:PORT` line on stdout, keeps the
// tail of its stderr for diagnostics, and stops it with SIGTERM (SIGKILL after a grace period).
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface SpawnServerOptions {
  name: string;
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  startTimeoutMs: number;
}

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  /** Base URL from the `listening on` line, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  /** The last few KiB the child wrote to stderr. */
  stderrTail(): string;
  /** False once the child has exited. */
  alive(): boolean;
  /** SIGTERM, wait up to graceMs, then SIGKILL; resolves once the child has exited. Idempotent. */
  stop(graceMs?: number): Promise<ExitInfo>;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the child ignored SIGTERM for the whole grace period. */
  killed: boolean;
}

const LISTENING = /^listening on (http:\/\/([^\s/]+):(\d+))\s*$/;
const STDERR_TAIL_BYTES = 8 * 1024;

export async function spawnServer(options: SpawnServerOptions): Promise<ServerProcess> {
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, killed: false }));
    // A child that cannot be spawned at all emits only 'error'.
    child.once('error', (error) => {
      tail += `\n${options.name}: ${error.message}`;
      if (child.pid === undefined) resolve({ code: null, signal: null, killed: false });
    });
  });

  let url: string;
  try {
    url = await waitForListening(child, exited, options);
  } catch (error) {
    await terminate(child, exited, 2_000);
    throw error;
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: child has no pid`);

  let stopping: Promise<ExitInfo> | null = null;
  return {
    name: options.name,
    pid,
    url,
    stderrTail: () => tail,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop(graceMs = 15_000) {
      stopping ??= terminate(child, exited, graceMs);
      return stopping;
    },
  };

  function waitForListening(
    proc: ChildProcess,
    exit: Promise<ExitInfo>,
    opts: SpawnServerOptions,
  ): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const stdout = proc.stdout;
      if (!stdout) return reject(new Error(`${opts.name}: no stdout pipe`));
      const lines = createInterface({ input: stdout });
      const seen: string[] = [];
      const timer = setTimeout(() => {
        finish(
          new Error(`${opts.name}: no 'listening on' line within ${opts.startTimeoutMs} ms${describe(seen)}`),
        );
      }, opts.startTimeoutMs);
      const finish = (result: string | Error) => {
        clearTimeout(timer);
        lines.off('line', onLine);
        if (typeof result === 'string') resolve(result);
        else reject(result);
      };
      const onLine = (line: string) => {
        const match = LISTENING.exec(line);
        if (!match) {
          seen.push(line);
          return;
        }
        const host = match[2];
        if (host !== '127.0.0.1') {
          finish(new Error(`${opts.name}: listening on ${host}, but the benchmark must stay on 127.0.0.1`));
          return;
        }
        finish(match[1] ?? '');
      };
      // Once the line is found only this listener goes: readline keeps consuming stdout, so a chatty child
      // never blocks on a full pipe.
      lines.on('line', onLine);
      exit.then((info) => {
        finish(
          new Error(
            `${opts.name}: exited (code ${info.code}, signal ${info.signal}) before listening${describe(seen)}`,
          ),
        );
      });
    });
  }

  function describe(stdoutLines: string[]): string {
    const out = stdoutLines.length > 0 ? `\n--- stdout ---\n${stdoutLines.join('\n')}` : '';
    const err = tail.trim().length > 0 ? `\n--- stderr (tail) ---\n${tail.trimEnd()}` : '';
    return out + err;
  }
}

async function terminate(child: ChildProcess, exited: Promise<ExitInfo>, graceMs: number): Promise<ExitInfo> {
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), graceMs);
  });
  const first = await Promise.race([exited, timedOut]);
  clearTimeout(timer);
  if (first !== 'timeout') return first;
  child.kill('SIGKILL');
  return { ...(await exited), killed: true };
}
