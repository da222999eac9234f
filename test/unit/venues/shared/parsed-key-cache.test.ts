// The parsed-key cache: a stored, managed or builder session's key is parsed once and reused, found by a digest of
// its text; a per-request session (or one of unknown source) is parsed on every call and nothing of it is kept; a
// failed parse keeps nothing; the least recently used key goes first past the bound; neither JSON nor inspection
// shows a key. The Kalshi and Polymarket adapters' own use is checked with real keys.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { generatePrivateKey } from 'viem/accounts';
import { kalshiKey } from '../../../../src/venues/kalshi/auth.js';
import { signerFromSession } from '../../../../src/venues/polymarket/auth.js';
import type { VenueSession } from '../../../../src/venues/port.js';
import { ParsedKeyCache } from '../../../../src/venues/shared/parsed-key-cache.js';

function counting(maxEntries = 10) {
  const cache = new ParsedKeyCache<{ text: string }>(maxEntries);
  let parses = 0;
  const get = (source: VenueSession['source'] | undefined, text: string) =>
    cache.parsed({ source }, text, () => {
      parses += 1;
      return { text };
    });
  return { cache, get, parses: () => parses };
}

test('a stored, managed or builder key is parsed once; a per-request one on every call and never kept', () => {
  const { cache, get, parses } = counting();
  for (const source of ['stored', 'managed', 'builder'] as const) {
    const first = get(source, `key-${source}`);
    assert.equal(get(source, `key-${source}`), first);
  }
  assert.equal(parses(), 3);
  assert.notEqual(get('per_request', 'key-p'), get('per_request', 'key-p'));
  assert.notEqual(get(undefined, 'key-u'), get(undefined, 'key-u'));
  assert.equal(parses(), 7);
  assert.equal(cache.size, 3);
  // A per-request call with a key already kept for a stored session does not read the kept one either.
  assert.notEqual(get('per_request', 'key-stored'), get('stored', 'key-stored'));
});

test('a failed parse keeps nothing, and the next call parses again', () => {
  const cache = new ParsedKeyCache<string>(10);
  let calls = 0;
  const parse = () => {
    calls += 1;
    if (calls === 1) throw new Error('bad key');
    return 'parsed';
  };
  assert.throws(() => cache.parsed({ source: 'stored' }, 'k', parse), /bad key/);
  assert.equal(cache.size, 0);
  assert.equal(cache.parsed({ source: 'stored' }, 'k', parse), 'parsed');
  assert.equal(calls, 2);
});

test('past the bound the least recently used key goes first', () => {
  const { cache, get, parses } = counting(2);
  get('stored', 'a');
  get('stored', 'b');
  get('stored', 'a'); // a is now the most recently used
  get('stored', 'c'); // b goes
  assert.equal(cache.size, 2);
  assert.equal(parses(), 3);
  get('stored', 'a');
  get('stored', 'c');
  assert.equal(parses(), 3);
  get('stored', 'b');
  assert.equal(parses(), 4);
});

test('neither JSON nor inspection shows a kept key or its text', () => {
  const { cache, get } = counting();
  get('stored', 'secret-key-text');
  assert.deepEqual(JSON.parse(JSON.stringify({ cache })), { cache: { size: 1 } });
  assert.equal(inspect(cache, { depth: 5, showHidden: true }).includes('secret'), false);
});

test('Kalshi: a stored session reuses its parsed RSA key; a per-request one gets its own each call', () => {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const credentials = { api_key_id: 'kid', private_key: privateKey };
  const stored = { credentials, source: 'stored' as const };
  assert.equal(kalshiKey(stored).privateKey, kalshiKey(stored).privateKey);
  const perRequest = { credentials, source: 'per_request' as const };
  assert.notEqual(kalshiKey(perRequest).privateKey, kalshiKey(perRequest).privateKey);
  // The key id is read from each session, not from what was kept: one PEM under two key ids stays two keys.
  assert.equal(
    kalshiKey({ credentials: { ...credentials, api_key_id: 'other' }, source: 'stored' }).keyId,
    'other',
  );
});

test('Polymarket: a managed session reuses its signer, found alike with or without 0x; per-request does not', () => {
  const key = generatePrivateKey();
  const managed = (k: string): VenueSession => ({
    exchange: 'polymarket',
    credentials: { private_key: k },
    source: 'managed',
  });
  const signer = signerFromSession(managed(key));
  assert.equal(signerFromSession(managed(key.slice(2))), signer);
  assert.equal(signerFromSession(managed(key.toUpperCase().replace('0X', '0x'))), signer);
  assert.ok(Object.isFrozen(signer));
  const perRequest: VenueSession = { ...managed(key), source: 'per_request' };
  assert.notEqual(signerFromSession(perRequest), signerFromSession(perRequest));
  assert.equal(signerFromSession(perRequest).address, signer.address);
});
