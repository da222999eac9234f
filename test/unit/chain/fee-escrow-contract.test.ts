// The FeeEscrow bytecode the sandbox deploys (src/chain/fee-escrow/fee-escrow-contract.json) is the `solc` npm
// package's output for FeeEscrow.sol beside it, recompiled here and compared; and the ABI the API calls it through
// (feeEscrowAbi, written by hand for viem's types) is the compiled one, function by function.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { type Abi, type AbiFunction, toFunctionSignature } from 'viem';
// @ts-expect-error a plain .mjs script without types
import { compileFeeEscrow, FEE_ESCROW_OUTPUT } from '../../../scripts/compile-sandbox-contracts.mjs';
import { feeEscrowAbi } from '../../../src/chain/fee-escrow/fee-escrow-contract.js';

const stored = JSON.parse(readFileSync(FEE_ESCROW_OUTPUT, 'utf8')) as {
  compiler: string;
  contracts: { FeeEscrow: { abi: Abi; bytecode: string } };
};

test('checked-in FeeEscrow bytecode equals a fresh solc compile of FeeEscrow.sol', () => {
  const fresh = compileFeeEscrow();
  assert.equal(stored.compiler, fresh.compiler);
  assert.deepEqual(Object.keys(stored.contracts), ['FeeEscrow']);
  assert.deepEqual(stored, fresh, 'run node scripts/compile-sandbox-contracts.mjs --write');
});

test("the API's FeeEscrow ABI is the compiled contract's, with the same outputs", () => {
  const compiled = new Map(
    stored.contracts.FeeEscrow.abi
      .filter((item): item is AbiFunction => item.type === 'function')
      .map((f) => [toFunctionSignature(f), f]),
  );
  for (const fn of feeEscrowAbi) {
    const signature = toFunctionSignature(fn);
    const twin = compiled.get(signature);
    assert.ok(twin, `FeeEscrow.sol has no ${signature}`);
    assert.deepEqual(
      fn.outputs.map((o) => o.type),
      twin.outputs.map((o) => (o.type.startsWith('contract ') ? 'address' : o.type)),
      signature,
    );
    assert.equal(fn.stateMutability, twin.stateMutability, signature);
  }
});
