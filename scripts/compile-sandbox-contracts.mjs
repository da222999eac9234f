// Compiles our own contracts with the `solc` npm package and prints the JSON checked in beside their sources: the
// sandbox chain's (src/chain/sandbox/*.sol → sandbox-contracts.json) and the FeeEscrow (src/chain/fee-escrow/
// FeeEscrow.sol → fee-escrow-contract.json). `node scripts/compile-sandbox-contracts.mjs --write` rewrites both.
// test/unit/chain/sandbox-contracts.test.ts and fee-escrow-contract.test.ts recompile and compare, so the bytecode
// deployed is always the output of the sources beside it.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const DIR = join(import.meta.dirname, '..', 'src', 'chain', 'sandbox');
const SOURCES = [
  'Collateral.sol',
  'CollateralAdapter.sol',
  'WrappedCollateral.sol',
  'NegRiskAdapter.sol',
  'NegRiskCollateralAdapter.sol',
];
export const OUTPUT = join(DIR, 'sandbox-contracts.json');

export function compileSandboxContracts() {
  return compileDir(DIR, SOURCES);
}

const FEE_ESCROW_DIR = join(import.meta.dirname, '..', 'src', 'chain', 'fee-escrow');
export const FEE_ESCROW_OUTPUT = join(FEE_ESCROW_DIR, 'fee-escrow-contract.json');

export function compileFeeEscrow() {
  return compileDir(FEE_ESCROW_DIR, ['FeeEscrow.sol']);
}

/** Compiles `sources` in `dir` with our one set of compiler settings (the deposit wallet script uses it too). */
export function compileDir(dir, sources) {
  const solc = require('solc');
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(sources.map((f) => [f, { content: readFileSync(join(dir, f), 'utf8') }])),
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
  for (const file of sources) {
    for (const [name, c] of Object.entries(out.contracts[file])) {
      // Interfaces compile to nothing; only deployable contracts are kept.
      if (c.evm.bytecode.object.length > 0)
        contracts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  return { compiler: solc.version(), contracts };
}

if (process.argv[1] === import.meta.filename) {
  for (const [output, compiled] of [
    [OUTPUT, compileSandboxContracts()],
    [FEE_ESCROW_OUTPUT, compileFeeEscrow()],
  ]) {
    const text = `${JSON.stringify(compiled, null, 1)}\n`;
    if (process.argv.includes('--write')) writeFileSync(output, text);
    else process.stdout.write(text);
  }
}
