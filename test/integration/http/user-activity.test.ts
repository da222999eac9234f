// GET /user-activity through the real server over the simulators: every parameter rule (address per exchange,
// exchanges, limit), each venue's own document with its lists cut to the limit, the address checked before any
// venue is called, and exchanges that fail (a 500) or hold their answer past the deadline reported in `status`
// without failing the call. Last, the operator keys the venues are called with never reach a log line.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startOpinionSim } from '../../../sim/opinion/index.js';
import { startPredictfunSim } from '../../../sim/predictfun/index.js';
import type { ExchangeId } from '../../../src/domain/exchanges.js';
import { createOpinionAdapter } from '../../../src/venues/opinion/index.js';
import { createPredictfunAdapter } from '../../../src/venues/predictfun/index.js';
import {
  type CatalogueServer,
  simControl,
  startCatalogueServer,
  venueContext,
} from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import { startTestServer, type TestResponse, waitFor } from '../../support/server.js';
import { type SeededWallet, walletWithPositions } from '../../support/wallet-activity.js';

type Doc = Record<string, unknown>;
interface Activity {
  exchanges: Partial<Record<ExchangeId, Doc>>;
  status: Partial<Record<ExchangeId, { success: boolean; error?: string }>>;
}

/** Short enough that a held answer ends a test quickly, long enough for a loaded 2-core machine. */
const DEADLINE_MS = 5_000;
const ACTIVE: ExchangeId[] = ['polymarket', 'opinion', 'limitless', 'predictfun'];
/** The top-level keys of each venue's document (the spec: positions plus value, plus traded volume...). */
const DOCUMENT_KEYS: Record<string, string[]> = {
  polymarket: ['positions', 'value'],
  opinion: ['positions', 'trades'],
  limitless: ['positions', 'traded-volume'],
  predictfun: ['positions', 'matches'],
};

let cat: CatalogueServer;
const wallets = new Map<ExchangeId, SeededWallet>();
before(async () => {
  cat = await startCatalogueServer(20, { config: { venues: { timeoutMs: DEADLINE_MS } } });
  for (const exchange of ACTIVE) wallets.set(exchange, await walletWithPositions(cat, exchange, 3));
});
after(async () => {
  await cat?.stop();
});

/** The document of an exchange that must have answered. */
function docOf(body: Activity, exchange: ExchangeId): Doc {
  const doc = body.exchanges[exchange];
  assert.ok(doc, `${exchange} has no document: ${JSON.stringify(body.status)}`);
  return doc;
}

function wallet(exchange: ExchangeId): string {
  const w = wallets.get(exchange);
  assert.ok(w);
  return w.address;
}

async function activity(query: string): Promise<Activity> {
  const res = await cat.server.request(`/api/v1/user-activity?${query}`);
  assert.equal(res.status, 200, `${query}: ${res.text}`);
  return res.body as Activity;
}

const control = (exchange: ExchangeId, method: string, path: string, body?: unknown): Promise<unknown> =>
  simControl(cat, exchange, method, path, body);

/** The rows of every list in a venue's document, by list. */
function lists(exchange: ExchangeId, doc: Doc): Record<string, unknown[]> {
  switch (exchange) {
    case 'polymarket':
      return { positions: doc.positions as unknown[] };
    case 'opinion':
      return {
        positions: (doc.positions as { list: unknown[] }).list,
        trades: (doc.trades as { list: unknown[] }).list,
      };
    case 'limitless': {
      const p = doc.positions as { clob: unknown[]; amm: unknown[] };
      return { clob: p.clob, amm: p.amm };
    }
    default:
      return { positions: doc.positions as unknown[], matches: doc.matches as unknown[] };
  }
}

/** Venue data requests the simulators that count them (polymarket, predictfun) have received since `reset`. */
async function walletRequests(): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  for (const exchange of ['polymarket', 'predictfun'] as const) {
    const { counts } = (await control(exchange, 'GET', 'requests')) as { counts: Record<string, number> };
    for (const [route, n] of Object.entries(counts)) {
      if (/positions|value|matches/.test(route)) seen[`${exchange} ${route}`] = n;
    }
  }
  return seen;
}

async function resetRequestCounts(): Promise<void> {
  await control('polymarket', 'DELETE', 'requests');
  await control('predictfun', 'DELETE', 'requests');
}

describe('documents', () => {
  test('by default the four exchanges with wallet activity answer, each with its own document', async () => {
    const body = await activity(`address=${wallet('opinion')}`);
    assert.deepEqual(Object.keys(body.status), ACTIVE, 'the spec’s default list, in its order');
    assert.deepEqual(Object.keys(body.exchanges), ACTIVE);
    for (const exchange of ACTIVE) {
      assert.deepEqual(body.status[exchange], { success: true });
      assert.deepEqual(Object.keys(body.exchanges[exchange] ?? {}), DOCUMENT_KEYS[exchange]);
    }
    // The Opinion wallet holds its three positions there and nothing elsewhere.
    assert.equal((docOf(body, 'opinion').positions as { total: number }).total, 3);
    assert.deepEqual(body.exchanges.polymarket?.positions, []);
    assert.deepEqual(body.exchanges.predictfun?.positions, []);
  });

  test('each document is what the venue sends for the wallet: positions plus value, traded volume, trades', async () => {
    for (const exchange of ACTIVE) {
      const address = wallet(exchange);
      const body = await activity(`address=${address}&exchanges=${exchange}`);
      const doc = body.exchanges[exchange];
      assert.ok(doc, `${exchange}: ${JSON.stringify(body.status)}`);
      const direct = await cat.sims
        .get(exchange)
        ?.adapter.marketData.fetchUserActivity?.(venueContext(), address, 100);
      assert.deepEqual(doc, direct, `${exchange}: the adapter's own document`);
    }
    const pm = docOf(await activity(`address=${wallet('polymarket')}&exchanges=polymarket`), 'polymarket');
    const positions = pm.positions as Array<{ proxyWallet: string; size: number; currentValue: number }>;
    assert.equal(positions.length, 3);
    assert.ok(positions.every((p) => p.proxyWallet.toLowerCase() === wallet('polymarket').toLowerCase()));
    const [value] = pm.value as Array<{ user: string; value: number }>;
    const held = positions.reduce((sum, p) => sum + p.currentValue, 0);
    assert.ok(
      value && Math.abs(value.value - held) < 0.01,
      `value ${value?.value} vs positions worth ${held}`,
    );
    const lm = docOf(await activity(`address=${wallet('limitless')}&exchanges=limitless`), 'limitless');
    assert.ok(((lm['traded-volume'] as { totalVolume?: number }).totalVolume ?? 0) > 0);
    const op = docOf(await activity(`address=${wallet('opinion')}&exchanges=opinion`), 'opinion');
    assert.ok((op.trades as { list: unknown[] }).list.length > 0, 'the buys behind the positions');
  });

  test('limit caps every list of every venue’s document; the venue’s own totals stay', async () => {
    for (const exchange of ACTIVE) {
      const address = wallet(exchange);
      for (const [limit, expected] of [
        [1, 1],
        [2, 2],
        [500, 3],
      ] as const) {
        const doc = (await activity(`address=${address}&exchanges=${exchange}&limit=${limit}`)).exchanges[
          exchange
        ];
        assert.ok(doc);
        const rows = lists(exchange, doc);
        const held = exchange === 'limitless' ? rows.clob : rows.positions;
        assert.equal(held?.length, expected, `${exchange} limit=${limit}: positions`);
        for (const [name, list] of Object.entries(rows)) {
          assert.ok(list.length <= limit, `${exchange} limit=${limit}: ${name} has ${list.length}`);
        }
        if (exchange === 'opinion') assert.equal((doc.positions as { total: number }).total, 3);
      }
      const byDefault = (await activity(`address=${address}&exchanges=${exchange}`)).exchanges[exchange];
      assert.deepEqual(
        byDefault,
        (await activity(`address=${address}&exchanges=${exchange}&limit=100`)).exchanges[exchange],
      );
    }
  });

  test('a wallet nobody has seen is an empty document, not an error', async () => {
    const body = await activity(`address=0x${randomBytes(20).toString('hex')}`);
    for (const exchange of ACTIVE) assert.deepEqual(body.status[exchange], { success: true });
    assert.deepEqual(body.exchanges.polymarket?.positions, []);
    assert.deepEqual((docOf(body, 'opinion').positions as { list: unknown[] }).list, []);
    assert.deepEqual(body.exchanges.predictfun?.positions, []);
  });
});

describe('parameters', () => {
  test('the address is required; a malformed one is a 400 naming each exchange asked, before any venue call', async () => {
    assertError(await cat.server.request('/api/v1/user-activity'), 400, 'missing_parameter');
    assertError(
      await cat.server.request('/api/v1/user-activity?exchanges=polymarket'),
      400,
      'missing_parameter',
    );
    const good = wallet('polymarket').slice(2).toLowerCase();
    const malformed = [
      'not-an-address',
      good, // no 0x
      `0x${good.slice(1)}`, // 39 digits
      `0x${good}0`, // 41 digits
      `0x${good.slice(1)}g`,
      `0X${good}`,
      ` 0x${good}`,
      `0x${'ab'.repeat(32)}`, // a 32-byte value (a private key pasted by mistake)
    ];
    await resetRequestCounts();
    for (const address of malformed) {
      const res = await cat.server.request(`/api/v1/user-activity?address=${encodeURIComponent(address)}`);
      const body = assertError(res, 400, 'validation_error');
      assert.deepEqual(
        (body.validation_errors as string[]).map((e) => e.split(': ')[1]?.split(' ')[0]),
        ACTIVE,
        `${address}: every exchange asked is named`,
      );
      assert.ok(!res.text.includes(address.trim()), `${address}: the value is not echoed`);
    }
    const one = assertError(
      await cat.server.request('/api/v1/user-activity?address=0x12&exchanges=limitless'),
      400,
      'validation_error',
    );
    assert.deepEqual(one.validation_errors, [
      'address is not 0x followed by 40 hex digits: limitless needs an EVM address on Base (0x and 40 hex digits)',
    ]);
    assert.deepEqual(await walletRequests(), {}, 'no venue was asked for a malformed address');
  });

  test('lower-case, upper-case and EIP-55 checksummed addresses are accepted; a wrong checksum is a 400', async () => {
    const lower = `0x${'5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'}`;
    const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'; // EIP-55's own test vector
    const upper = `0x${lower.slice(2).toUpperCase()}`;
    for (const address of [lower, checksummed, upper]) {
      const body = await activity(`address=${address}&exchanges=polymarket,limitless`);
      assert.deepEqual(body.status, { polymarket: { success: true }, limitless: { success: true } }, address);
    }
    const wrong = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
    // The adapters accept any case, so only the route's own check stands between this address and the venues: no
    // venue request proves the check runs before the fan-out (a malformed address the adapters refuse too cannot).
    await resetRequestCounts();
    const res = assertError(
      await cat.server.request(`/api/v1/user-activity?address=${wrong}`),
      400,
      'validation_error',
    );
    assert.match(String(res.error), /EIP-55 checksum/);
    assert.deepEqual(await walletRequests(), {});
  });

  test('exchanges: a list in any order, duplicates and blanks ignored; empty means the default', async () => {
    const address = wallet('predictfun');
    const two = await activity(`address=${address}&exchanges=predictfun,polymarket`);
    assert.deepEqual(Object.keys(two.status).sort(), ['polymarket', 'predictfun']);
    assert.deepEqual(Object.keys(two.exchanges).sort(), ['polymarket', 'predictfun']);
    const dup = await activity(
      `address=${address}&exchanges=${encodeURIComponent(' limitless, ,limitless,')}`,
    );
    assert.deepEqual(dup.status, { limitless: { success: true } });
    const empty = await activity(`address=${address}&exchanges=`);
    assert.deepEqual(Object.keys(empty.status), ACTIVE);
  });

  test('an unknown exchange is a 404 and kalshi (no public wallet activity) a 501, before any venue call', async () => {
    const address = wallet('polymarket');
    await resetRequestCounts();
    for (const exchanges of ['nowhere', 'polymarket,nowhere', 'Polymarket']) {
      assertError(
        await cat.server.request(`/api/v1/user-activity?address=${address}&exchanges=${exchanges}`),
        404,
        'exchange_not_found',
      );
    }
    for (const exchanges of ['kalshi', 'polymarket,kalshi']) {
      const body = assertError(
        await cat.server.request(`/api/v1/user-activity?address=${address}&exchanges=${exchanges}`),
        501,
        'not_supported',
      );
      assert.match(String(body.error), /kalshi does not support fetch_user_activity/);
    }
    assert.deepEqual(await walletRequests(), {});
  });

  test('limit is an integer from 1 to 500; anything else, and an unknown parameter, is a 400', async () => {
    const address = wallet('polymarket');
    for (const limit of ['0', '501', '-1', '1.5', 'abc', '']) {
      assertError(
        await cat.server.request(
          `/api/v1/user-activity?address=${address}&exchanges=polymarket&limit=${limit}`,
        ),
        400,
        'validation_error',
      );
    }
    assertError(
      await cat.server.request(`/api/v1/user-activity?address=${address}&wallet=${address}`),
      400,
      'validation_error',
    );
    assertError(
      await cat.server.request(`/api/v1/user-activity?address=${address}`, { key: null }),
      401,
      'unauthorized',
    );
  });
});

describe('an exchange that fails never fails the call', () => {
  test('a venue answering 500 is status {success: false, error}; the others answer; it recovers', async () => {
    const address = wallet('polymarket');
    await control('polymarket', 'POST', 'faults', { error_rate: 1, error_status: 500 });
    let body: Activity;
    try {
      body = await activity(`address=${address}`);
    } finally {
      await control('polymarket', 'DELETE', 'faults');
    }
    assert.equal(body.status.polymarket?.success, false);
    assert.match(body.status.polymarket?.error ?? '', /polymarket/);
    assert.equal(body.exchanges.polymarket, undefined, 'a failed exchange has no document');
    for (const exchange of ACTIVE.filter((e) => e !== 'polymarket')) {
      assert.deepEqual(body.status[exchange], { success: true });
      assert.ok(body.exchanges[exchange]);
    }
    const recovered = await activity(`address=${address}&exchanges=polymarket`);
    assert.deepEqual(recovered.status, { polymarket: { success: true } });
    assert.equal((docOf(recovered, 'polymarket').positions as unknown[]).length, 3);
  });

  test('venues holding their answer past the deadline are status {success: false}; the others answer', async () => {
    const address = wallet('limitless');
    const late: ExchangeId[] = ['polymarket', 'predictfun'];
    // Polymarket processes the request and holds its answer back; Predict.fun waits before processing it.
    await control('polymarket', 'POST', 'faults', { hold_response_ms: 120_000 });
    await control('predictfun', 'POST', 'faults', { latency_ms: 120_000 });
    let res: TestResponse;
    try {
      const pending = cat.server.request(`/api/v1/user-activity?address=${address}`);
      // Both venues have the request and hold it: the call can only end by our deadline.
      for (const exchange of late) {
        await waitFor(
          async () => ((await control(exchange, 'GET', 'held')) as { held: number }).held > 0,
          10_000,
          `${exchange} holding the request`,
        );
      }
      res = await pending;
    } finally {
      for (const exchange of late) await control(exchange, 'DELETE', 'faults');
    }
    assert.equal(res.status, 200, res.text);
    const body = res.body as Activity;
    for (const exchange of late) {
      assert.deepEqual(body.status[exchange], {
        success: false,
        error: `${exchange} did not answer within ${DEADLINE_MS} ms`,
      });
      assert.equal(body.exchanges[exchange], undefined);
    }
    assert.deepEqual(body.status.opinion, { success: true });
    assert.deepEqual(body.status.limitless, { success: true });
    assert.equal((docOf(body, 'limitless').positions as { clob: unknown[] }).clob.length, 3);
  });

  test('every venue failing is still a 200 with every status false and no document', async () => {
    for (const exchange of ACTIVE)
      await control(exchange, 'POST', 'faults', { error_rate: 1, error_status: 503 });
    let body: Activity;
    try {
      body = await activity(`address=${wallet('opinion')}`);
    } finally {
      for (const exchange of ACTIVE) await control(exchange, 'DELETE', 'faults');
    }
    assert.deepEqual(body.exchanges, {});
    assert.deepEqual(Object.keys(body.status), ACTIVE);
    for (const exchange of ACTIVE) {
      assert.equal(body.status[exchange]?.success, false);
      assert.ok((body.status[exchange]?.error ?? '').length > 0);
    }
  });
});

test('the operator keys the venues are asked with, and the caller’s key, never reach a log line', async () => {
  // Venues built here so that their operator keys are known: Opinion and Predict.fun call even public data with one.
  const opinionSim = await startOpinionSim({ seed: 7, size: 10 });
  const predictfunSim = await startPredictfunSim({ seed: 7, size: 10 });
  const opinion = createOpinionAdapter({
    restUrl: opinionSim.url,
    apiKey: opinionSim.apiKey,
    pollIntervalMs: 60_000,
    timeoutMs: 10_000,
    unpaced: true,
  });
  const predictfun = createPredictfunAdapter({
    restUrl: predictfunSim.url,
    rpcUrl: predictfunSim.rpcUrl,
    collateralToken: predictfunSim.collateralToken,
    apiKey: predictfunSim.apiKey,
    pollIntervalMs: 60_000,
    timeoutMs: 10_000,
    unpaced: true,
  });
  const server = await startTestServer({
    config: { logLevel: 'trace', accessLog: true, venues: { timeoutMs: 2_000 } },
    venues: [opinion, predictfun],
  });
  const faults = async (url: string, settings: unknown) => {
    const res = await fetch(`${url}/__sim/faults`, {
      method: settings === null ? 'DELETE' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(settings === null ? {} : { body: JSON.stringify(settings) }),
    });
    assert.ok(res.ok);
  };
  const secrets = new Map([
    ['admin key', server.adminKey],
    ['Opinion operator key', opinionSim.apiKey],
    ['Predict.fun API key', predictfunSim.apiKey],
  ]);
  try {
    const { address } = await opinionSim.createAccount({ positions: 2 });
    const path = `/api/v1/user-activity?address=${address}`;
    const answers: TestResponse[] = [];
    const ok = await server.request(path);
    assert.deepEqual((ok.body as Activity).status, {
      opinion: { success: true },
      predictfun: { success: true },
    });
    answers.push(ok);
    // Failures: the venues' error answers and our retries are logged, with the error and its cause.
    await faults(opinionSim.control, { error_rate: 1, error_status: 500 });
    await faults(predictfunSim.control, { error_rate: 1, error_status: 401 });
    try {
      answers.push(await server.request(path));
    } finally {
      await faults(opinionSim.control, null);
      await faults(predictfunSim.control, null);
    }
    await faults(opinionSim.control, { latency_ms: 60_000 });
    try {
      answers.push(await server.request(path));
    } finally {
      await faults(opinionSim.control, null);
    }
    answers.push(await server.request('/api/v1/user-activity?address=0xnot'));
    assert.equal((answers[2]?.body as Activity | undefined)?.status.opinion?.success, false);
    for (const res of answers) {
      for (const [what, value] of secrets) assert.ok(!res.text.includes(value), `the ${what} in an answer`);
    }
  } finally {
    await server.stop();
    await Promise.allSettled([
      opinion.close?.(),
      predictfun.close?.(),
      opinionSim.close(),
      predictfunSim.close(),
    ]);
  }
  const lines = server.logs
    .join('')
    .split('\n')
    .filter((l) => l.trim().length > 0);
  const parsed = lines.map((l) => JSON.parse(l) as { level: number; exchange?: string; msg?: string });
  // The log paths under test really ran: each venue's failure, the late answer, the retries, the access log.
  assert.ok(parsed.some((l) => l.level === 40 && l.exchange === 'opinion' && /500/.test(l.msg ?? '')));
  assert.ok(parsed.some((l) => l.level === 40 && l.exchange === 'predictfun'));
  assert.ok(parsed.some((l) => l.exchange === 'opinion' && /did not answer within/.test(l.msg ?? '')));
  assert.ok(parsed.some((l) => l.msg === 'venue request will be retried'));
  assert.ok(parsed.some((l) => l.msg === 'incoming request'));
  const leaks: string[] = [];
  for (const [what, value] of secrets) {
    const line = lines.find((l) => l.includes(value));
    if (line) leaks.push(`${what} in: ${line.slice(0, 400)}`);
  }
  assert.deepEqual(leaks, [], leaks.join('\n'));
});

test('without the Opinion operator key its entry says so, as the mirrored product does, and the call is a 200', async () => {
  const opinionSim = await startOpinionSim({ seed: 7, size: 10 });
  const keyless = createOpinionAdapter({
    restUrl: opinionSim.url,
    pollIntervalMs: 60_000,
    timeoutMs: 10_000,
    unpaced: true,
  });
  const server = await startTestServer({ venues: [keyless] });
  try {
    const { address } = await opinionSim.createAccount({ positions: 1 });
    const res = await server.request(`/api/v1/user-activity?address=${address}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      exchanges: {},
      status: { opinion: { success: false, error: 'OPINION_API_KEY not configured' } },
    });
  } finally {
    await server.stop();
    await Promise.allSettled([keyless.close?.(), opinionSim.close()]);
  }
});
