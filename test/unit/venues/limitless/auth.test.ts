// Limitless request signing against the official SDK (@limitless-exchange/sdk computeHMACSignature /
// buildHMACMessage) on fixed and random inputs, the documented canonical message, and credential resolution.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildHMACMessage, computeHMACSignature } from '@limitless-exchange/sdk';
import fc from 'fast-check';
import { AppError } from '../../../../src/errors/app-error.js';
import {
  authHeaders,
  credentialsOf,
  limitlessMessage,
  limitlessSignature,
} from '../../../../src/venues/limitless/auth.js';
import type { VenueSession } from '../../../../src/venues/port.js';
import { assertProperty } from '../../../support/property.js';

const session = (credentials: Record<string, string>): VenueSession => ({
  exchange: 'limitless',
  credentials,
  source: 'per_request',
});

test('the canonical message is timestamp, METHOD, path with query and body joined by newlines (docs, SDK)', () => {
  const ts = '2026-11-23T10:00:00.000Z';
  assert.equal(limitlessMessage(ts, 'get', '/portfolio/positions', ''), `${ts}\nGET\n/portfolio/positions\n`);
  assert.equal(
    limitlessMessage(ts, 'DELETE', '/orders/all/btc-100k?onBehalfOf=42', ''),
    buildHMACMessage(ts, 'DELETE', '/orders/all/btc-100k?onBehalfOf=42', ''),
  );
});

test('a fixed vector: our signature equals the official SDK one', () => {
  const secret = Buffer.from('limitless-test-secret-32-bytes!!').toString('base64');
  const ts = '2026-11-23T10:00:00.000Z';
  const path = '/markets/active?page=2&limit=25';
  const ours = limitlessSignature(secret, ts, 'GET', path, '');
  assert.equal(ours, computeHMACSignature(secret, ts, 'GET', path, ''));
  assert.match(ours, /^[A-Za-z0-9+/]{43}=$/, 'base64 of a 32-byte HMAC-SHA256');
});

test('random inputs: our signature equals the official SDK one', () => {
  assertProperty(
    fc.property(
      fc.uint8Array({ minLength: 16, maxLength: 64 }),
      fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }),
      fc.constantFrom('GET', 'POST', 'DELETE', 'patch'),
      fc.webPath(),
      fc.string(),
      (key, date, method, path, body) => {
        const secret = Buffer.from(key).toString('base64');
        const ts = date.toISOString();
        assert.equal(
          limitlessSignature(secret, ts, method, path, body),
          computeHMACSignature(secret, ts, method, path, body),
        );
      },
    ),
    { examples: [] },
  );
});

test('HMAC headers carry the token id, an ISO timestamp and the signature; the API key goes in X-API-Key', () => {
  const secret = Buffer.from('x'.repeat(32)).toString('base64');
  const now = new Date('2026-11-23T10:00:00.000Z');
  const headers = authHeaders(
    { kind: 'hmac', tokenId: 'tok-1', secret },
    'GET',
    '/portfolio/pnl-chart',
    '',
    now,
  );
  assert.deepEqual(headers, {
    'lmts-api-key': 'tok-1',
    'lmts-timestamp': '2026-11-23T10:00:00.000Z',
    'lmts-signature': computeHMACSignature(
      secret,
      '2026-11-23T10:00:00.000Z',
      'GET',
      '/portfolio/pnl-chart',
      '',
    ),
  });
  assert.ok(!JSON.stringify(headers).includes(secret), 'the secret itself is never sent');
  assert.deepEqual(authHeaders({ kind: 'api_key', apiKey: 'lmts_abc' }, 'GET', '/x', ''), {
    'x-api-key': 'lmts_abc',
  });
});

test('credentials: a token wins over a legacy key; half a token is 400; nothing is 403', () => {
  assert.deepEqual(credentialsOf(session({ token_id: 't', secret: 's', api_key: 'k' })), {
    kind: 'hmac',
    tokenId: 't',
    secret: 's',
  });
  assert.deepEqual(credentialsOf(session({ api_key: 'k' })), { kind: 'api_key', apiKey: 'k' });
  assert.throws(
    () => credentialsOf(session({ token_id: 't' })),
    (e: unknown) => e instanceof AppError && e.status === 400 && !e.message.includes('"t"'),
  );
  assert.throws(
    () => credentialsOf(session({ secret: 'very-secret' })),
    (e: unknown) => e instanceof AppError && e.status === 400 && !e.message.includes('very-secret'),
  );
  assert.throws(
    () => credentialsOf(session({})),
    (e: unknown) => e instanceof AppError && e.code === 'credentials_required',
  );
});
