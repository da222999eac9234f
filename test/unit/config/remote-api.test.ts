// Where `omnibook mcp` finds its server: --url over OMNIBOOK_URL over the default, the key from OMNIBOOK_API_KEY only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_REMOTE_URL, loadRemoteApi, RemoteApiError } from '../../../src/config/remote-api.js';

test('the flag wins over the variable, which wins over the default; a trailing slash is dropped', () => {
  const env = { OMNIBOOK_API_KEY: 'ob_k', OMNIBOOK_URL: 'http://127.0.0.2:9000/' };
  assert.deepEqual(loadRemoteApi({ url: 'https://omnibook.example/' }, env), {
    url: 'https://omnibook.example',
    apiKey: 'ob_k',
  });
  assert.equal(loadRemoteApi({}, env).url, 'http://127.0.0.2:9000');
  assert.equal(loadRemoteApi({}, { OMNIBOOK_API_KEY: 'ob_k' }).url, DEFAULT_REMOTE_URL);
});

test('no key, or a URL that is not http(s), is refused with a message naming the setting', () => {
  assert.throws(
    () => loadRemoteApi({}, {}),
    (e: unknown) => e instanceof RemoteApiError && /OMNIBOOK_API_KEY/.test(e.message),
  );
  assert.throws(() => loadRemoteApi({ url: 'ftp://x' }, { OMNIBOOK_API_KEY: 'k' }), RemoteApiError);
  assert.throws(() => loadRemoteApi({ url: 'not a url' }, { OMNIBOOK_API_KEY: 'k' }), RemoteApiError);
});
