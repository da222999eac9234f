// The official Opinion SDK (@opinion-labs/opinion-clob-sdk, its generated OpenAPI client inside) pointed at
// the simulator as a conformance client: paths, query names, the apikey header, the envelope and the result
// shapes are whatever the SDK sends and reads. Only REST reads are used; nothing touches a chain.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, OpenApiError } from '@opinion-labs/opinion-clob-sdk';
import { generatePrivateKey } from 'viem/accounts';
import { type OpinionSim, startOpinionSim } from '../../../sim/opinion/index.js';

let sim: OpinionSim;
before(async () => {
  sim = await startOpinionSim({ seed: 9, size: 60 });
});
after(() => sim.close());

function sdk(apiKey: string): Client {
  return new Client({
    host: sim.url,
    apiKey,
    chainId: 56,
    // Never contacted: only REST methods are called.
    rpcUrl: 'http://127.0.0.1:9',
    privateKey: generatePrivateKey(),
    multiSigAddress: `0x${'2'.repeat(40)}`,
    marketCacheTtl: 0,
  });
}

type Any = Record<string, unknown>;

test('market data through the SDK: list, binary, categorical, slug, labels, book, latest price, price history', async () => {
  const client = sdk(sim.apiKey);
  const markets = await client.getMarkets({ page: 1, limit: 20 });
  assert.equal(markets.errno, 0);
  assert.ok(markets.result.total > 20);
  assert.equal(markets.result.list.length, 20);
  const list = markets.result.list as Any[];
  const binary = list.find((m) => m.childMarkets === undefined && m.status === 2) as Any;
  assert.ok(binary, 'an activated binary market on page 1');

  const detail = await client.getMarket(binary.marketId as number, false);
  assert.equal(detail.errno, 0);
  assert.equal((detail.result.data as Any).yesTokenId, binary.yesTokenId);

  let parent: Any | undefined;
  for (let page = 1; !parent && page < 10; page++) {
    const found = (await client.getMarkets({ page, limit: 20 })).result.list as Any[];
    parent = found.find((m) => Array.isArray(m.childMarkets));
  }
  assert.ok(parent, 'a categorical market');
  const categorical = await client.getCategoricalMarket(parent.marketId as number);
  assert.equal(
    ((categorical.result.data as Any).childMarkets as Any[]).length,
    (parent.childMarkets as Any[]).length,
  );
  const bySlug = await client.getMarketBySlug(parent.slug as string);
  assert.equal((bySlug.result.data as Any).marketId, parent.marketId);

  const labels = await client.getLabels();
  assert.ok(labels.result.list.some((l) => l.labelName === 'Politics'));

  const token = binary.yesTokenId as string;
  const book = await client.getOrderbook(token);
  assert.equal(book.errno, 0);
  assert.equal(book.result.tokenId, token);
  assert.ok((book.result.bids ?? []).length > 0 && (book.result.asks ?? []).length > 0);
  const latest = await client.getLatestPrice(token);
  assert.ok(Number(latest.result.price) > 0 && Number(latest.result.price) < 1);
  const end = Math.floor(Date.now() / 1000);
  const history = await client.getPriceHistory(token, { interval: '1h', startAt: end - 86_400, endAt: end });
  assert.ok((history.result.history ?? []).length >= 23);
});

test("a user's data through the SDK: positions, trades, balances and identity of the key's wallet", async () => {
  const { credentials, address } = await sim.createAccount({ positions: 2 });
  const client = sdk(credentials.api_key);
  const positions = await client.getMyPositions();
  assert.equal(positions.errno, 0);
  assert.equal(positions.result.list?.length, 2);
  const trades = await client.getMyTrades({ limit: 10 });
  assert.equal(trades.result.list?.length, 2);
  // The SDK swaps the wei fee for its formatted twin, as the real payload requires.
  const first = (trades.result.list ?? [])[0] as Any | undefined;
  assert.equal(typeof first?.fee, 'string');
  const balances = await client.getMyBalances();
  assert.equal(balances.result.walletAddress, address);
  assert.equal(balances.result.balances?.[0]?.totalBalance, '10000');
  const auth = await client.getUserAuth();
  assert.equal(auth.result.walletAddress, address);
});

test('the SDK surfaces a refused key as its OpenApiError with the venue message', async () => {
  await assert.rejects(sdk('not-a-key').getMarkets(), (error: unknown) => {
    assert.ok(error instanceof OpenApiError);
    assert.equal(error.message, 'Invalid API key');
    return true;
  });
});
