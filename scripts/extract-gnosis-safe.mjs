// Extracts the Gnosis Safe v1.3.0 bytecode the Polymarket simulator places on the sandbox chain from the published
// npm package `@gnosis.pm/safe-contracts@1.3.0` (its `build/artifacts`, the Safe team's own compile) and prints the
// JSON checked in as sim/polymarket/contracts/gnosis-safe-1.3.0.json; `--write` rewrites it. The package is not a
// dependency: its peer dependency on ethers 5 conflicts with our ethers 6, and the simulator needs four bytecodes,
// not the package. The tarball is fetched with `npm pack` and checked against the registry's sha512 integrity below
// before anything is read from it, so the checked-in bytes are the published ones.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PACKAGE = '@gnosis.pm/safe-contracts@1.3.0';
/** `npm view @gnosis.pm/safe-contracts@1.3.0 dist.integrity`. */
const INTEGRITY =
  'sha512-1p+1HwGvxGUVzVkFjNzglwHrLNA67U/axP0Ct85FzzH8yhGJb4t9jDjPYocVMzLorDoWAfKicGy1akPY9jXRVw==';
export const OUTPUT = join(
  import.meta.dirname,
  '..',
  'sim',
  'polymarket',
  'contracts',
  'gnosis-safe-1.3.0.json',
);

const ARTIFACTS = {
  GnosisSafe: 'contracts/GnosisSafe.sol/GnosisSafe.json',
  GnosisSafeProxy: 'contracts/proxies/GnosisSafeProxy.sol/GnosisSafeProxy.json',
  CompatibilityFallbackHandler:
    'contracts/handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json',
  MultiSend: 'contracts/libraries/MultiSend.sol/MultiSend.json',
};

export function extractGnosisSafe() {
  const dir = mkdtempSync(join(tmpdir(), 'gnosis-safe-'));
  try {
    const name = execFileSync('npm', ['pack', PACKAGE, '--silent', '--pack-destination', dir], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop();
    const tarball = join(dir, name);
    const digest = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (digest !== INTEGRITY) throw new Error(`${PACKAGE}: tarball integrity ${digest} is not ${INTEGRITY}`);
    execFileSync('tar', ['xzf', tarball, '-C', dir]);
    const contracts = {};
    for (const [contract, path] of Object.entries(ARTIFACTS)) {
      const artifact = JSON.parse(readFileSync(join(dir, 'package', 'build', 'artifacts', path), 'utf8'));
      contracts[contract] = { bytecode: artifact.bytecode, deployedBytecode: artifact.deployedBytecode };
    }
    return { package: PACKAGE, integrity: INTEGRITY, contracts };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const text = `${JSON.stringify(extractGnosisSafe(), null, 1)}\n`;
  if (process.argv.includes('--write')) writeFileSync(OUTPUT, text);
  else process.stdout.write(text);
}
