// X-Request-Id (issue 31 item 9): a client's id is no id of ours. Taken as is, it could repeat the server's own ids
// in logs and audit lines, or forge lines of someone else's request. The server honours it only behind a trusted
// proxy (http.trustProxy, where the proxy sets it), and then only a short plain token; otherwise it makes its own.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../support/server.js';

/**
 * The request ids of the access log's "incoming request" lines written since `from`: one per request, written before
 * its answer (a "request completed" line may come after the client has the answer, so it is not counted).
 */
function idsLogged(server: TestServer, from: number): string[] {
  return (
    server.logs
      .slice(from)
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { request_id?: string; msg?: string; req?: { url?: string } })
      // The test client also reads /openapi.json, to hold each answer to its schema.
      .filter((entry) => entry.msg === 'incoming request' && entry.req?.url === '/api/v1/usage')
      .map((entry) => entry.request_id)
      .filter((id): id is string => typeof id === 'string')
  );
}

async function idsOf(server: TestServer, requestId: string): Promise<string[]> {
  const from = server.logs.length;
  const res = await server.request('/api/v1/usage', { headers: { 'x-request-id': requestId } });
  assert.equal(res.status, 200, res.text);
  const ids = idsLogged(server, from);
  assert.ok(ids.length > 0, 'the access log wrote no line');
  return [...new Set(ids)];
}

describe('without a trusted proxy', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { accessLog: true, logLevel: 'info' } });
  });
  after(async () => server?.stop());

  test("the client's X-Request-Id is ignored: the server's own id is logged", async () => {
    for (const sent of ['req-1', 'client-chosen-id-7']) {
      const ids = await idsOf(server, sent);
      assert.equal(ids.length, 1, String(ids));
      assert.notEqual(ids[0], sent);
    }
    // Two requests never share an id.
    const [a] = await idsOf(server, 'same');
    const [b] = await idsOf(server, 'same');
    assert.notEqual(a, b);
  });
});

describe('behind a trusted proxy', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      config: { accessLog: true, logLevel: 'info', http: { trustProxy: true } },
    });
  });
  after(async () => server?.stop());

  test("the proxy's X-Request-Id is honoured when it is a plain token of at most 128 characters", async () => {
    for (const sent of ['0f8e2c1a-5b3d-4e7f-9a10-2b3c4d5e6f70', 'edge.lb-3:42_x']) {
      assert.deepEqual(await idsOf(server, sent), [sent]);
    }
    for (const sent of ['a'.repeat(129), 'has space', 'quote"and{brace}', '']) {
      const ids = await idsOf(server, sent);
      assert.equal(ids.length, 1);
      assert.notEqual(ids[0], sent);
    }
  });
});
