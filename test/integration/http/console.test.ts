// The web console's files as the real server serves them (the browser walk is test/e2e/console.test.ts): /console
// redirects to /console/, index.html is revalidated on every load (no-cache, an ETag) while the hashed assets it names are kept for a
// year, every answer carries the self-only CSP, nothing outside web/dist (nor its build report) is reachable, and a
// checkout whose console is not built says how to build it instead of a bare 404.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Fastify from 'fastify';
import { CONSOLE_CSP, installConsole } from '../../../src/http/plugins/console.js';
import { startTestServer, type TestServer } from '../../support/server.js';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.stop();
});

const get = (path: string) => fetch(`${server.url}${path}`, { redirect: 'manual' });

test('/console redirects to /console/, which is the page with its self-only CSP, revalidated each load', async () => {
  const redirect = await get('/console');
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get('location'), '/console/');
  const page = await get('/console/');
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  assert.equal(page.headers.get('content-security-policy'), CONSOLE_CSP);
  assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
  assert.ok(page.headers.get('etag'), 'an ETag to revalidate with');
  const html = await page.text();
  // No third-party origin anywhere in the page: it works offline.
  assert.doesNotMatch(html, /https?:\/\//);

  const assets = [...html.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1] as string);
  assert.equal(assets.length, 2, 'one script and one stylesheet');
  for (const asset of assets) {
    const res = await get(`/console/${asset}`);
    assert.equal(res.status, 200, asset);
    assert.match(res.headers.get('content-type') ?? '', asset.endsWith('.js') ? /javascript/ : /^text\/css/);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(res.headers.get('content-security-policy'), CONSOLE_CSP);
  }
});

test('nothing outside the built console is served, nor its build report; the API document lists no /console', async () => {
  for (const path of [
    '/console/build-report.json',
    '/console/assets/nope.js',
    '/console/%2e%2e/package.json',
    '/console/..%2f..%2fpackage.json',
  ]) {
    const res = await get(path);
    assert.ok(res.status === 404 || res.status === 403, `${path}: ${res.status}`);
    assert.doesNotMatch(await res.text(), /"name":\s*"omnibook"/, path);
  }
  const document = (await (await get('/openapi.json')).json()) as { paths: Record<string, unknown> };
  assert.ok(!Object.keys(document.paths).some((p) => p.startsWith('/console')));
});

test('a checkout whose console is not built answers 503 console_not_built, saying how to build it', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'omnibook-no-console-'));
  const app = Fastify();
  try {
    await installConsole(app, empty);
    for (const url of ['/console', '/console/', '/console/assets/x.js']) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 503, url);
      const body = res.json() as { code: string; error: string; retryable: boolean };
      assert.equal(body.code, 'console_not_built');
      assert.equal(body.retryable, false);
      assert.match(body.error, /npm ci/);
    }
  } finally {
    await app.close();
    rmSync(empty, { recursive: true, force: true });
  }
});
