// HAProxy from Debian in front of test servers, run with the very config file docs/operations.md shows
// (deploy/haproxy.cfg; addresses through its environment variables). HAProxy is a system package that
// scripts/ci-system-packages.sh installs for CI: there (CI set) a missing binary fails the test loudly; on a
// developer machine without it the tests that need it skip, saying how to get it.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const HAPROXY_CONFIG = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));

function haproxyVersion(): string | null {
  const probe = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
  return probe.status === 0 ? (probe.stdout.split('\n')[0] ?? 'haproxy') : null;
}

export const HAPROXY_VERSION = haproxyVersion();

/**
 * Why a test that needs HAProxy cannot run here, for `describe(…, { skip })`; false when it can. In CI a missing
 * HAProxy is an error, never a skip.
 */
export function haproxySkipReason(): string | false {
  if (HAPROXY_VERSION) return false;
  const how = 'install it with scripts/ci-system-packages.sh (apt-get install haproxy)';
  if (process.env.CI && process.env.CI !== 'false')
    throw new Error(`HAProxy is required by the cluster test in CI and is missing: ${how}`);
  return `HAProxy is not installed: ${how} to run this test`;
}

/** A free loopback port (the balancer binds it; the moment between closing and binding is the only race). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface Balancer {
  url: string;
  child: ChildProcess;
  /** HAProxy's own log (server UP/DOWN transitions, errors). */
  log(): string;
  /** Resolves once the log has a line matching `pattern` at or after character `from`. */
  logLine(pattern: RegExp, from: number, timeoutMs: number): Promise<string>;
  close(): Promise<void>;
}

/** Starts HAProxy on deploy/haproxy.cfg with three nodes (host:port) behind it, as node1, node2, node3. */
export async function startBalancer(nodes: [string, string, string]): Promise<Balancer> {
  const port = await freePort();
  const env = {
    OMNIBOOK_LB_BIND: `127.0.0.1:${port}`,
    OMNIBOOK_NODE1: nodes[0],
    OMNIBOOK_NODE2: nodes[1],
    OMNIBOOK_NODE3: nodes[2],
  };
  const child = spawn('haproxy', ['-db', '-f', HAPROXY_CONFIG], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const wakers = new Set<() => void>();
  const append = (d: Buffer) => {
    log += d.toString();
    for (const wake of wakers) wake();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const balancer: Balancer = {
    url,
    child,
    log: () => log,
    logLine(pattern, from, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = log
            .slice(from)
            .split('\n')
            .find((l) => pattern.test(l));
          if (line !== undefined) {
            done();
            resolve(line);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`HAProxy logged nothing matching ${pattern} within ${timeoutMs} ms:\n${log}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          wakers.delete(check);
        };
        wakers.add(check);
        check();
      });
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  // Ready once it answers through to a node (its health checks need `rise` passes before a node takes traffic).
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${log}`);
    const status = await fetch(`${url}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return balancer;
    if (Date.now() > deadline) {
      await balancer.close();
      throw new Error(`HAProxy at ${url} did not reach a node within 60 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
