// The Polymarket simulator's catalogue on the sandbox chain: the first `chainMarkets` markets are conditions the
// simulator prepared as oracle, answering to the chain's condition id and to the CTF position ids as token ids (read
// back from the ConditionalTokens contract here); markets past the limit keep their generated ids and are not on
// chain; /__sim/chain/resolve resolves a listed market on chain and in the CLOB's view, once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPublicClient, type Hex, http, parseAbi, zeroHash } from 'viem';
import { type PolymarketSim, startPolymarketSim } from '../../../sim/polymarket/index.js';
import { type SandboxChain, startSandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';

const LISTED = 3;
const ctfAbi = parseAbi([
  'function getOutcomeSlotCount(bytes32 conditionId) view returns (uint256)',
  'function payoutDenominator(bytes32 conditionId) view returns (uint256)',
  'function payoutNumerators(bytes32 conditionId, uint256 index) view returns (uint256)',
  'function getCollectionId(bytes32 parentCollectionId, bytes32 conditionId, uint256 indexSet) view returns (bytes32)',
  'function getPositionId(address collateralToken, bytes32 collectionId) pure returns (uint256)',
]);

interface ClobMarket {
  condition_id: Hex;
  closed: boolean;
  accepting_orders: boolean;
  tokens: Array<{ token_id: string; winner: boolean }>;
}

let chain: SandboxChain;
let sim: PolymarketSim;
let client: ReturnType<typeof publicClient>;

function publicClient(rpcUrl: string) {
  return createPublicClient({ transport: http(rpcUrl) });
}

before(async () => {
  chain = await startSandboxChain();
  client = publicClient(chain.rpcUrl);
  sim = await startPolymarketSim({
    seed: 5,
    size: 30,
    chainMarkets: LISTED,
    chain: {
      rpcUrl: chain.rpcUrl,
      chainId: chain.chainId,
      contracts: chain.contracts,
      minterKey: chain.minterKey,
    },
  });
});
after(async () => {
  await sim?.close();
  await chain?.close();
});

async function markets(): Promise<ClobMarket[]> {
  const res = await fetch(`${sim.urls.clob}/markets`);
  return ((await res.json()) as { data: ClobMarket[] }).data;
}

const ctf = { abi: ctfAbi } as const;
/** One reader for the several view functions of the same ABI (the name is checked at run time by viem). */
const read = <T>(functionName: string, args: readonly unknown[]) =>
  client.readContract({
    ...ctf,
    address: chain.contracts.conditionalTokens,
    functionName,
    args,
  } as unknown as Parameters<typeof client.readContract>[0]) as Promise<T>;

async function positionIds(conditionId: Hex): Promise<string[]> {
  return Promise.all(
    [1n, 2n].map(async (indexSet) => {
      const collection = await read<Hex>('getCollectionId', [zeroHash, conditionId, indexSet]);
      return (await read<bigint>('getPositionId', [chain.contracts.collateral, collection])).toString();
    }),
  );
}

async function resolve(conditionId: string, winner: 'Yes' | 'No') {
  return fetch(`${sim.control}/__sim/chain/resolve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ condition_id: conditionId, winner }),
  });
}

test('the first markets are prepared conditions whose token ids are the CTF position ids; the rest are not on chain', async () => {
  const all = await markets();
  assert.ok(all.length > LISTED);
  for (const [i, m] of all.entries()) {
    const slots = await read<bigint>('getOutcomeSlotCount', [m.condition_id]);
    if (i < LISTED) {
      assert.equal(slots, 2n, `market ${i} is a binary condition on chain`);
      assert.deepEqual(
        m.tokens.map((t) => t.token_id),
        await positionIds(m.condition_id),
      );
      // Looked up by its on-chain ids, the market is found.
      const byId = await fetch(`${sim.urls.clob}/markets/${m.condition_id}`);
      assert.equal(byId.status, 200);
      if (!m.closed) {
        const book = await fetch(`${sim.urls.clob}/book?token_id=${m.tokens[0]?.token_id}`);
        assert.equal(book.status, 200, 'its book answers to the on-chain token id');
      }
    } else {
      assert.equal(slots, 0n, `market ${i} is not on chain`);
    }
  }
});

test('resolving: a listed active market once, on chain and in the CLOB; an unlisted one is refused', async () => {
  const all = await markets();
  const listed = all.slice(0, LISTED).find((m) => !m.closed);
  assert.ok(listed, 'a listed active market');
  const res = await resolve(listed.condition_id, 'Yes');
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(await read<bigint>('payoutDenominator', [listed.condition_id]), 1n);
  assert.equal(await read<bigint>('payoutNumerators', [listed.condition_id, 0n]), 1n);
  const after = (await (await fetch(`${sim.urls.clob}/markets/${listed.condition_id}`)).json()) as ClobMarket;
  assert.equal(after.closed, true);
  assert.equal(after.accepting_orders, false);
  assert.deepEqual(
    after.tokens.map((t) => t.winner),
    [true, false],
  );
  assert.equal((await resolve(listed.condition_id, 'No')).status, 400, 'already resolved');
  assert.equal(await read<bigint>('payoutNumerators', [listed.condition_id, 0n]), 1n);

  const unlisted = all.slice(LISTED).find((m) => !m.closed);
  assert.ok(unlisted);
  assert.equal((await resolve(unlisted.condition_id, 'Yes')).status, 400);
  const still = (await (
    await fetch(`${sim.urls.clob}/markets/${unlisted.condition_id}`)
  ).json()) as ClobMarket;
  assert.equal(still.closed, false);
});
