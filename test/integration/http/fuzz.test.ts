// Property-based fuzzing of the HTTP edge, over real HTTP to the real server on both storage backends, with a
// populated catalogue: the server runs what `omnibook sandbox` runs (the five simulators with the real adapters, the
// local chain) and a sync pass fills its store before the fuzz starts. Every route comes from the server's own
// OpenAPI document (trading, builder and on-chain routes included), plus unknown paths and the undocumented system
// routes; requests mix hostile input with real values (stored markets, outcomes, paper accounts' credentials, real
// order ids) so they reach the handlers. Whatever a client sends, the server must never answer 5xx (503
// service_unavailable retryable, and 501 not_supported, excepted), every error must be the JSON {error, code,
// retryable}, and a rejected request must leave the store as it found it (test/support/http-fuzz/state.ts).
//
// Reproduce a failure with the seed and path fast-check prints:  FUZZ_SEED=<seed> FUZZ_PATH=<path> node
// scripts/run-tests.mjs fuzz.  Fuzz longer with FUZZ_SCALE=<factor> (default 1, sized for well under 2 minutes per
// backend on 2 cores), or run `npm run bench:fuzz` (100,000 requests per backend).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { type KeyLimits, keyLimits, requestSpecs } from '../../support/http-fuzz/arbitraries.js';
import {
  type Answer,
  bodyOf,
  describeFailure,
  problemsWith,
  type RequestSpec,
  send,
} from '../../support/http-fuzz/requests.js';
import { type FuzzBackend, type FuzzStack, startFuzzStack } from '../../support/http-fuzz/stack.js';
import { forbiddenChanges, storeState } from '../../support/http-fuzz/state.js';
import { assertProperty } from '../../support/property.js';

const SCALE = Number(process.env.FUZZ_SCALE ?? '1');
const REQUEST_RUNS = Math.max(1, Math.round(2000 * SCALE));
const KEY_LIMIT_RUNS = Math.max(1, Math.round(150 * SCALE));
const REPLAY = process.env.FUZZ_SEED
  ? { seed: Number(process.env.FUZZ_SEED), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}) }
  : {};

const BACKENDS: FuzzBackend[] = ['sqlite + memory', 'postgres + redis'];

/** Throws the whole exchange when the answer breaks the contract (with `extra` expectations of one property). */
function judge(backend: string, request: RequestSpec, answer: Answer, extra: string[] = []): void {
  const problems = [...problemsWith(request, answer), ...extra];
  if (problems.length > 0) throw new Error(describeFailure(backend, request, answer, problems));
}

// Counterexamples found so far: fast-check tries them before any random run, on every run. A `{name}` in an
// example's path stands for the corpus's first real value of that name (ids differ from run to run).
const EXAMPLES: Array<[RequestSpec]> = [
  // PostgreSQL: limit=1e309 is coerced to Infinity, passes validation and reaches SQL ("invalid input syntax for
  // type bigint") → 500. Fixed by the non-finite number guard (src/http/plugins/finite-numbers.ts).
  [
    {
      method: 'GET',
      path: '/api/v1/builder/users',
      query: 'limit=1e309',
      key: { kind: 'builder' },
      headers: {},
      body: null,
    },
  ],
  // A body of arrays nested thousands deep overflowed the first, recursive, non-finite number guard → 500.
  [
    {
      method: 'DELETE',
      path: '/',
      query: '',
      key: { kind: 'builder' },
      headers: {},
      body: { contentType: 'application/json', text: `${'['.repeat(6000)}${']'.repeat(6000)}` },
    },
  ],
  [
    {
      method: 'POST',
      path: '/api/v1/keys',
      query: '',
      key: { kind: 'builder' },
      headers: {},
      body: { contentType: 'application/json', text: `${'['.repeat(6000)}${']'.repeat(6000)}` },
    },
  ],
  // A refused end-user change (over the builder's pool) committed the lock's bump of builders.pool_version.
  [
    {
      method: 'PATCH',
      path: '/api/v1/builder/users/{customer_id}',
      query: '',
      key: { kind: 'builder' },
      headers: {},
      body: { contentType: 'application/json', text: '{"qps_limit":181197.99318043084}' },
    },
  ],
  // HEAD has no body to show 501 not_supported (kalshi has no approvals): the oracle judges its GET twin instead.
  [
    {
      method: 'HEAD',
      path: '/api/v1/approvals',
      query: 'exchange=kalshi',
      key: { kind: 'scale' },
      headers: {},
      body: null,
    },
  ],
  // Found by the response-schema check: fetch normalises `//..`, and Fastify routes an empty parameter.
  [
    {
      method: 'DELETE',
      path: '/api/v1/keys//..',
      query: '',
      key: { kind: 'none' },
      headers: {},
      body: { contentType: 'application/json', text: '[]' },
    },
  ],
  [{ method: 'DELETE', path: '/api/v1/keys/', query: '', key: { kind: 'none' }, headers: {}, body: null }],
];

/** The example's `{name}` placeholders in its path, replaced with real values (generated paths have no braces). */
function withCorpusIds(spec: RequestSpec, stack: FuzzStack): RequestSpec {
  const path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(
      Object.hasOwn(stack.corpus.byName, name) ? (stack.corpus.byName[name]?.[0] ?? name) : name,
    ),
  );
  return path === spec.path ? spec : { ...spec, path };
}

for (const backend of BACKENDS) {
  describe(`HTTP fuzz over a populated catalogue (${backend})`, () => {
    let stack: FuzzStack;

    before(async () => {
      stack = await startFuzzStack(backend);
    });

    after(async () => {
      await stack?.stop();
    });

    test('the OpenAPI document yields every route family to fuzz, and the catalogue is populated', () => {
      const seen = stack.routes.map((r) => `${r.method} ${r.template}`);
      for (const expected of [
        'GET /api/v1/exchanges',
        'GET /api/v1/markets',
        'GET /api/v1/orderbook',
        'POST /api/v1/keys',
        'DELETE /api/v1/keys/{key_id}',
        'POST /api/v1/orders',
        'DELETE /api/v1/orders/{order_id}',
        'POST /api/v1/builder/users',
        'PATCH /api/v1/builder/users/{customer_id}',
        'POST /api/v1/approvals',
        'POST /api/v1/polymarket/ctf/split',
      ]) {
        assert.ok(seen.includes(expected), `${expected} not found among ${seen.join(', ')}`);
      }
      assert.ok(stack.markets >= 100, `only ${stack.markets} markets stored`);
    });

    test('no client input gets a 5xx, an error outside {error, code, retryable}, or a change when refused', async (t) => {
      const { server, keys } = stack;
      const statuses = new Map<string, number>();
      let state = await storeState(server.runtime);
      await assertProperty(
        fc.asyncProperty(requestSpecs(stack.routes, stack.protectedIds, stack.corpus), async (spec) => {
          const request = withCorpusIds(spec, stack);
          const answer = await send(server.url, request, keys);
          statuses.set(String(answer.status), (statuses.get(String(answer.status)) ?? 0) + 1);
          const now = await storeState(server.runtime);
          const changed = answer.status >= 400 ? await forbiddenChanges(server.runtime, state, now) : [];
          state = now;
          judge(
            backend,
            request,
            answer,
            changed.map((c) => `a refused request changed the store: ${c}`),
          );
        }),
        { numRuns: REQUEST_RUNS, includeErrorInReport: true, ...REPLAY, examples: EXAMPLES },
      );
      // How deep the fuzz went: mostly 400s would mean it no longer gets past validation.
      const tally = [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}×${n}`);
      t.diagnostic(`${REQUEST_RUNS} requests, statuses ${tally.join(' ')}`);
      const reached = (s: string) => statuses.get(s) ?? 0;
      assert.ok(reached('200') + reached('201') > 0, 'no request got past validation');
      // The fuzz keys must have survived (nothing the fuzz sent revoked them).
      assert.equal((await server.request('/api/v1/usage', { key: keys.scale })).status, 200);
      assert.equal((await server.request('/api/v1/usage', { key: keys.admin })).status, 200);
    });

    test('a key created with any limits the schema accepts stays usable: 200 or 429 with Retry-After', async () => {
      const { server, keys } = stack;
      await assertProperty(
        fc.asyncProperty(keyLimits, async (limits: KeyLimits) => {
          const create: RequestSpec = {
            method: 'POST',
            path: '/api/v1/keys',
            query: '',
            key: { kind: 'admin' },
            headers: {},
            body: { contentType: 'application/json', text: JSON.stringify(limits) },
          };
          const created = await send(server.url, create, keys);
          judge(
            backend,
            create,
            created,
            created.status === 201 ? [] : ['limits the schema allows were refused'],
          );
          const newKey = (created.body as { key: string }).key;
          for (let i = 0; i < 3; i++) {
            const use: RequestSpec = {
              method: 'GET',
              path: '/api/v1/usage',
              query: '',
              key: { kind: 'raw', value: newKey },
              headers: {},
              body: null,
            };
            const res = await send(server.url, use, keys);
            const expected =
              i === 0
                ? res.status === 200
                : res.status === 200 || (res.status === 429 && bodyOf(res).code === 'rate_limit_exceeded');
            const what = i === 0 ? 'admitted' : '200 or 429 rate_limit_exceeded';
            judge(`${backend}, key made with ${JSON.stringify(limits)}`, use, res, [
              ...(expected ? [] : [`request ${i + 1} of a fresh key must be ${what}`]),
            ]);
          }
        }),
        { numRuns: KEY_LIMIT_RUNS, includeErrorInReport: true, ...REPLAY, examples: [] },
      );
    });
  });
}
