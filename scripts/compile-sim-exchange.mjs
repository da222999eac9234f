// Compiles the Polymarket simulator's settlement exchange (sim/polymarket/contracts/SettlementExchange.sol) with the
// `solc` npm package and prints the JSON checked in beside it as settlement-exchange.json:
// `node scripts/compile-sim-exchange.mjs --write` rewrites it. test/unit/chain/settlement-exchange-contract.test.ts
// recompiles and compares, so the bytecode the simulator deploys is always the output of the source beside it.
// Compiled by compileDir of scripts/compile-sandbox-contracts.mjs, with the same settings as our other contracts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileDir } from './compile-sandbox-contracts.mjs';

const DIR = join(import.meta.dirname, '..', 'sim', 'polymarket', 'contracts');
export const OUTPUT = join(DIR, 'settlement-exchange.json');

export function compileSettlementExchange() {
  return compileDir(DIR, ['SettlementExchange.sol']);
}

if (process.argv[1] === import.meta.filename) {
  const text = `${JSON.stringify(compileSettlementExchange(), null, 1)}\n`;
  if (process.argv.includes('--write')) writeFileSync(OUTPUT, text);
  else process.stdout.write(text);
}
