// Compiles the sandbox chain's own contracts (src/chain/sandbox/*.sol) with the `solc` npm package and prints the
// JSON checked in as src/chain/sandbox/sandbox-contracts.json: `node scripts/compile-sandbox-contracts.mjs --write`
// rewrites it. test/unit/chain/sandbox-contracts.test.ts recompiles and compares, so the bytecode the sandbox
// deploys is always the output of the sources beside it.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const DIR = join(import.meta.dirname, '..', 'src', 'chain', 'sandbox');
const SOURCES = ['Collateral.sol', 'CollateralAdapter.sol'];
export const OUTPUT = join(DIR, 'sandbox-contracts.json');

export function compileSandboxContracts() {
  const solc = require('solc');
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(SOURCES.map((f) => [f, { content: readFileSync(join(DIR, f), 'utf8') }])),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contracts = {};
  for (const file of SOURCES) {
    for (const [name, c] of Object.entries(out.contracts[file])) {
      // Interfaces compile to nothing; only deployable contracts are kept.
      if (c.evm.bytecode.object.length > 0)
        contracts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  return { compiler: solc.version(), contracts };
}

if (process.argv[1] === import.meta.filename) {
  const text = `${JSON.stringify(compileSandboxContracts(), null, 1)}\n`;
  if (process.argv.includes('--write')) writeFileSync(OUTPUT, text);
  else process.stdout.write(text);
}
