// Trading settles on the sandbox chain: orders placed through our API on a market the Polymarket simulator listed on
// chain are matched by its CLOB and settled by its exchange contract the way the CTF Exchange settles them — the
// buyer's collateral to the seller and the seller's ERC-1155 tokens to the buyer, a YES+NO set minted when two
// buyers meet and merged when two sellers do — so the tokens bought are real ERC-1155 balances, and redeem through our API after resolution pays
// them out. Every balance is read back from the chain with ethers, an implementation independent of the viem code
// on both the server's and the simulator's side.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
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
import {
  connect,
  EXCHANGE_V2,
  hmac,
  NEG_RISK_EXCHANGE_V2,
  type Recorder,
  waitFor,
} from '../../sim/polymarket/support.js';
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
/** Active binary markets with room inside the spread, found once before any test resolves one. */
let roomy: Awaited<ReturnType<typeof roomyMarkets>>;
/** The simulator's hosts; its user WebSocket channel listens on a port of its own. */
let simUrls: { clob: string; wsUser: string };

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
  roomy = await roomyMarkets();
  simUrls = (await (await fetch(`${polymarket.control}/__sim/urls`)).json()) as typeof simUrls;
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

/** 5 of NO at `noPrice` placed by `account`, which must rest: inside the spread it is a YES order on the other side. */
async function restNo(market: Market, account: Account, side: 'buy' | 'sell', noPrice: number) {
  const resting = await post('/api/v1/orders?exchange=polymarket', account, {
    market_id: market.exchange_market_id,
    outcome: market.outcomes[1]?.name as string,
    side,
    price: noPrice,
    size: 5,
  });
  assert.equal(resting.status, 200, resting.text);
  assert.equal((resting.body as { status: string }).status, 'open', resting.text);
  return resting;
}

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

  before(async () => {
    // Deposit-wallet accounts that have not approved anything yet: their funds sit in their wallet contracts.
    seller = await simAccount({ kind: 'deposit', approved: false });
    buyer = await simAccount({ kind: 'deposit', approved: false });
    assert.ok(roomy.length >= 4, 'four active binary markets with room inside the spread');
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
    const [ask] = b.asks[0] as [number, number];
    const yesPrice = round(ask - b.tick_size);
    const noPrice = round(1 - yesPrice);
    // A NO bid at 1 − p is a YES ask at p inside the spread: it rests.
    await restNo(market, seller, 'buy', noPrice);
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
    const b = await book(market, outcome);
    const [bid] = b.bids[0] as [number, number];
    const [ask] = b.asks[0] as [number, number];
    assert.ok(ask - bid >= 1.5 * b.tick_size, 'room inside the spread');
    const yesPrice = round(bid + b.tick_size);
    const noPrice = round(1 - yesPrice);
    const [yesHeld, noHeld] = await Promise.all([tokens(funder(buyer), yesId), tokens(funder(seller), noId)]);
    assert.ok(yesHeld >= 5_000_000n && noHeld >= 5_000_000n);
    // A NO ask at 1 − p is a YES bid at p inside the spread: it rests.
    await restNo(market, seller, 'sell', noPrice);
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

/**
 * Fees named outright: on chain id 137 ethers would otherwise ask Polygon's gas station, which a sandbox has no
 * reason to reach.
 */
const FEES = { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };

/** The simulator's user channel for an account, recording every frame (as our adapter's user stream subscribes). */
async function userChannel(account: Account): Promise<Recorder> {
  const rec = await connect(simUrls.wsUser);
  rec.send({
    type: 'user',
    auth: {
      apiKey: account.credentials.clob_api_key,
      secret: account.credentials.clob_api_secret,
      passphrase: account.credentials.clob_api_passphrase,
    },
  });
  return rec;
}

type TradeEvent = { event_type: string; id: string; status: string; transaction_hash: string };
const tradeEvents = (rec: Recorder, id?: string): TradeEvent[] =>
  (rec.events as unknown as TradeEvent[]).filter(
    (e) => e.event_type === 'trade' && (id === undefined || e.id === id),
  );

/** The simulator's own CLOB `GET /balance-allowance` for a legacy account's EOA (signature type 0), L2-signed. */
async function clobBalance(
  account: Account,
  query: string,
): Promise<{ balance: string; allowances: Record<string, string> }> {
  const ts = String(Math.floor(Date.now() / 1000));
  const path = '/balance-allowance';
  const res = await fetch(`${simUrls.clob}${path}?${query}`, {
    headers: {
      POLY_ADDRESS: account.address,
      POLY_SIGNATURE: hmac(account.credentials.clob_api_secret as string, ts, 'GET', path),
      POLY_TIMESTAMP: ts,
      POLY_API_KEY: account.credentials.clob_api_key as string,
      POLY_PASSPHRASE: account.credentials.clob_api_passphrase as string,
    },
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as { balance: string; allowances: Record<string, string> };
}

describe('the ledger follows the chain', () => {
  // Legacy accounts trade from their EOA (signature type 0), whose key the test holds, so it can move their funds
  // on chain behind the CLOB's back, as a trader can.
  let maker: Account;
  let taker: Account;

  before(async () => {
    [maker, taker] = await Promise.all([simAccount({}), simAccount({})]);
  });

  test('a match whose settlement fails on chain is reported FAILED with its transaction and moves nothing anywhere', async () => {
    const { market, outcome, book: b, clob } = roomy[2]!;
    const [yesId, noId] = clob.tokens.map((t) => t.token_id) as [string, string];
    const [ask] = b.asks[0] as [number, number];
    const yesPrice = round(ask - b.tick_size);
    const noPrice = round(1 - yesPrice);
    // The maker rests a NO buy (a YES ask inside the spread), checked against its collateral and allowance on chain…
    const resting = await restNo(market, maker, 'buy', noPrice);
    const makerOrderId = (resting.body as { id: string }).id;
    // …then takes the exchange's allowance back on chain, so the CLOB's match can no longer settle.
    const signer = new Wallet(maker.credentials.private_key as string, provider);
    const revoke = new Contract(
      chain.contracts.collateral,
      ['function approve(address, uint256) returns (bool)'],
      signer,
    );
    await (await revoke.getFunction('approve')(EXCHANGE_V2, 0n, FEES)).wait();

    const channel = await userChannel(taker);
    const chainBefore = await Promise.all([
      usdc(taker.address),
      usdc(maker.address),
      tokens(taker.address, yesId),
      tokens(maker.address, noId),
      usdc(FEE_COLLECTOR),
    ]);
    const hit = await post('/api/v1/orders?exchange=polymarket', taker, {
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price: yesPrice,
      size: 5,
    });
    assert.equal(hit.status, 200, hit.text);
    const hitOrder = hit.body as { id: string; status: string; filled: number };
    assert.equal(hitOrder.filled, 0, hit.text);

    // The user channel: MATCHED with no transaction yet, then FAILED with the reverted settlement's hash.
    const events = await waitFor(() => {
      const e = tradeEvents(channel);
      return e.some((x) => x.status === 'FAILED') && e;
    });
    channel.ws.close();
    assert.deepEqual(
      events.map((e) => e.status),
      ['MATCHED', 'FAILED'],
    );
    assert.equal(events[0]?.transaction_hash, '');
    const failedTx = events[1]?.transaction_hash as string;
    const receipt = await provider.getTransactionReceipt(failedTx);
    assert.equal(receipt?.status, 0, 'the settlement transaction reverted');
    assert.equal(receipt?.to?.toLowerCase(), EXCHANGE_V2.toLowerCase());

    // Nothing moved on chain, and the ledger agrees: no fill, no position, both orders done with nothing filled.
    assert.deepEqual(
      await Promise.all([
        usdc(taker.address),
        usdc(maker.address),
        tokens(taker.address, yesId),
        tokens(maker.address, noId),
        usdc(FEE_COLLECTOR),
      ]),
      chainBefore,
    );
    // The taker's order never filled: the CLOB answers it `unmatched`, which our API reports as rejected. The
    // maker's resting order, consumed by the failed match, rests no more (the CLOB lists neither as open).
    assert.equal(hitOrder.status, 'rejected', hit.text);
    for (const [account, id] of [
      [taker, hitOrder.id],
      [maker, makerOrderId],
    ] as const) {
      const fills = await server.request(
        `/api/v1/fills?exchange=polymarket&market_id=${market.exchange_market_id}`,
        { headers: header(account) },
      );
      assert.equal(fills.status, 200, fills.text);
      assert.deepEqual(fills.body, [], fills.text);
      const positions = await server.request('/api/v1/positions?exchange=polymarket', {
        headers: header(account),
      });
      assert.equal(positions.status, 200, positions.text);
      assert.ok(
        !(positions.body as Array<{ market_id: string }>).some(
          (p) => p.market_id === market.exchange_market_id,
        ),
        positions.text,
      );
      const open = await server.request('/api/v1/orders?exchange=polymarket', { headers: header(account) });
      assert.equal(open.status, 200, open.text);
      assert.ok(!(open.body as Array<{ id: string }>).some((o) => o.id === id), open.text);
    }
  });

  test('a settled match is reported MATCHED, then MINED and CONFIRMED with the real transaction hash', async () => {
    const { market, outcome, clob } = roomy[3]!;
    const [yesId] = clob.tokens.map((t) => t.token_id) as [string, string];
    const [ask] = (await book(market, outcome)).asks[0] as [number, number];
    const channel = await userChannel(taker);
    const before = await tokens(taker.address, yesId);
    const hit = await post('/api/v1/orders?exchange=polymarket', taker, {
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price: ask,
      size: 5,
    });
    assert.equal(hit.status, 200, hit.text);
    assert.equal((hit.body as { status: string }).status, 'filled', hit.text);
    const events = await waitFor(() => {
      const e = tradeEvents(channel);
      return e.some((x) => x.status === 'CONFIRMED') && e;
    });
    channel.ws.close();
    assert.deepEqual(
      events.map((e) => e.status),
      ['MATCHED', 'MINED', 'CONFIRMED'],
    );
    assert.equal(events[0]?.transaction_hash, '');
    const hash = events[1]?.transaction_hash as string;
    assert.equal(events[2]?.transaction_hash, hash);
    const receipt = await provider.getTransactionReceipt(hash);
    assert.equal(receipt?.status, 1, 'the settlement transaction succeeded');
    assert.equal(await tokens(taker.address, yesId), before + 5_000_000n);

    // Our API's public trades (the Data API tape) carry the same transaction.
    const trades = await server.request(
      `/api/v1/trades?exchange=polymarket&market_id=${market.exchange_market_id}&outcome=${outcome}`,
    );
    assert.equal(trades.status, 200, trades.text);
    const mine = (trades.body as { trades: Array<{ tx_hash: string | null }> }).trades.filter(
      (t) => t.tx_hash === hash,
    );
    assert.ok(mine.length > 0, trades.text);
  });

  test('two concurrent buys that the funds on chain cover only once: one fills, and the ledger agrees with the chain', async () => {
    const { market, outcome, clob } = roomy[1]!;
    const [yesId] = clob.tokens.map((t) => t.token_id) as [string, string];
    const b = await book(market, outcome);
    const [ask] = b.asks[0] as [number, number];
    const price = round(Math.min(ask + 2 * b.tick_size, 1 - b.tick_size));
    // Enough for one order of 10 (and its fee), not for two.
    const racer = await simAccount({ collateral: String(base(price * 10 * 1.5)) });
    const place = () =>
      post('/api/v1/orders?exchange=polymarket', racer, {
        market_id: market.exchange_market_id,
        outcome,
        side: 'buy',
        price,
        size: 10,
        params: { order_type: 'ioc' },
      });
    const answers = await Promise.all([place(), place()]);
    const filled = answers.filter(
      (a) => a.status === 200 && (a.body as { status: string }).status === 'filled',
    );
    assert.equal(filled.length, 1, answers.map((a) => a.text).join('\n'));
    // The other was refused on its funds at intake (the first had settled) or matched and then failed on chain.
    const other = answers.find((a) => !filled.includes(a))!;
    if (other.status === 200) assert.equal((other.body as { filled: number }).filled, 0, other.text);
    else assertError(other, 402, 'insufficient_funds');

    assert.equal(await tokens(racer.address, yesId), 10_000_000n);
    const positions = await server.request('/api/v1/positions?exchange=polymarket', {
      headers: header(racer),
    });
    assert.equal(positions.status, 200, positions.text);
    const held = (positions.body as Array<{ market_id: string; size: number }>).find(
      (p) => p.market_id === market.exchange_market_id,
    );
    assert.equal(held?.size, 10, positions.text);
    const fills = await server.request(
      `/api/v1/fills?exchange=polymarket&market_id=${market.exchange_market_id}`,
      {
        headers: header(racer),
      },
    );
    assert.equal(fills.status, 200, fills.text);
    const total = (fills.body as Array<{ size: number }>).reduce((sum, f) => sum + f.size, 0);
    assert.equal(round(total), 10, fills.text);
  });

  test('balance and allowances are read on chain: GET /balance follows funds moved on chain, the CLOB answers per spender', async () => {
    const { clob } = roomy[3]!;
    const [yesId] = clob.tokens.map((t) => t.token_id) as [string, string];
    const balance = async () => {
      const res = await server.request('/api/v1/balance?exchange=polymarket&refresh=true', {
        headers: header(taker),
      });
      assert.equal(res.status, 200, res.text);
      return BigInt((res.body as { raw: { balance: string } }).raw.balance);
    };
    assert.equal(await balance(), await usdc(taker.address));
    // Funds moved on chain, not through the CLOB: the ledger never hears of it, the answer does.
    const signer = new Wallet(taker.credentials.private_key as string, provider);
    const pay = new Contract(
      chain.contracts.collateral,
      ['function transfer(address, uint256) returns (bool)'],
      signer,
    );
    await (await pay.getFunction('transfer')(maker.address, 1_234_567n, FEES)).wait();
    const now = await usdc(taker.address);
    assert.equal(await balance(), now);

    // The CLOB's own answer, collateral: the chain's balance and each V2 spender's allowance (the account approved
    // both exchanges; nothing approved the neg-risk adapter).
    const collateralAnswer = await clobBalance(taker, 'asset_type=COLLATERAL&signature_type=0');
    assert.equal(collateralAnswer.balance, now.toString());
    const MAX = ((1n << 256n) - 1n).toString();
    assert.equal(collateralAnswer.allowances[EXCHANGE_V2], MAX);
    assert.equal(collateralAnswer.allowances[NEG_RISK_EXCHANGE_V2], MAX);
    // The maker took its allowance to the V2 exchange back on chain in the first test.
    const makerAnswer = await clobBalance(maker, 'asset_type=COLLATERAL&signature_type=0');
    assert.equal(makerAnswer.allowances[EXCHANGE_V2], '0');
    assert.equal(makerAnswer.balance, (await usdc(maker.address)).toString());

    // Conditional: the ERC-1155 balance the taker bought on chain, and the exchanges as approved operators.
    const tokenAnswer = await clobBalance(taker, `asset_type=CONDITIONAL&token_id=${yesId}&signature_type=0`);
    assert.equal(tokenAnswer.balance, (await tokens(taker.address, yesId)).toString());
    assert.equal(tokenAnswer.allowances[EXCHANGE_V2], MAX);
    assert.notEqual(tokenAnswer.balance, '0');
  });
});

/** Where the simulated exchange sends taker fees (sim/polymarket/settlement.ts). */
const FEE_COLLECTOR = '0x00000000000000000000000000000000000fee01';
