// Which exchange an outcome id trades on, told from the id alone: Protocol-V2 position ids keep bits 40..103 clear
// (clob-client-v2 src/protocol.ts isV2PositionId), CTF token ids are keccak hashes and do not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodePacked, keccak256 } from 'viem';
import { isProtocolV2PositionId } from '../../../../src/venues/polymarket/trading.js';

test('CTF token ids (keccak positions) are not Protocol-V2 ids; structured position ids are', () => {
  for (let i = 0; i < 50; i++) {
    const ctf = BigInt(keccak256(encodePacked(['string', 'uint256'], ['collection', BigInt(i)])));
    assert.equal(isProtocolV2PositionId(ctf.toString()), false, ctf.toString());
  }
  // Ids.sol layout: module byte | 128-bit base hash | arity (16) | reserved (64, zero) | chain (16) | index | outcome.
  const base = 0x00112233445566778899aabbccddeeffn;
  const binary = (1n << 248n) | (base << 120n) | (137n << 24n);
  assert.equal(isProtocolV2PositionId(binary.toString()), true);
  assert.equal(isProtocolV2PositionId((binary | 1n).toString()), true);
  const negRisk = (2n << 248n) | (base << 120n) | (4n << 104n) | (3n << 8n);
  assert.equal(isProtocolV2PositionId(negRisk.toString()), true);
  assert.equal(isProtocolV2PositionId((binary | (1n << 40n)).toString()), false, 'a reserved bit set');
  for (const bad of ['', 'abc', '-1', `${(1n << 256n).toString()}`, '0x01']) {
    assert.equal(isProtocolV2PositionId(bad), false, bad);
  }
});
