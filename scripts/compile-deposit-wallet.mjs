// Compiles the Polymarket simulator's deposit wallet contracts (sim/polymarket/contracts/DepositWallet.sol) with the
// `solc` npm package and prints the JSON checked in beside it as deposit-wallet.json:
// `node scripts/compile-deposit-wallet.mjs --write` rewrites it. test/unit/chain/deposit-wallet-contracts.test.ts
// recompiles and compares, so the bytecode the simulator deploys is always the output of the source beside it.
// Same compiler settings as scripts/compile-sandbox-contracts.mjs.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const DIR = join(import.meta.dirname, '..', 'sim', 'polymarket', 'contracts');
const SOURCES = ['DepositWallet.sol'];
export const OUTPUT = join(DIR, 'deposit-wallet.json');

export function compileDepositWallet() {
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
      if (c.evm.bytecode.object.length > 0)
        contracts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  return { compiler: solc.version(), contracts };
}

if (process.argv[1] === import.meta.filename) {
  const text = `${JSON.stringify(compileDepositWallet(), null, 1)}\n`;
  if (process.argv.includes('--write')) writeFileSync(OUTPUT, text);
  else process.stdout.write(text);
}
