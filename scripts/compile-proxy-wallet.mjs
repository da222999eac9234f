// Compiles the Polymarket simulator's proxy wallet stand-in (sim/polymarket/contracts/ProxyWallet.sol) with the
// `solc` npm package and prints the JSON checked in beside it as proxy-wallet.json: `node
// scripts/compile-proxy-wallet.mjs --write` rewrites it. test/unit/chain/proxy-wallet-contract.test.ts recompiles and
// compares. Compiled by compileDir of scripts/compile-sandbox-contracts.mjs, with the same settings as our others.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileDir } from './compile-sandbox-contracts.mjs';

const DIR = join(import.meta.dirname, '..', 'sim', 'polymarket', 'contracts');
export const OUTPUT = join(DIR, 'proxy-wallet.json');

export function compileProxyWallet() {
  return compileDir(DIR, ['ProxyWallet.sol']);
}

if (process.argv[1] === import.meta.filename) {
  const text = `${JSON.stringify(compileProxyWallet(), null, 1)}\n`;
  if (process.argv.includes('--write')) writeFileSync(OUTPUT, text);
  else process.stdout.write(text);
}
