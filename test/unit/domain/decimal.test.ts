// Exact decimals: the values binary floats get wrong come out exact, parsing takes what JSON numbers print, and
// rounding modes round as named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Decimal } from '../../../src/domain/decimal.js';
import { assertProperty } from '../../support/property.js';

const d = Decimal.parse;

test('sums and products floats get wrong are exact', () => {
  assert.equal(0.1 + 0.2, 0.30000000000000004);
  assert.equal(d('0.1').add(d('0.2')).toString(), '0.3');
  assert.equal(d('0.1').add(d('0.2')).add(d('0.7')).toString(), '1');
  assert.equal(1.1 * 3, 3.3000000000000003);
  assert.equal(d('1.1').mul(Decimal.fromInt(3)).toNumber(), 3.3);
  assert.equal(d('0.3').sub(d('0.1')).toString(), '0.2');
});

test('parsing: plain, signed and exponent spellings; JSON numbers through their shortest string', () => {
  assert.equal(Decimal.fromNumber(1e-7).toString(), '0.0000001');
  assert.equal(Decimal.fromNumber(1.5e21).toString(), '1500000000000000000000');
  assert.equal(d('-3.50').toString(), '-3.5');
  assert.equal(d('007.250').places, 2);
  assert.throws(() => d('NaN'));
  assert.throws(() => d('1.2.3'));
  assert.throws(() => Decimal.fromNumber(Number.POSITIVE_INFINITY));
});

test('rounding and division', () => {
  assert.equal(d('0.0175').round(2, 'ceil').toString(), '0.02');
  assert.equal(d('0.015').round(2, 'half_up').toString(), '0.02');
  assert.equal(d('0.0149').round(2, 'half_up').toString(), '0.01');
  assert.equal(d('-0.015').round(2, 'half_up').toString(), '-0.02');
  assert.equal(d('0.019').round(2, 'floor').toString(), '0.01');
  assert.equal(d('1').div(d('3'), 4).toString(), '0.3333');
  assert.equal(d('2').div(d('3'), 4).toString(), '0.6667');
  assert.equal(d('0.5').pow(2).toString(), '0.25');
});

test('a JSON number survives the trip through a decimal (property)', () => {
  assertProperty(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
      assert.equal(Decimal.fromNumber(n).toNumber(), n === 0 ? 0 : n);
    }),
    { examples: [[0.1], [1e-7], [123456.789]] },
  );
});
