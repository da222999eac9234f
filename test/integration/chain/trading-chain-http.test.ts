// Trading settles on the sandbox chain: orders placed through our API on a market the Polymarket simulator listed on
// chain are matched by its CLOB and settled by its exchange contract the way the CTF Exchange settles them — the
// buyer's collateral to the seller and the seller's ERC-1155 tokens to the buyer, a YES+NO set minted when two
// buyers meet and merged when two sellers do — so the tokens bought are real ERC-1155 balances, and redeem through our API after resolution pays
// them out. Every balance is read back from the chain with ethers, an implementation independent of the viem code
// on both the server's and the simulator's side.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Contract, JsonRpcProvider } from 'ethers';
import type { SandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
import { startSandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
import {
  connectSandboxChain,
  type RunningSimVenue,
  SIM_VENUE_LAUNCHERS,
} from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import type { Market } from '../../../src/domain/market.js';
import { MarketsRepo } from '../../../src/store/markets-repo.js';
import { walkVenue } from '../../support/catalogue.js';
import { assertError } from '../../support/error-shape.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { createSimAccount, type SimAccount } from '../../support/sim-accounts.js';

let chain: SandboxChain;
let polymarket: RunningSimVenue;
let server: TestServer;
let markets: Market[];
let provider: JsonRpcProvider;
let collateral: Contract;
let ctf: Contract;

before(async () => {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  chain = await startSandboxChain();
  // Size 30: every market of the catalogue is listed on chain (the first 50 are), a few with room in the spread.
  polymarket = await SIM_VENUE_LAUNCHERS.polymarket!(config, { size: 30, seed: 7, chain });
  server = await startTestServer({ venues: [polymarket.adapter], chain: connectSandboxChain(chain, config) });
  const walked = await walkVenue(polymarket.adapter);
  await new MarketsRepo(server.runtime.store.db, server.runtime.store.dialect).upsertMany(
    walked.markets,
    new Date().toISOString(),
  );
  markets = walked.markets.filter((m) => m.status === 'active');
  provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true });
  collateral = new Contract(
    chain.contracts.collateral,
    ['function balanceOf(address) view returns (uint256)'],
    provider,
  );
  ctf = new Contract(
    chain.contracts.conditionalTokens,
    ['function balanceOf(address, uint256) view returns (uint256)'],
    provider,
  );
});
after(async () => {
  provider?.destroy();
  await server?.stop();
  await polymarket?.close();
  await chain?.close();
});

type Account = SimAccount;

const simAccount = (body: Record<string, unknown>): Promise<Account> =>
  createSimAccount(polymarket.control, body);

const funder = (a: Account) => a.credentials.funder_address as string;

const header = (account: Account) => ({
  'x-exchange-credentials': Buffer.from(JSON.stringify(account.credentials)).toString('base64'),
});

const post = (path: string, account: Account, body: unknown) =>
  server.request(path, { method: 'POST', headers: header(account), body });

const usdc = async (owner: string): Promise<bigint> =>
  (await collateral.getFunction('balanceOf')(owner)) as bigint;
const tokens = async (owner: string, id: string): Promise<bigint> =>
  (await ctf.getFunction('balanceOf')(owner, BigInt(id))) as bigint;

interface Book {
  bids: [number, number][];
  asks: [number, number][];
  tick_size: number;
}

async function book(market: Market, outcome: string): Promise<Book> {
  const res = await server.request(
    `/api/v1/orderbook?exchange=polymarket&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=${outcome}`,
  );
  assert.equal(res.status, 200, res.text);
  return res.body as Book;
}

interface ClobMarket {
  condition_id: string;
  neg_risk: boolean;
  tokens: Array<{ token_id: string; outcome: string }>;
}

/** The simulator's own CLOB listing of a market (its condition and ERC-1155 token ids), read for set-up. */
async function clobMarket(market: Market): Promise<ClobMarket> {
  const res = await fetch(`${polymarket.control}/markets`);
  const { data } = (await res.json()) as { data: ClobMarket[] };
  // Polymarket's market id is the condition id.
  const found = data.find((m) => m.condition_id === market.exchange_market_id);
  assert.ok(found, `no CLOB market for ${market.exchange_market_id}`);
  return found;
}

/** Distinct active binary markets with at least two ticks between the best bid and ask of the first outcome. */
async function roomyMarkets(): Promise<
  Array<{ market: Market; outcome: string; book: Book; clob: ClobMarket }>
> {
  const out = [];
  for (const market of markets) {
    const outcome = market.outcomes[0]?.name;
    if (!outcome || market.outcomes.length !== 2) continue;
    const b = await book(market, outcome);
    const [bid] = b.bids[0] ?? [];
    const [ask] = b.asks[0] ?? [];
    if (bid === undefined || ask === undefined || ask - bid < 1.5 * b.tick_size) continue;
    const clob = await clobMarket(market);
    if (!clob.neg_risk) out.push({ market, outcome, book: b, clob });
  }
  return out;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;
const base = (n: number) => BigInt(Math.round(n * 1e6));

async function approveAll(account: Account): Promise<void> {
  const res = await post('/api/v1/approvals?exchange=polymarket', account, { all: true });
  assert.equal(res.status, 200, res.text);
  assert.equal((res.body as { data: { all_succeeded: boolean } }).data.all_succeeded, true, res.text);
}

describe('trades settle on the sandbox chain', () => {
  let seller: Account;
  let buyer: Account;
  let roomy: Awaited<ReturnType<typeof roomyMarkets>>;

  before(async () => {
    // Deposit-wallet accounts that have not approved anything yet: their funds sit in their wallet contracts.
    seller = await simAccount({ kind: 'deposit', approved: false });
    buyer = await simAccount({ kind: 'deposit', approved: false });
    roomy = await roomyMarkets();
    assert.ok(roomy.length >= 2, 'two active binary markets with room inside the spread');
  });

  test('without approvals on chain the CLOB refuses the order, as Polymarket does, and nothing moves', async () => {
    const { market, outcome, book: b } = roomy[0]!;
    const [ask] = b.asks[0] as [number, number];
    const before = await usdc(funder(buyer));
    assertError(
      await post('/api/v1/orders?exchange=polymarket', buyer, {
        market_id: market.exchange_market_id,
        outcome,
        side: 'buy',
        price: ask,
        size: 5,
      }),
      402,
      'insufficient_funds',
    );
    assert.equal(await usdc(funder(buyer)), before);
  });

  test('a buy against a resting sell moves the ERC-1155 tokens to the buyer and the collateral to the seller; redeem pays out', async () => {
    const { market, outcome, book: b, clob } = roomy[0]!;
    const [yesId, noId] = clob.tokens.map((t) => t.token_id) as [string, string];
    assert.equal(clob.tokens[0]?.outcome, outcome);
    await approveAll(seller);
    await approveAll(buyer);

    // The seller holds YES only on chain (a gasless split through our API); the CLOB reads that balance.
    const split = await post('/api/v1/polymarket/ctf/split', seller, {
      condition_id: clob.condition_id,
      amount: '10000000',
    });
    assert.equal(split.status, 200, split.text);
    assert.equal(await tokens(funder(seller), yesId), 10_000_000n);

    const [ask] = b.asks[0] as [number, number];
    const price = round(ask - b.tick_size);
    const resting = await post('/api/v1/orders?exchange=polymarket', seller, {
      market_id: market.exchange_market_id,
      outcome,
      side: 'sell',
      price,
      size: 5,
    });
    assert.equal(resting.status, 200, resting.text);
    assert.equal((resting.body as { status: string }).status, 'open', resting.text);

    const [sellerUsdc, buyerUsdc, feeBefore] = await Promise.all([
      usdc(funder(seller)),
      usdc(funder(buyer)),
      usdc(FEE_COLLECTOR),
    ]);
    const hit = await post('/api/v1/orders?exchange=polymarket', buyer, {
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price,
      size: 5,
    });
    assert.equal(hit.status, 200, hit.text);
    assert.equal((hit.body as { status: string }).status, 'filled', hit.text);

    // Read on chain: 5 YES moved from the seller's wallet to the buyer's, 5 × price of collateral the other way,
    // and whatever else the buyer paid is the taker fee, now with the fee collector.
    assert.equal(await tokens(funder(buyer), yesId), 5_000_000n);
    assert.equal(await tokens(funder(seller), yesId), 5_000_000n);
    const paid = base(price * 5);
    assert.equal(await usdc(funder(seller)), sellerUsdc + paid);
    const buyerSpent = buyerUsdc - (await usdc(funder(buyer)));
    assert.ok(buyerSpent >= paid, `the buyer paid ${buyerSpent}, at least ${paid}`);
    assert.equal((await usdc(FEE_COLLECTOR)) - feeBefore, buyerSpent - paid);

    // Our API sees the position the chain holds.
    const positions = await server.request('/api/v1/positions?exchange=polymarket', {
      headers: header(buyer),
    });
    assert.equal(positions.status, 200, positions.text);
    const held = (positions.body as Array<{ market_id: string; outcome: string; size: number }>).find(
      (p) => p.market_id === market.exchange_market_id && p.outcome === outcome,
    );
    assert.equal(held?.size, 5, positions.text);

    // The simulator resolves the market (its oracle reports on chain); the buyer redeems through our API.
    const resolved = await fetch(`${polymarket.control}/__sim/chain/resolve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ condition_id: clob.condition_id, winner: 'Yes' }),
    });
    assert.equal(resolved.status, 200, await resolved.text());
    const beforeRedeem = await usdc(funder(buyer));
    const redeem = await post('/api/v1/polymarket/ctf/redeem', buyer, { condition_id: clob.condition_id });
    assert.equal(redeem.status, 200, redeem.text);
    assert.equal((redeem.body as { status: string }).status, 'confirmed');
    assert.equal(await tokens(funder(buyer), yesId), 0n);
    assert.equal(await tokens(funder(buyer), noId), 0n);
    assert.equal(await usdc(funder(buyer)), beforeRedeem + 5_000_000n);
  });

  test('a buy of YES against a resting buy of NO mints a set: each buyer gets its side, paying its price', async () => {
    const { market, outcome, book: b, clob } = roomy[1]!;
    const [yesId, noId] = clob.tokens.map((t) => t.token_id) as [string, string];
    const other = market.outcomes[1]?.name as string;
    const [ask] = b.asks[0] as [number, number];
    const yesPrice = round(ask - b.tick_size);
    const noPrice = round(1 - yesPrice);
    // A NO bid at 1 − p is a YES ask at p inside the spread: it rests.
    const resting = await post('/api/v1/orders?exchange=polymarket', seller, {
      market_id: market.exchange_market_id,
      outcome: other,
      side: 'buy',
      price: noPrice,
      size: 5,
    });
    assert.equal(resting.status, 200, resting.text);
    assert.equal((resting.body as { status: string }).status, 'open', resting.text);
    const [noBuyerUsdc, yesBuyerUsdc] = await Promise.all([usdc(funder(seller)), usdc(funder(buyer))]);
    const hit = await post('/api/v1/orders?exchange=polymarket', buyer, {
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price: yesPrice,
      size: 5,
    });
    assert.equal(hit.status, 200, hit.text);
    assert.equal((hit.body as { status: string }).status, 'filled', hit.text);
    assert.equal(await tokens(funder(buyer), yesId), 5_000_000n);
    assert.equal(await tokens(funder(seller), noId), 5_000_000n);
    assert.equal(await usdc(funder(seller)), noBuyerUsdc - base(noPrice * 5));
    assert.ok(yesBuyerUsdc - (await usdc(funder(buyer))) >= base(yesPrice * 5));
  });

  test('a buy against the house market maker: the house delivers real tokens too', async () => {
    const { market, outcome, clob } = roomy[1]!;
    const [yesId] = clob.tokens.map((t) => t.token_id) as [string, string];
    const before = await tokens(funder(buyer), yesId);
    const [ask, size] = (await book(market, outcome)).asks[0] as [number, number];
    assert.ok(size >= 5);
    const hit = await post('/api/v1/orders?exchange=polymarket', buyer, {
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price: ask,
      size: 5,
    });
    assert.equal(hit.status, 200, hit.text);
    assert.equal((hit.body as { status: string }).status, 'filled', hit.text);
    assert.equal(await tokens(funder(buyer), yesId), before + 5_000_000n);
  });

  test('a sell of YES against a resting sell of NO merges the set: each seller is paid its price', async () => {
    const { market, outcome, clob } = roomy[1]!;
    const [yesId, noId] = clob.tokens.map((t) => t.token_id) as [string, string];
    const other = market.outcomes[1]?.name as string;
    const b = await book(market, outcome);
    const [bid] = b.bids[0] as [number, number];
    const [ask] = b.asks[0] as [number, number];
    assert.ok(ask - bid >= 1.5 * b.tick_size, 'room inside the spread');
    const yesPrice = round(bid + b.tick_size);
    const noPrice = round(1 - yesPrice);
    const [yesHeld, noHeld] = await Promise.all([tokens(funder(buyer), yesId), tokens(funder(seller), noId)]);
    assert.ok(yesHeld >= 5_000_000n && noHeld >= 5_000_000n);
    // A NO ask at 1 − p is a YES bid at p inside the spread: it rests.
    const resting = await post('/api/v1/orders?exchange=polymarket', seller, {
      market_id: market.exchange_market_id,
      outcome: other,
      side: 'sell',
      price: noPrice,
      size: 5,
    });
    assert.equal(resting.status, 200, resting.text);
    assert.equal((resting.body as { status: string }).status, 'open', resting.text);
    const [noSellerUsdc, yesSellerUsdc] = await Promise.all([usdc(funder(seller)), usdc(funder(buyer))]);
    const hit = await post('/api/v1/orders?exchange=polymarket', buyer, {
      market_id: market.exchange_market_id,
      outcome,
      side: 'sell',
      price: yesPrice,
      size: 5,
    });
    assert.equal(hit.status, 200, hit.text);
    assert.equal((hit.body as { status: string }).status, 'filled', hit.text);
    assert.equal(await tokens(funder(buyer), yesId), yesHeld - 5_000_000n);
    assert.equal(await tokens(funder(seller), noId), noHeld - 5_000_000n);
    assert.equal(await usdc(funder(seller)), noSellerUsdc + base(noPrice * 5));
    // The taker is paid its side of the merged set, less the taker fee.
    const received = (await usdc(funder(buyer))) - yesSellerUsdc;
    assert.ok(received > 0n && received <= base(yesPrice * 5), `the YES seller got ${received}`);
  });
});

/** Where the simulated exchange sends taker fees (sim/polymarket/settlement.ts). */
const FEE_COLLECTOR = '0x00000000000000000000000000000000000fee01';
