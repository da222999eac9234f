// The response-schema hook can fail: bodies that drift from /openapi.json, undocumented statuses and routes, and
// a 500 anywhere are refused; a real page of the byte-concatenated /markets passes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type CatalogueServer, startCatalogueServer } from '../../support/catalogue.js';
import { assertDocumentedResponse } from '../../support/response-schemas.js';

let cat: CatalogueServer;
before(async () => {
  cat = await startCatalogueServer(10);
});
after(async () => {
  await cat?.stop();
});

const check = (method: string, path: string, status: number, body: unknown) =>
  assertDocumentedResponse(cat.server.url, method, path, status, body, JSON.stringify(body));

test('a real /markets page passes; the same page with a drifted field does not', async () => {
  const res = await cat.server.request('/api/v1/markets?limit=5');
  assert.equal(res.status, 200, res.text);
  const page = res.body as { markets: Array<Record<string, unknown>>; pagination: Record<string, unknown> };
  await check('GET', '/api/v1/markets?limit=5', 200, page);

  const first = page.markets[0];
  assert.ok(first);
  await assert.rejects(
    check('GET', '/api/v1/markets', 200, { ...page, markets: [{ ...first, status: 'open' }] }),
    /does not match its published schema/,
  );
  await assert.rejects(
    check('GET', '/api/v1/markets', 200, { ...page, markets: [{ ...first, volume_total: '12' }] }),
    /does not match/,
  );
  const { pagination: _dropped, ...withoutPagination } = page;
  await assert.rejects(check('GET', '/api/v1/markets', 200, withoutPagination), /does not match/);
});

test('errors must have the error shape, on documented and undocumented routes alike', async () => {
  const error = { error: 'bad', code: 'validation_error', retryable: false };
  await check('GET', '/api/v1/markets', 400, error);
  await assert.rejects(
    check('GET', '/api/v1/markets', 400, { message: 'bad' }),
    /error shape|does not match/,
  );
  await check('GET', '/api/v1/nothing-here', 404, { ...error, code: 'not_found' });
  await assert.rejects(check('GET', '/api/v1/nothing-here', 404, 'no route'), /error shape/);
});

test('an undocumented status, a 500, or a success on an undocumented route is refused', async () => {
  const error = { error: 'x', code: 'internal_error', retryable: false };
  await assert.rejects(check('GET', '/api/v1/exchanges', 500, error), /not documented/);
  await assert.rejects(
    check('GET', '/api/v1/exchanges', 409, { ...error, code: 'conflict' }),
    /not documented/,
  );
  await assert.rejects(check('GET', '/api/v1/undocumented', 200, {}), /no route of \/openapi.json/);
});
