// Trading with each credential mode through the real server over the five simulators:
// stored (self-onboarded) credentials for every Polymarket signature type a legacy account may use (0 EOA, 1 proxy,
// 2 Safe) and a deposit wallet (3), and for kalshi and limitless — place, poll, fill against a resting order, cancel, with no

// X-Exchange-Credentials header; a managed wallet trading its sandbox paper money; a post-cutover account refused
// as an EOA with the exchange's own words (a 4xx, never a 500, nothing left unknown) and accepted through its
// deposit wallet; predictfun (an EOA and a Predict account) alike; and per-request credentials found nowhere in the SQLite files, the logs or an error body.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import type { Market } from '../../../src/domain/market.js';
import { type CatalogueServer, simControl, startCatalogueServer } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import type { TestRequestInit, TestResponse } from '../../support/server.js';

interface ApiOrder {
  id: string;
  client_order_id?: string;
  status: string;
  filled: number;
  size: number;
  updated_at: string | null;
}

interface Book {
  bids: [number, number][];
  asks: [number, number][];
  tick_size: number;
}

/** Opinion publishes no tick size (null on its books); its simulator holds orders to 0.001 steps. */
const OPINION_TICK = 0.001;

/** What POST /__sim/accounts answers on polymarket: the credentials and the account's contract wallets. */
interface PmAccount {
  credentials: Record<string, string>;
  address: string;
  kind: 'legacy' | 'deposit';
  wallets: { proxy?: string; safe?: string; deposit?: string };
}

let cat: CatalogueServer;
/** Every per-request secret this file sends, and every error body it receives: none may be kept anywhere. */
const perRequestSecrets = new Map<string, string>();
const errorBodies: string[] = [];

before(async () => {
  cat = await startCatalogueServer(20, { config: { logLevel: 'trace', accessLog: true } });
});
after(async () => {
  await cat?.stop();
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const round = (n: number) => Math.round(n * 1e6) / 1e6;

async function call(path: string, init: TestRequestInit): Promise<TestResponse> {
  const res = await cat.server.request(path, init);
  if (res.status >= 400) errorBodies.push(res.text);
  assert.ok(res.status < 500, `${init.method ?? 'GET'} ${path}: ${res.status} ${res.text}`);
  return res;
}

/** A fresh customer with its own API key: each holds one stored record per exchange. */
async function customer(): Promise<string> {
  const { key } = await cat.server.runtime.keys.create({ name: 'credential modes', tier: 'pro' });
  return key;
}

async function onboard(key: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await call('/api/v1/onboard', { method: 'POST', key, body });
  assert.equal(res.status, 200, res.text);
  assert.equal((res.body as { status: string }).status, 'complete', res.text);
  return res.body as Record<string, unknown>;
}

async function pmAccount(kind: 'legacy' | 'deposit'): Promise<PmAccount> {
  return (await simControl(cat, 'polymarket', 'POST', 'accounts', { kind })) as PmAccount;
}

/** A per-request account (the other side of a fill), its secrets remembered for the at-rest check. */
async function perRequestAccount(exchange: ExchangeId): Promise<Record<string, string>> {
  const sim = cat.sims.get(exchange);
  assert.ok(sim);
  const { credentials } = await sim.createAccount();
  remember(`${exchange} per-request`, credentials);
  return credentials;
}

function remember(what: string, credentials: Record<string, string>): void {
  for (const field of [
    'private_key',
    'clob_api_secret',
    'clob_api_passphrase',
    'clob_api_key',
    'api_key_id',
    'secret',
    'api_key',
  ]) {
    const value = credentials[field];
    if (value) perRequestSecrets.set(`${what} ${field} ${perRequestSecrets.size}`, value);
  }
  perRequestSecrets.set(`${what} header ${perRequestSecrets.size}`, b64(credentials));
}

/** Stored credentials (`key`) or per-request ones (`credentials`, sent in the header). */
type Caller = { key: string } | { credentials: Record<string, string> };

function as(caller: Caller): TestRequestInit {
  return 'key' in caller
    ? { key: caller.key }
    : { headers: { 'x-exchange-credentials': b64(caller.credentials) } };
}

function place(exchange: ExchangeId, caller: Caller, body: Record<string, unknown>): Promise<TestResponse> {
  return call(`/api/v1/orders?exchange=${exchange}`, { method: 'POST', body, ...as(caller) });
}

async function book(exchange: ExchangeId, market: Market, outcome: string): Promise<Book> {
  const res = await call(
    `/api/v1/orderbook?exchange=${exchange}&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=${outcome}`,
    {},
  );
  assert.equal(res.status, 200, res.text);
  const b = res.body as Book;
  return exchange === 'opinion' ? { ...b, tick_size: b.tick_size ?? OPINION_TICK } : b;
}

/** An active market whose first outcome has room for a resting bid inside the spread and asks to buy from. */
async function roomyMarket(exchange: ExchangeId): Promise<{ market: Market; outcome: string; book: Book }> {
  const seen: string[] = [];
  for (const market of [...cat.markets.values()].filter(
    (m) => m.exchange === exchange && m.status === 'active',
  )) {
    const outcome = market.outcomes[0]?.name;
    if (!outcome) continue;
    const b = await book(exchange, market, outcome);
    const [bid] = b.bids[0] ?? [];
    const [ask, askSize] = b.asks[0] ?? [];
    seen.push(`${bid}/${ask}x${askSize}@${b.tick_size}`);
    if (
      bid !== undefined &&
      ask !== undefined &&
      askSize !== undefined &&
      askSize >= 5 &&
      // Polymarket takes a marketable buy of $1 or more only: the other account's 5 shares at the ask.
      (exchange !== 'polymarket' || ask * 5 >= 1) &&
      // Predict.fun takes orders worth $0.9 or more; the other account buys 6 shares (its fee is paid in shares).
      (exchange !== 'predictfun' || ((bid + b.tick_size) * 5 >= 0.9 && askSize >= 6)) &&
      ask - bid >= 1.5 * b.tick_size
    )
      return { market, outcome, book: b };
  }
  assert.fail(`${exchange}: no market with a spread of at least 2 ticks: ${seen.join(' ')}`);
}

/**
 * The whole life of an order for one caller: a resting bid inside the spread is placed, polled (by id and by
 * client order id), filled by another account selling into it, and seen in the caller's fills; a second one is
 * cancelled. Nothing but `caller` identifies the account.
 */
async function placePollFillCancel(exchange: ExchangeId, caller: Caller): Promise<void> {
  const { market, outcome, book: b } = await roomyMarket(exchange);
  const marketId = market.exchange_market_id;
  const tick = b.tick_size;
  const size = 5;
  const price = round((b.bids[0]?.[0] ?? 0) + tick);

  const placed = await place(exchange, caller, { market_id: marketId, outcome, side: 'buy', price, size });
  assert.equal(placed.status, 200, placed.text);
  const order = placed.body as ApiOrder;
  assert.equal(order.status, 'open', placed.text);
  for (const id of [order.id, order.client_order_id]) {
    const polled = await call(`/api/v1/orders/${id}?exchange=${exchange}`, as(caller));
    assert.equal(polled.status, 200, polled.text);
    assert.equal((polled.body as ApiOrder).id, order.id);
    assert.equal((polled.body as ApiOrder).status, 'open');
  }

  // Another account buys at the ask what it then sells into the resting bid.
  const other: Caller = { credentials: await perRequestAccount(exchange) };
  const [bestAsk] = b.asks[0] as [number, number];
  // Limitless takes a buy's fee in shares: that account buys one share more (into the next ask) to sell `size`.
  const limitless = exchange === 'limitless';
  const bought = await place(exchange, other, {
    market_id: marketId,
    outcome,
    side: 'buy',
    price: limitless ? (b.asks[1]?.[0] ?? bestAsk) : bestAsk,
    // A Predict.fun buyer's taker fee is taken in shares: it buys one more to have the 5 it sells (Limitless too).
    size: limitless || exchange === 'predictfun' ? size + 1 : size,
  });
  assert.equal(bought.status, 200, bought.text);
  assert.equal((bought.body as ApiOrder).status, 'filled', bought.text);
  const hit = await place(exchange, other, { market_id: marketId, outcome, side: 'sell', price, size });
  assert.equal(hit.status, 200, hit.text);
  assert.equal((hit.body as ApiOrder).status, 'filled', hit.text);

  const filled = await call(`/api/v1/orders/${order.id}?exchange=${exchange}`, as(caller));
  assert.equal(filled.status, 200, filled.text);
  assert.equal((filled.body as ApiOrder).status, 'filled', filled.text);
  assert.equal((filled.body as ApiOrder).filled, size);
  const fills = await call(
    `/api/v1/fills?exchange=${exchange}&market_id=${encodeURIComponent(marketId)}`,
    as(caller),
  );
  assert.equal(fills.status, 200, fills.text);
  const mine = (fills.body as Array<{ order_id: string; is_taker: boolean; size: number }>).filter(
    (f) => f.order_id === order.id,
  );
  assert.ok(mine.length > 0, `no fill for ${order.id}: ${fills.text}`);
  assert.ok(mine.every((f) => !f.is_taker));
  assert.equal(round(mine.reduce((s, f) => s + f.size, 0)), size);

  const resting = await place(exchange, caller, {
    market_id: marketId,
    outcome,
    side: 'buy',
    price: tick,
    size: Math.max(size, Math.ceil(1 / tick)),
  });
  assert.equal(resting.status, 200, resting.text);
  const second = resting.body as ApiOrder;
  assert.equal(second.status, 'open', resting.text);
  const cancelled = await call(`/api/v1/orders/${second.id}?exchange=${exchange}`, {
    method: 'DELETE',
    ...as(caller),
  });
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal((cancelled.body as ApiOrder).status, 'cancelled');
  assert.equal((cancelled.body as ApiOrder).filled, 0);
  const open = await call(`/api/v1/orders?exchange=${exchange}`, as(caller));
  assert.equal(open.status, 200, open.text);
  assert.ok(!(open.body as ApiOrder[]).some((o) => o.id === second.id), open.text);
}

/** The fill was paid from the funder the account was onboarded with, not from its EOA (funded alike). */
async function assertFunderPaid(key: string, account: PmAccount): Promise<void> {
  const funded = '10000000000';
  const stored = await call('/api/v1/balance?exchange=polymarket&refresh=true', { key });
  assert.equal(stored.status, 200, stored.text);
  assert.ok(BigInt((stored.body as { raw: { balance: string } }).raw.balance) < BigInt(funded), stored.text);
  const { signature_type: _, funder_address: __, ...eoa } = account.credentials;
  remember('onboarded account sent per request', eoa);
  const asEoa = await call('/api/v1/balance?exchange=polymarket&refresh=true', as({ credentials: eoa }));
  assert.equal(asEoa.status, 200, asEoa.text);
  assert.equal((asEoa.body as { raw: { balance: string } }).raw.balance, funded, asEoa.text);
}

describe('stored (self) credentials, no credentials header', () => {
  test('polymarket signature type 0: a legacy account as an EOA', async () => {
    const key = await customer();
    const account = await pmAccount('legacy');
    const result = await onboard(key, { exchange: 'polymarket', mode: 'self', ...account.credentials });
    assert.equal(result.wallet_type, 'eoa');
    await placePollFillCancel('polymarket', { key });
  });

  test('polymarket signature type 1: a legacy account through its proxy wallet', async () => {
    const key = await customer();
    const account = await pmAccount('legacy');
    assert.ok(account.wallets.proxy);
    const result = await onboard(key, {
      exchange: 'polymarket',
      mode: 'self',
      ...account.credentials,
      wallet_type: 'proxy',
      funder_address: account.wallets.proxy,
    });
    assert.equal(result.funder_address, account.wallets.proxy);
    await placePollFillCancel('polymarket', { key });
    await assertFunderPaid(key, account);
  });

  test('polymarket signature type 2: a legacy account through its Safe', async () => {
    const key = await customer();
    const account = await pmAccount('legacy');
    assert.ok(account.wallets.safe);
    const result = await onboard(key, {
      exchange: 'polymarket',
      mode: 'self',
      ...account.credentials,
      wallet_type: 'safe',
      eoa_address: account.address,
      funder_address: account.wallets.safe,
    });
    assert.equal(result.safe_address, account.wallets.safe);
    await placePollFillCancel('polymarket', { key });
    await assertFunderPaid(key, account);
  });

  test('polymarket signature type 3: a post-cutover account through its deposit wallet', async () => {
    const key = await customer();
    const account = await pmAccount('deposit');
    const { signature_type: _, funder_address: __, ...credentials } = account.credentials;
    const result = await onboard(key, {
      exchange: 'polymarket',
      mode: 'self',
      ...credentials,
      wallet_type: 'deposit',
      funder_address: account.wallets.deposit,
    });
    assert.equal(result.deposit_wallet_address, account.wallets.deposit);
    await placePollFillCancel('polymarket', { key });
  });

  test('kalshi', async () => {
    const key = await customer();
    const sim = cat.sims.get('kalshi');
    assert.ok(sim);
    await onboard(key, { exchange: 'kalshi', mode: 'self', ...(await sim.createAccount()).credentials });
    await placePollFillCancel('kalshi', { key });
  });

  test('limitless', async () => {
    const key = await customer();
    const sim = cat.sims.get('limitless');
    assert.ok(sim);
    await onboard(key, { exchange: 'limitless', mode: 'self', ...(await sim.createAccount()).credentials });
    await placePollFillCancel('limitless', { key });
  });

  test('predictfun, an EOA and a Predict (Kernel) account', async () => {
    const sim = cat.sims.get('predictfun');
    assert.ok(sim);
    for (const predict_account of [false, true]) {
      const key = await customer();
      const account = (await simControl(cat, 'predictfun', 'POST', 'accounts', { predict_account })) as {
        credentials: Record<string, string>;
      };
      await onboard(key, { exchange: 'predictfun', mode: 'self', ...account.credentials });
      await placePollFillCancel('predictfun', { key });
    }
  });

  test('opinion', async () => {
    const key = await customer();
    const sim = cat.sims.get('opinion');
    assert.ok(sim);
    await onboard(key, { exchange: 'opinion', mode: 'self', ...(await sim.createAccount()).credentials });
    await placePollFillCancel('opinion', { key });
  });
});

describe('per-request credentials (opinion)', () => {
  test('place, poll, fill against a resting order and cancel with X-Exchange-Credentials only', async () => {
    await placePollFillCancel('opinion', { credentials: await perRequestAccount('opinion') });
  });
});

describe('managed (polymarket)', () => {
  test("the managed wallet trades the sandbox's paper money, which lands in its deposit wallet", async () => {
    const key = await customer();
    const result = await onboard(key, { exchange: 'polymarket', mode: 'managed' });
    // The simulator's paper money for a new (post-cutover) wallet goes where it may trade: the deposit wallet.
    assert.equal(result.wallet_type, 'deposit', JSON.stringify(result));
    assert.equal(result.funder_address, result.deposit_wallet_address);
    const balance = await call('/api/v1/balance?exchange=polymarket', { key });
    assert.equal(balance.status, 200, balance.text);
    assert.equal((balance.body as { raw: { balance: string } }).raw.balance, '1000000000', balance.text);
    // Its EOA holds nothing, so trading as the EOA could never have worked.
    const exported = await call('/api/v1/wallet/export-key', {
      method: 'POST',
      key,
      body: { wallet_type: 'eoa' },
    });
    assert.equal(exported.status, 200, exported.text);
    const eoa = { private_key: (exported.body as { private_key: string }).private_key, signature_type: '0' };
    remember('managed EOA sent per request', eoa);
    const eoaBalance = await call('/api/v1/balance?exchange=polymarket', as({ credentials: eoa }));
    assert.equal(eoaBalance.status, 200, eoaBalance.text);
    assert.equal((eoaBalance.body as { raw: { balance: string } }).raw.balance, '0', eoaBalance.text);

    await placePollFillCancel('polymarket', { key });
  });
});

describe('a post-cutover account', () => {
  test("is refused as an EOA with the exchange's words (4xx, nothing unknown) and accepted through its deposit wallet", async () => {
    const account = await pmAccount('deposit');
    remember('polymarket deposit per-request', account.credentials);
    const { signature_type: _, funder_address: __, ...asEoa } = account.credentials;
    const eoa: Caller = { credentials: { ...asEoa, signature_type: '0' } };
    remember('polymarket deposit as EOA', { ...asEoa, signature_type: '0' });
    const { market, outcome, book: b } = await roomyMarket('polymarket');
    const body = {
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price: b.tick_size,
      size: Math.ceil(1 / b.tick_size),
    };
    const before = new Set(await journalIds());
    const refused = await place('polymarket', eoa, body);
    const error = assertError(refused, 400, 'bad_request');
    assert.match(String(error.error), /maker address not allowed, please use the deposit wallet flow/);
    // The exchange's answer is the evidence: the journal row is rejected, with the exchange's words, not unknown.
    const rows = (await journalRows()).filter((r) => !before.has(Number(r.id)));
    assert.deepEqual(
      rows.map((r) => r.state),
      ['rejected'],
      JSON.stringify(rows),
    );
    assert.match(String(rows[0]?.error_message), /deposit wallet flow/);

    // Onboarded as an EOA, the stored session is refused the same way.
    const key = await customer();
    await onboard(key, { exchange: 'polymarket', mode: 'self', ...asEoa });
    const storedRefusal = assertError(await place('polymarket', { key }, body), 400, 'bad_request');
    assert.match(String(storedRefusal.error), /please use the deposit wallet flow/);

    const deposit: Caller = { credentials: account.credentials };
    const accepted = await place('polymarket', deposit, body);
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal((accepted.body as ApiOrder).status, 'open', accepted.text);
    const cancelled = await call(`/api/v1/orders/${(accepted.body as ApiOrder).id}?exchange=polymarket`, {
      method: 'DELETE',
      ...as(deposit),
    });
    assert.equal(cancelled.status, 200, cancelled.text);
  });
});

describe('per-request credentials at rest', () => {
  test('those used on POST /orders, GET /fills and GET /balance are nowhere in the SQLite files, the logs or an error body', async () => {
    for (const exchange of ['polymarket', 'kalshi', 'limitless', 'opinion', 'predictfun'] as const) {
      const credentials = await perRequestAccount(exchange);
      const caller: Caller = { credentials };
      const { market, outcome, book: b } = await roomyMarket(exchange);
      const body = {
        market_id: market.exchange_market_id,
        outcome,
        side: 'buy',
        price: b.tick_size,
        size: Math.max(5, Math.ceil(1 / b.tick_size)),
      };
      assert.equal((await place(exchange, caller, body)).status, 200);
      // Body credentials too, and a refusal (402) whose error body must not quote them.
      const inBody = await call(`/api/v1/orders?exchange=${exchange}`, {
        method: 'POST',
        body: { ...body, credentials },
      });
      assert.equal(inBody.status, 200, inBody.text);
      assertError(
        await place(exchange, caller, { ...body, price: 0.5, size: 1_000_000 }),
        402,
        'insufficient_funds',
      );
      assert.equal((await call(`/api/v1/fills?exchange=${exchange}`, as(caller))).status, 200);
      // Limitless's PnL chart, Opinion and Predict.fun (balances read live from the chain) have nothing to refresh.
      const refresh = ['limitless', 'opinion', 'predictfun'].includes(exchange) ? '' : '&refresh=true';
      assert.equal((await call(`/api/v1/balance?exchange=${exchange}${refresh}`, as(caller))).status, 200);
    }
    assert.ok(errorBodies.length >= 3);
    // Every order this file sent is settled: the exchange's answers were evidence enough.
    const unsettled = (await journalRows()).filter((r) => r.state === 'unknown' || r.state === 'pending');
    assert.deepEqual(unsettled, []);
    const absent = (where: string, haystack: string) => {
      for (const [what, value] of perRequestSecrets) {
        for (const needle of needles(value))
          assert.ok(!haystack.includes(needle), `${what} found in ${where}`);
      }
    };
    for (const text of errorBodies) absent('an error body', text);
    absent('the logs', cat.server.logs.join('\n'));
    const files = readdirSync(cat.server.dataDir).filter((f) => f.startsWith('omnibook.sqlite'));
    assert.ok(files.includes('omnibook.sqlite'), files.join());
    for (const file of files) absent(file, readFileSync(join(cat.server.dataDir, file)).toString('latin1'));
  });
});

/** The order journal's rows (all customers): what the server recorded, whatever the API shows. */
async function journalRows() {
  await cat.server.runtime.orderJournal.flush();
  return cat.server.runtime.store.db
    .selectFrom('order_journal')
    .select(['id', 'state', 'error_code', 'error_message'])
    .execute();
}

async function journalIds(): Promise<number[]> {
  return (await journalRows()).map((r) => Number(r.id));
}

/** The distinctive parts of a secret as they could appear anywhere: the whole value, and each PEM body line. */
function needles(value: string): string[] {
  const out = [value.replace(/^0x/, '')];
  for (const line of value.split('\n')) if (line.length >= 40 && !line.startsWith('-----')) out.push(line);
  return out;
}
