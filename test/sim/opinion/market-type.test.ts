// GET /market's `marketType` filter, value by value, under both readings Opinion's sources give it (the official
// SDK's TopicType 0 binary / 1 categorical / 2 all, which the simulator serves by default, and the OpenAPI text's
// 0 all / 1 categorical / 2 binary), an absent value (every row) and invalid ones (refused), checked against the
// simulator's manifest; and the official SDK's TopicType values through the SDK itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, TopicType } from '@opinion-labs/opinion-clob-sdk';
import { generatePrivateKey } from 'viem/accounts';
import { type OpinionSim, startOpinionSim } from '../../../sim/opinion/index.js';

interface Row {
  marketId: number;
  marketType: number;
  childMarkets?: Array<{ marketId: number }>;
}
interface Answer {
  status: number;
  body: { errno: number; errmsg: string; result: { list: Row[]; total: number } | null };
}

const SEED = 13;
const SIZE = 90;

async function get(sim: OpinionSim, query: string): Promise<Answer> {
  const res = await fetch(`${sim.url}/market?${query}`, { headers: { apikey: sim.apiKey } });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

/** Every row of a listing, walked page by page to the end; ids sorted. */
async function ids(sim: OpinionSim, query: string): Promise<number[]> {
  const out: number[] = [];
  for (let page = 1; page < 1_000; page++) {
    const { status, body } = await get(sim, `${query}${query ? '&' : ''}page=${page}&limit=20`);
    assert.equal(status, 200, JSON.stringify(body));
    const list = body.result?.list ?? [];
    out.push(...list.map((r) => r.marketId));
    if (list.length < 20) return out.sort((a, b) => a - b);
  }
  assert.fail('listing did not end');
}

/** Binary and categorical row ids from the unfiltered listing, checked against the manifest first. */
async function groundTruth(
  sim: OpinionSim,
): Promise<{ all: number[]; binary: number[]; categorical: number[] }> {
  const rows: Row[] = [];
  for (let page = 1; page < 1_000; page++) {
    const list = (await get(sim, `page=${page}&limit=20`)).body.result?.list ?? [];
    rows.push(...list);
    if (list.length < 20) break;
  }
  const manifest = (await (await fetch(`${sim.control}/__sim/manifest`)).json()) as Record<string, string[]>;
  const tradable = rows.flatMap((r) =>
    r.marketType === 1 ? (r.childMarkets ?? []).map((c) => c.marketId) : [r.marketId],
  );
  assert.deepEqual(
    tradable.map(String).sort(),
    Object.values(manifest).flat().sort(),
    'the unfiltered listing holds every market of the manifest',
  );
  const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
  const binary = sorted(rows.filter((r) => r.marketType === 0).map((r) => r.marketId));
  const categorical = sorted(rows.filter((r) => r.marketType === 1).map((r) => r.marketId));
  assert.ok(binary.length > 0 && categorical.length > 0);
  return { all: sorted([...binary, ...categorical]), binary, categorical };
}

const INVALID = ['3', '-1', '7', 'abc', '1.5', '2x'];

for (const reading of ['sdk', 'openapi'] as const) {
  describe(`marketType read as the ${reading} says`, () => {
    let sim: OpinionSim;
    let truth: Awaited<ReturnType<typeof groundTruth>>;
    before(async () => {
      sim = await startOpinionSim({ seed: SEED, size: SIZE, marketTypeReading: reading });
      truth = await groundTruth(sim);
    });
    after(() => sim.close());

    test('each value lists exactly its rows; no value lists every row', async () => {
      const expected =
        reading === 'sdk'
          ? { 0: truth.binary, 1: truth.categorical, 2: truth.all }
          : { 0: truth.all, 1: truth.categorical, 2: truth.binary };
      assert.deepEqual(await ids(sim, 'marketType=0'), expected[0]);
      assert.deepEqual(await ids(sim, 'marketType=1'), expected[1]);
      assert.deepEqual(await ids(sim, 'marketType=2'), expected[2]);
      assert.deepEqual(await ids(sim, ''), truth.all);
      assert.deepEqual(await ids(sim, 'marketType='), truth.all);
      const total = (await get(sim, 'marketType=1&limit=1')).body.result?.total;
      assert.equal(total, truth.categorical.length, 'total counts the filtered rows');
    });

    test('a value outside 0..2 is refused as a bad parameter', async () => {
      for (const value of INVALID) {
        const { status, body } = await get(sim, `marketType=${value}`);
        assert.deepEqual(
          [status, body],
          [400, { errno: 10001, errmsg: 'invalid parameter: marketType', result: null }],
          value,
        );
      }
    });
  });
}

describe("the official SDK's TopicType against the simulator's default reading", () => {
  let sim: OpinionSim;
  let truth: Awaited<ReturnType<typeof groundTruth>>;
  before(async () => {
    sim = await startOpinionSim({ seed: SEED, size: SIZE });
    truth = await groundTruth(sim);
  });
  after(() => sim.close());

  test('BINARY, CATEGORICAL and ALL (its default) list what their names say', async () => {
    const client = new Client({
      host: sim.url,
      apiKey: sim.apiKey,
      chainId: 56,
      // Never contacted: only REST reads are made.
      rpcUrl: 'http://127.0.0.1:9',
      privateKey: generatePrivateKey(),
      multiSigAddress: `0x${'2'.repeat(40)}`,
      marketCacheTtl: 0,
    });
    const walk = async (topicType?: TopicType) => {
      const out: number[] = [];
      for (let page = 1; page < 1_000; page++) {
        const res = await client.getMarkets({ ...(topicType === undefined ? {} : { topicType }), page });
        const list = res.result.list as unknown as Row[];
        out.push(...list.map((m) => m.marketId));
        if (list.length < 20) return out.sort((a, b) => a - b);
      }
      assert.fail('SDK walk did not end');
    };
    assert.deepEqual(await walk(TopicType.BINARY), truth.binary);
    assert.deepEqual(await walk(TopicType.CATEGORICAL), truth.categorical);
    assert.deepEqual(await walk(TopicType.ALL), truth.all);
    assert.deepEqual(await walk(), truth.all);
  });
});
