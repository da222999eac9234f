import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { EXCHANGE_IDS } from '../../../src/domain/exchanges.js';
import { encodeSvcId, parseSvcId } from '../../../src/domain/svc-id.js';
import { assertProperty } from '../../support/property.js';

test('parses exchange and native id, splitting on the first colon only', () => {
  assert.deepEqual(parseSvcId('kalshi:KXBTC-25DEC31-T100000'), {
    ok: true,
    value: { exchange: 'kalshi', nativeId: 'KXBTC-25DEC31-T100000' },
  });
  assert.deepEqual(parseSvcId('polymarket:0xabc:yes'), {
    ok: true,
    value: { exchange: 'polymarket', nativeId: '0xabc:yes' },
  });
});

test('rejects unknown exchanges, empty parts and missing separators', () => {
  for (const bad of ['', 'kalshi', 'kalshi:', ':abc', 'binance:BTC', 'Kalshi:abc', 'exchange_a:1']) {
    assert.equal(parseSvcId(bad).ok, false, bad);
  }
  assert.throws(() => encodeSvcId('kalshi', ''));
});

test('encode then parse is the identity for every exchange and any native id', () => {
  assertProperty(
    fc.property(fc.constantFrom(...EXCHANGE_IDS), fc.string({ minLength: 1 }), (exchange, nativeId) => {
      const parsed = parseSvcId(encodeSvcId(exchange, nativeId));
      assert.deepEqual(parsed, { ok: true, value: { exchange, nativeId } });
    }),
    { examples: [] },
  );
});
