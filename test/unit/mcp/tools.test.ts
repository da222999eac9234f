// The tool table: each tool's request carries the query it promises (fixed parts, arguments, its defaults), the
// order tools are the only ones not read-only and require confirm, and arguments that cannot become a request are
// refused. That each request reaches its route is test/integration/mcp/mcp.test.ts's part.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { urlOf } from '../../../src/mcp/api-client.js';
import { TOOLS, ToolArgumentError, toolNamed } from '../../../src/mcp/tools.js';

test('every tool has a description, an object input schema and a unique name', () => {
  assert.equal(new Set(TOOLS.map((t) => t.name)).size, TOOLS.length);
  for (const t of TOOLS) {
    assert.ok(t.description.length > 40, t.name);
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal((t.inputSchema as { additionalProperties?: unknown }).additionalProperties, false, t.name);
  }
  assert.deepEqual(
    TOOLS.filter((t) => t.kind === 'order').map((t) => t.name),
    ['place_order', 'cancel_order'],
  );
  for (const name of ['place_order', 'cancel_order']) {
    assert.ok(toolNamed(name)?.inputSchema.required?.includes('confirm'), name);
  }
});

test('queries: fixed parts first, given arguments in order, tool defaults only when not given', () => {
  const search = toolNamed('search_markets');
  assert.ok(search);
  assert.equal(
    urlOf(search.request({ search: 'fed rate' })),
    '/api/v1/markets?scope=list&search=fed+rate&limit=10',
  );
  assert.equal(
    urlOf(search.request({ limit: 3, exchanges: ['kalshi', 'polymarket'] })),
    '/api/v1/markets?scope=list&exchanges=kalshi%2Cpolymarket&limit=3',
  );
  const order = toolNamed('get_order');
  assert.equal(
    urlOf(order?.request({ exchange: 'kalshi', order_id: 'a/b?c' }) ?? { method: 'GET', path: '' }),
    '/api/v1/orders/a%2Fb%3Fc?exchange=kalshi',
  );
});

test('place_order: body and params as POST /orders takes them, the idempotency key as its header', () => {
  const place = toolNamed('place_order');
  assert.ok(place);
  const request = place.request({
    exchange: 'kalshi',
    market_id: 'KX-1',
    outcome: 'Yes',
    side: 'buy',
    price: 0.42,
    size: 10,
    order_type: 'ioc',
    idempotency_key: 'k-1',
    confirm: true,
  });
  assert.equal(request.method, 'POST');
  assert.equal(urlOf(request), '/api/v1/orders?exchange=kalshi');
  assert.deepEqual(request.body, {
    market_id: 'KX-1',
    outcome: 'Yes',
    side: 'buy',
    price: 0.42,
    size: 10,
    params: { order_type: 'ioc' },
  });
  assert.deepEqual(request.headers, { 'idempotency-key': 'k-1' });
});

test('an argument that cannot be put in a query or a path is refused before any request', () => {
  assert.throws(() => toolNamed('get_orderbook')?.request({ svc_id: { nested: 1 } }), ToolArgumentError);
  assert.throws(
    () => toolNamed('cancel_order')?.request({ exchange: 'kalshi', confirm: true }),
    ToolArgumentError,
  );
  assert.throws(() => toolNamed('place_order')?.request({ idempotency_key: 7 }), ToolArgumentError);
});
