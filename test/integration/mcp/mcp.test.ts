// The MCP server end to end with the official SDK's own client, over both transports, against a real sandbox server
// (the five simulators, links published by a real sync pass): StreamableHTTPClientTransport on /mcp and
// StdioClientTransport spawning `omnibook mcp`. Tool answers are compared with the REST routes they stand for;
// order tools are refused for a key without mcp_trading and without confirm, and place and cancel a paper order
// when enabled; a rate-limited call is a tool error carrying the API's code and retryable flag; /mcp's own bounds
// (auth, sessions per key, a session bound to its key, body size, no GET stream) answer in the API's error shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Market } from '../../../src/domain/market.js';
import { LinksRepo } from '../../../src/store/links-repo.js';
import { type CatalogueServer, startCatalogueServer } from '../../support/catalogue.js';
import { BIN } from '../../support/cli.js';

const PER_KEY = 3;

let cat: CatalogueServer;
let base: string;
let reader: string;
let trader: string;
let kalshiMarket: Market;
let kalshiOutcome: string;
let kalshiTick: number;
let linked: string;
const clients: Client[] = [];

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: Array<{ type: string; text?: string }>;
}

async function rest(path: string, key: string): Promise<unknown> {
  const res = await cat.server.request(path, { key });
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return res.body;
}

async function createKey(body: Record<string, unknown>): Promise<string> {
  const res = await cat.server.request('/api/v1/keys', { method: 'POST', body });
  assert.equal(res.status, 201, res.text);
  return (res.body as { key: string }).key;
}

async function httpClient(key: string, auth: 'x-api-key' | 'bearer' = 'x-api-key'): Promise<Client> {
  const headers: Record<string, string> =
    auth === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
  const client = new Client({ name: 'omnibook-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

async function stdioClient(key: string): Promise<Client> {
  const client = new Client({ name: 'omnibook-test', version: '1.0.0' });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { ...env, OMNIBOOK_URL: base, OMNIBOOK_API_KEY: key },
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

function ok(answer: ToolAnswer): unknown {
  assert.notEqual(answer.isError, true, JSON.stringify(answer.content));
  const text = answer.content[0]?.text;
  assert.ok(text);
  return JSON.parse(text);
}

function refused(answer: ToolAnswer, code: string, retryable = false): Record<string, unknown> {
  assert.equal(answer.isError, true, JSON.stringify(answer.content));
  const error = answer.structuredContent as Record<string, unknown>;
  assert.equal(error.code, code, JSON.stringify(error));
  assert.equal(error.retryable, retryable);
  assert.equal(typeof error.error, 'string');
  assert.match(answer.content[0]?.text ?? '', new RegExp(`^${code} `));
  return error;
}

before(async () => {
  cat = await startCatalogueServer(20, {
    config: { catalogue: { sync: false }, mcp: { maxSessionsPerKey: PER_KEY } },
  });
  await cat.server.runtime.catalogSync.runAll();
  base = cat.server.url;
  reader = await createKey({ tier: 'pro', name: 'mcp reader' });
  trader = await createKey({ tier: 'pro', name: 'mcp trader', mcp_trading: true });
  const sim = cat.sims.get('kalshi');
  assert.ok(sim);
  const onboard = await cat.server.request('/api/v1/onboard', {
    method: 'POST',
    key: trader,
    body: { exchange: 'kalshi', mode: 'self', ...(await sim.createAccount()).credentials },
  });
  assert.equal(onboard.status, 200, onboard.text);

  for (const m of cat.markets.values()) {
    if (m.exchange !== 'kalshi' || m.status !== 'active' || !m.outcomes[0]) continue;
    const book = (await rest(
      `/api/v1/orderbook?svc_id=${encodeURIComponent(m.svc_id)}&outcome=${m.outcomes[0].name}`,
      reader,
    )) as { bids: number[][]; asks: number[][]; tick_size: number };
    const bid = book.bids[0]?.[0];
    if (bid !== undefined && bid > 2 * book.tick_size && book.asks.length > 0) {
      kalshiMarket = m;
      kalshiOutcome = m.outcomes[0].name;
      kalshiTick = book.tick_size;
      break;
    }
  }
  assert.ok(kalshiMarket, 'an active kalshi market with bids above two ticks');
  const links = new LinksRepo(cat.server.runtime.store.db);
  for (const m of cat.markets.values()) {
    if (m.exchange !== 'polymarket' || m.status !== 'active') continue;
    if (
      (await links.twins(m.svc_id)).some(
        (t) => t.exchange === 'kalshi' && t.status === 'active' && t.confidence_tier === 'HIGH',
      )
    ) {
      linked = m.svc_id;
      break;
    }
  }
  assert.ok(linked, 'a polymarket market with a HIGH kalshi twin');
});

after(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await cat?.stop();
});

describe('streamable HTTP (/mcp)', () => {
  test('lists the read tools, and the order tools only for a key with mcp_trading', async () => {
    const readTools = (await (await httpClient(reader)).listTools()).tools.map((t) => t.name);
    for (const name of [
      'search_markets',
      'get_market',
      'get_orderbook',
      'get_execution_price',
      'quote_route',
    ]) {
      assert.ok(readTools.includes(name), name);
    }
    assert.ok(!readTools.includes('place_order') && !readTools.includes('cancel_order'));
    const all = (await (await httpClient(trader, 'bearer')).listTools()).tools;
    const place = all.find((t) => t.name === 'place_order');
    assert.ok(place && all.some((t) => t.name === 'cancel_order'));
    assert.deepEqual(place.inputSchema.required?.includes('confirm'), true);
    assert.match(place.description ?? '', /between 0 and 1/);
    assert.equal(place.annotations?.destructiveHint, true);
  });

  test('read tools answer what their REST routes answer', async () => {
    const client = await httpClient(reader);
    const svc = encodeURIComponent(kalshiMarket.svc_id);
    const search = ok(await call(client, 'search_markets', { exchanges: 'polymarket,kalshi', limit: 5 })) as {
      markets: Market[];
    };
    assert.deepEqual(
      search,
      await rest('/api/v1/markets?scope=list&exchanges=polymarket,kalshi&limit=5', reader),
    );
    assert.ok(search.markets.length > 0, 'search found markets');
    const word = kalshiMarket.question.split(/\W+/).find((w) => w.length > 4) ?? 'will';
    const found = ok(await call(client, 'search_markets', { search: word })) as { markets: Market[] };
    assert.ok(found.markets.length > 0 && found.markets.length <= 10, 'the tool pages 10 by default');

    const market = ok(await call(client, 'get_market', { svc_id: kalshiMarket.svc_id }));
    const viaRest = (await rest(`/api/v1/markets?scope=market&svc_id=${svc}`, reader)) as {
      markets: unknown[];
    };
    assert.deepEqual(market, viaRest.markets[0]);

    const book = ok(await call(client, 'get_orderbook', { svc_id: kalshiMarket.svc_id, limit: 5 }));
    assert.deepEqual(book, await rest(`/api/v1/orderbook?svc_id=${svc}&limit=5`, reader));

    const estimate = ok(
      await call(client, 'get_execution_price', { svc_id: kalshiMarket.svc_id, side: 'buy', amount: 3 }),
    );
    const restEstimate = await rest(`/api/v1/execution-price?svc_id=${svc}&side=buy&amount=3`, reader);
    assert.deepEqual(
      { ...(estimate as object), timestamp: null },
      { ...(restEstimate as object), timestamp: null },
    );

    const matched = ok(await call(client, 'get_matched_markets', { svc_id: linked })) as {
      matched_markets: Array<{ exchange: string }>;
    };
    assert.ok(
      matched.matched_markets.some((l) => l.exchange === 'kalshi'),
      JSON.stringify(matched),
    );
    const consolidated = ok(await call(client, 'get_consolidated_orderbook', { svc_id: linked })) as {
      venues: Array<{ exchange: string }>;
    };
    assert.ok(
      consolidated.venues.some((v) => v.exchange === 'kalshi'),
      JSON.stringify(consolidated.venues),
    );
    const route = ok(
      await call(client, 'quote_route', {
        svc_id: linked,
        side: 'buy',
        amount: '5',
        exchanges: 'polymarket,kalshi',
      }),
    ) as { legs: unknown[]; totals: { size: number } };
    assert.ok(route.legs.length >= 1, JSON.stringify(route));

    const candles = ok(await call(client, 'get_candles', { svc_id: kalshiMarket.svc_id, interval: '1d' }));
    assert.ok(Array.isArray((candles as { candles: unknown[] }).candles));
    const trades = ok(await call(client, 'get_trades', { svc_id: kalshiMarket.svc_id, limit: 3 }));
    assert.ok(Array.isArray((trades as { trades: unknown[] }).trades));
    const exchanges = ok(await call(client, 'list_exchanges')) as Array<{ id: string }>;
    assert.equal(exchanges.length, 5);
  });

  test("an API error is a tool error with the API's code, status and retryable flag", async () => {
    const client = await httpClient(reader);
    const missing = refused(
      await call(client, 'get_orderbook', { exchange: 'kalshi', market_id: 'KXNOSUCHMARKET-99' }),
      'market_not_found',
    );
    assert.equal(missing.status, 404);
    const both = refused(
      await call(client, 'get_orderbook', {
        svc_id: kalshiMarket.svc_id,
        exchange: 'kalshi',
        market_id: 'X',
      }),
      'validation_error',
    );
    assert.equal(both.status, 400);
    refused(
      await call(client, 'get_orderbook', { svc_id: kalshiMarket.svc_id, depht: 3 }),
      'validation_error',
    );
    refused(await call(client, 'get_positions', { exchange: 'kalshi' }), 'credentials_required');
    refused(await call(client, 'no_such_tool'), 'not_found');
  });

  test('order tools: refused when not enabled for the key, refused without confirm, a paper order when enabled', async () => {
    const order = {
      exchange: 'kalshi',
      market_id: kalshiMarket.exchange_market_id,
      outcome: kalshiOutcome,
      side: 'buy',
      price: kalshiTick,
      size: 5,
    };
    const readerClient = await httpClient(reader);
    const notEnabled = refused(
      await call(readerClient, 'place_order', { ...order, confirm: true }),
      'forbidden',
    );
    assert.match(String(notEnabled.error), /mcp-trading/);
    refused(
      await call(readerClient, 'cancel_order', { exchange: 'kalshi', order_id: 'x', confirm: true }),
      'forbidden',
    );

    const client = await httpClient(trader);
    refused(await call(client, 'place_order', order), 'validation_error');
    refused(await call(client, 'place_order', { ...order, confirm: 'yes' }), 'validation_error');
    const before = (await rest('/api/v1/orders?exchange=kalshi&status=all', trader)) as unknown[];
    assert.equal(before.length, 0, 'nothing was sent by the refused calls');

    const placed = ok(
      await call(client, 'place_order', { ...order, confirm: true, idempotency_key: 'mcp-order-1' }),
    ) as { id: string; status: string; filled: number };
    assert.equal(placed.status, 'open');
    assert.equal(placed.filled, 0);
    const again = ok(
      await call(client, 'place_order', { ...order, confirm: true, idempotency_key: 'mcp-order-1' }),
    ) as { id: string };
    assert.equal(again.id, placed.id, 'the same idempotency_key answers the first order');
    const listed = ok(await call(client, 'list_orders', { exchange: 'kalshi' })) as Array<{ id: string }>;
    assert.deepEqual(
      listed.map((o) => o.id),
      [placed.id],
    );
    const viaRest = (await rest(`/api/v1/orders/${placed.id}?exchange=kalshi`, trader)) as { status: string };
    assert.equal(viaRest.status, 'open');
    assert.deepEqual(
      ok(await call(client, 'get_order', { exchange: 'kalshi', order_id: placed.id })),
      viaRest,
    );

    refused(
      await call(client, 'cancel_order', { exchange: 'kalshi', order_id: placed.id }),
      'validation_error',
    );
    const cancelled = ok(
      await call(client, 'cancel_order', { exchange: 'kalshi', order_id: placed.id, confirm: true }),
    ) as { status: string };
    assert.equal(cancelled.status, 'cancelled');
    const positions = ok(await call(client, 'get_positions', { exchange: 'kalshi' }));
    assert.ok(Array.isArray(positions));
  });

  test('a rate-limited tool call is a tool error with rate_limit_exceeded, retryable, Retry-After', async () => {
    // 0.001 requests/s refills nothing during the test: initialize and its notification take two of the four
    // tokens, the first two tool calls the rest, the third is refused.
    const limited = await createKey({ tier: 'free', name: 'mcp limited', qps_limit: 0.001, burst: 4 });
    const client = await httpClient(limited);
    ok(await call(client, 'list_exchanges'));
    ok(await call(client, 'get_market', { svc_id: kalshiMarket.svc_id }));
    const error = refused(await call(client, 'list_exchanges'), 'rate_limit_exceeded', true);
    assert.equal(error.status, 429);
    assert.equal(error.tier, 'free');
    assert.ok(Number(error.retry_after_s) >= 1);
    // A call the MCP layer answers itself is admitted all the same.
    refused(await call(client, 'no_such_tool'), 'rate_limit_exceeded', true);
  });

  test('/mcp answers in the API error shape: no key, a bad key, another key’s session, too large, no GET stream', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    for (const headers of [{}, { 'x-api-key': 'nope' }, { authorization: 'Bearer nope' }] as Array<
      Record<string, string>
    >) {
      const res = await post(headers, init);
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { code: string }).code, 'unauthorized');
    }
    const opened = await post({ 'x-api-key': reader }, init);
    assert.equal(opened.status, 200, await opened.clone().text());
    const session = opened.headers.get('mcp-session-id');
    assert.ok(session);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const stolen = await post(
      { 'x-api-key': trader, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      list,
    );
    assert.equal(stolen.status, 404);
    assert.equal(((await stolen.json()) as { code: string }).code, 'not_found');
    const own = await post(
      { 'x-api-key': reader, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      list,
    );
    assert.equal(own.status, 200);

    const big = await post({ 'x-api-key': reader }, JSON.stringify({ pad: 'x'.repeat(300_000) }));
    assert.equal(big.status, 413);
    assert.equal(((await big.json()) as { code: string }).code, 'payload_too_large');
    const noSession = await post({ 'x-api-key': reader }, list);
    assert.equal(noSession.status, 400);
    const get = await fetch(`${base}/mcp`, { headers: { 'x-api-key': reader, accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    await get.body?.cancel();
  });

  test('sessions are capped per key: a new one past the cap closes that key’s least recently used', async () => {
    const key = await createKey({ tier: 'pro', name: 'mcp sessions' });
    const opened: Client[] = [];
    for (let i = 0; i < PER_KEY; i += 1) opened.push(await httpClient(key));
    const [oldest, ...rest] = opened;
    assert.ok(oldest);
    for (const c of rest) ok(await call(c, 'list_exchanges'));
    await httpClient(key);
    await assert.rejects(oldest.listTools(), /404|not found/i);
    for (const c of rest) ok(await call(c, 'list_exchanges'));
  });
});

describe('stdio (omnibook mcp)', () => {
  // Two `omnibook mcp` processes, started together: most of their cost is loading the command.
  let traderClient: Client;
  let limitedClient: Client;
  before(async () => {
    // 0.001 requests/s refills nothing during the test: see the second test for how the three tokens go.
    const limited = await createKey({ tier: 'free', name: 'mcp stdio limited', qps_limit: 0.001, burst: 3 });
    [traderClient, limitedClient] = await Promise.all([stdioClient(trader), stdioClient(limited)]);
  });

  test('lists and calls tools against the running server with OMNIBOOK_API_KEY', async () => {
    const client = traderClient;
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('get_orderbook') && names.includes('place_order'));
    const svc = encodeURIComponent(kalshiMarket.svc_id);
    const book = ok(await call(client, 'get_orderbook', { svc_id: kalshiMarket.svc_id, limit: 4 }));
    assert.deepEqual(book, await rest(`/api/v1/orderbook?svc_id=${svc}&limit=4`, reader));
    refused(await call(client, 'get_market', { svc_id: 'kalshi:KXNOSUCHMARKET-99' }), 'market_not_found');

    const order = {
      exchange: 'kalshi',
      market_id: kalshiMarket.exchange_market_id,
      outcome: kalshiOutcome,
      side: 'buy',
      price: kalshiTick,
      size: 2,
    };
    refused(await call(client, 'place_order', order), 'validation_error');
    const placed = ok(await call(client, 'place_order', { ...order, confirm: true })) as {
      id: string;
      status: string;
    };
    assert.equal(placed.status, 'open');
    const cancelled = ok(
      await call(client, 'cancel_order', { exchange: 'kalshi', order_id: placed.id, confirm: true }),
    ) as { status: string };
    assert.equal(cancelled.status, 'cancelled');
  });

  test('a key without mcp_trading: no order tools, an order tool refused, then a rate-limited call (429)', async () => {
    // tools/list and the order tool's check each ask GET /keys/self (a token each), one read call takes the
    // last of the three, and the next is refused.
    const client = limitedClient;
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('get_orderbook') && !names.includes('place_order'));
    refused(
      await call(client, 'place_order', {
        exchange: 'kalshi',
        market_id: kalshiMarket.exchange_market_id,
        outcome: kalshiOutcome,
        side: 'buy',
        price: kalshiTick,
        size: 1,
        confirm: true,
      }),
      'forbidden',
    );
    ok(await call(client, 'list_exchanges'));
    const error = refused(await call(client, 'list_exchanges'), 'rate_limit_exceeded', true);
    assert.equal(error.status, 429);
    assert.equal(error.tier, 'free');
    assert.ok(Number(error.retry_after_s) >= 1);
  });
});
