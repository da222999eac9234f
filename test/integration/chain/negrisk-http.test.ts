// Neg-risk markets end to end on the sandbox chain: the real server, the Polymarket simulator (oracle of its
// neg-risk events through the NegRiskAdapter, and the relayer) and a local anvil with our NegRiskAdapter equivalent
// at Polygon's address. The ids are checked with ethers, independently of the viem code under test: a neg-risk
// option's condition is the CTF condition of (adapter, question id, 2) and its token ids are CTF position ids on the
// NegRiskAdapter's WrappedCollateral (Polygon's address from Polymarket/neg-risk-ctf-adapter addresses.json), not on
// pUSD. Split and merge with `neg_risk` go through the NegRiskCollateralAdapter, redemption with amounts through the
// NegRiskAdapter; every refused request is shown to have submitted nothing (the relayer's own request count).
// Orders on a neg-risk option settle on chain at the neg-risk exchange address, whose settlement contract mints and
// merges sets through the NegRiskAdapter, so the traders receive the neg-risk token ids.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Contract, JsonRpcProvider, keccak256, solidityPacked, ZeroHash } from 'ethers';
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

const NEG_RISK_ADAPTER = '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296';
const WRAPPED_COLLATERAL = '0x3A3BD7bb9528E159577F7C2e685CC81A765002E2';

let chain: SandboxChain;
let polymarket: RunningSimVenue;
let server: TestServer;
let provider: JsonRpcProvider;
let ctfContract: Contract;
let adapter: Contract;
let pusd: Contract;

before(async () => {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  chain = await startSandboxChain();
  // Seed 4, size 8: two binary markets, a three-option neg-risk event, another binary market; all listed on chain.
  polymarket = await SIM_VENUE_LAUNCHERS.polymarket!(config, { size: 8, seed: 4, chain });
  server = await startTestServer({ venues: [polymarket.adapter], chain: connectSandboxChain(chain, config) });
  provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true });
  ctfContract = new Contract(
    chain.contracts.conditionalTokens,
    [
      'function getOutcomeSlotCount(bytes32) view returns (uint256)',
      'function payoutNumerators(bytes32, uint256) view returns (uint256)',
      'function payoutDenominator(bytes32) view returns (uint256)',
      'function getCollectionId(bytes32, bytes32, uint256) view returns (bytes32)',
      'function getPositionId(address, bytes32) pure returns (uint256)',
      'function balanceOf(address, uint256) view returns (uint256)',
    ],
    provider,
  );
  adapter = new Contract(
    NEG_RISK_ADAPTER,
    [
      'function getOracle(bytes32) view returns (address)',
      'function getQuestionCount(bytes32) view returns (uint256)',
      'function getDetermined(bytes32) view returns (bool)',
      'function getResult(bytes32) view returns (uint256)',
      'function wcol() view returns (address)',
    ],
    provider,
  );
  pusd = new Contract(
    chain.contracts.collateral,
    ['function balanceOf(address) view returns (uint256)'],
    provider,
  );
});
after(async () => {
  provider?.destroy();
  await server?.stop();
  await polymarket?.close();
  await chain?.close();
});

interface ClobMarket {
  condition_id: string;
  question_id: string;
  neg_risk: boolean;
  neg_risk_market_id: string;
  closed: boolean;
  tokens: Array<{ token_id: string; winner: boolean }>;
}

async function clobMarkets(): Promise<ClobMarket[]> {
  const res = await fetch(`${polymarket.control}/markets`);
  assert.equal(res.status, 200);
  return ((await res.json()) as { data: ClobMarket[] }).data;
}

async function clobMarket(conditionId: string): Promise<ClobMarket> {
  const res = await fetch(`${polymarket.control}/markets/${conditionId}`);
  assert.equal(res.status, 200);
  return (await res.json()) as ClobMarket;
}

function simResolve(conditionId: string, winner: 'Yes' | 'No'): Promise<Response> {
  return fetch(`${polymarket.control}/__sim/chain/resolve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ condition_id: conditionId, winner }),
  });
}

async function relayerSubmits(): Promise<number> {
  const res = await fetch(`${polymarket.control}/__sim/requests`);
  const { counts } = (await res.json()) as { counts: Record<string, number> };
  return Object.entries(counts)
    .filter(([route]) => route.includes('POST /submit'))
    .reduce((n, [, c]) => n + c, 0);
}

const header = (account: SimAccount) => ({
  'x-exchange-credentials': Buffer.from(JSON.stringify(account.credentials)).toString('base64'),
});

const ctf = (op: string, account: SimAccount, body: unknown) =>
  server.request(`/api/v1/polymarket/ctf/${op}`, { method: 'POST', headers: header(account), body });

async function depositWallet(
  groups: Record<string, boolean>,
): Promise<{ account: SimAccount; wallet: string }> {
  const account = await createSimAccount(polymarket.control, { kind: 'deposit' });
  const res = await server.request('/api/v1/approvals?exchange=polymarket', {
    method: 'POST',
    headers: header(account),
    body: groups,
  });
  assert.equal((res.body as { data: { all_succeeded: boolean } }).data.all_succeeded, true, res.text);
  return { account, wallet: account.credentials.funder_address as string };
}

/** YES and NO ids of a condition with `collateral` as collateral token, computed by the CTF itself. */
async function positionIdsOn(collateral: string, conditionId: string): Promise<string[]> {
  return Promise.all(
    [1n, 2n].map(async (indexSet) => {
      const collection = await ctfContract.getFunction('getCollectionId')(ZeroHash, conditionId, indexSet);
      return ((await ctfContract.getFunction('getPositionId')(collateral, collection)) as bigint).toString();
    }),
  );
}

async function held(wallet: string, ids: readonly string[]): Promise<bigint[]> {
  return Promise.all(ids.map((id) => ctfContract.getFunction('balanceOf')(wallet, id) as Promise<bigint>));
}

const collateralOf = (wallet: string) => pusd.getFunction('balanceOf')(wallet) as Promise<bigint>;

async function negRiskMarkets(): Promise<ClobMarket[]> {
  const markets = (await clobMarkets()).filter((m) => m.neg_risk);
  assert.ok(markets.length >= 3, 'a neg-risk event with three options');
  return markets;
}

describe('neg-risk markets on the sandbox chain', () => {
  test('each option is a NegRiskAdapter question: adapter-oracled condition, token ids on the wrapped collateral', async () => {
    assert.equal(await adapter.getFunction('wcol')(), WRAPPED_COLLATERAL);
    const markets = await negRiskMarkets();
    const marketId = markets[0]?.neg_risk_market_id as string;
    assert.match(marketId, /^0x[0-9a-f]{62}00$/);
    assert.notEqual(
      await adapter.getFunction('getOracle')(marketId),
      '0x0000000000000000000000000000000000000000',
    );
    assert.equal(await adapter.getFunction('getQuestionCount')(marketId), BigInt(markets.length));
    for (const [index, m] of markets.entries()) {
      assert.equal(m.neg_risk_market_id, marketId);
      assert.equal(BigInt(m.question_id), BigInt(marketId) + BigInt(index));
      assert.equal(
        m.condition_id,
        keccak256(solidityPacked(['address', 'bytes32', 'uint256'], [NEG_RISK_ADAPTER, m.question_id, 2])),
      );
      assert.equal(await ctfContract.getFunction('getOutcomeSlotCount')(m.condition_id), 2n);
      const tokens = m.tokens.map((t) => t.token_id);
      assert.deepEqual(tokens, await positionIdsOn(WRAPPED_COLLATERAL, m.condition_id));
      // Not the ids a standard market of the same condition would have.
      const standard = await positionIdsOn(chain.contracts.collateral, m.condition_id);
      assert.notDeepEqual(tokens, standard);
    }
  });

  test('split and merge with neg_risk, the simulator resolves through the adapter, redeem with amounts', async () => {
    const { account, wallet } = await depositWallet({ all: true });
    const [market, sibling] = await negRiskMarkets();
    assert.ok(market && sibling && !market.closed);
    const ids = market.tokens.map((t) => t.token_id);
    const start = await collateralOf(wallet);
    assert.ok(start >= 10_000_000n);

    const split = await ctf('split', account, {
      condition_id: market.condition_id,
      amount: '5000000',
      neg_risk: true,
    });
    assert.equal(split.status, 200, split.text);
    assert.equal((split.body as { status: string }).status, 'confirmed');
    assert.deepEqual(await held(wallet, ids), [5_000_000n, 5_000_000n]);
    assert.equal(await collateralOf(wallet), start - 5_000_000n);
    // Every unit of those positions is backed by wrapped collateral holding the pUSD.
    assert.ok((await collateralOf(WRAPPED_COLLATERAL)) >= 5_000_000n);

    const merge = await ctf('merge', account, {
      condition_id: market.condition_id,
      amount: '2000000',
      neg_risk: true,
    });
    assert.equal(merge.status, 200, merge.text);
    assert.equal((merge.body as { status: string }).status, 'confirmed');
    assert.deepEqual(await held(wallet, ids), [3_000_000n, 3_000_000n]);
    assert.equal(await collateralOf(wallet), start - 3_000_000n);

    // Without neg_risk the same condition's standard ids are read: the wallet holds none, so nothing to merge.
    const submits = await relayerSubmits();
    assertError(
      await ctf('merge', account, { condition_id: market.condition_id, amount: '1' }),
      402,
      'insufficient_funds',
    );
    // Not resolved yet, and more than held: refused before anything is submitted.
    assertError(
      await ctf('redeem', account, {
        condition_id: market.condition_id,
        neg_risk: true,
        amounts: ['1', '0'],
      }),
      400,
      'validation_error',
    );
    assertError(
      await ctf('merge', account, { condition_id: market.condition_id, amount: '3000001', neg_risk: true }),
      402,
      'insufficient_funds',
    );
    assert.equal(await relayerSubmits(), submits);

    const resolved = await simResolve(market.condition_id, 'Yes');
    assert.equal(resolved.status, 200, await resolved.text());
    assert.equal(await ctfContract.getFunction('payoutDenominator')(market.condition_id), 1n);
    assert.equal(await ctfContract.getFunction('payoutNumerators')(market.condition_id, 0), 1n);
    assert.equal(await ctfContract.getFunction('payoutNumerators')(market.condition_id, 1), 0n);
    assert.equal(await adapter.getFunction('getDetermined')(market.neg_risk_market_id), true);
    assert.equal(await adapter.getFunction('getResult')(market.neg_risk_market_id), 0n);
    const after = await clobMarket(market.condition_id);
    assert.equal(after.closed, true);
    assert.deepEqual(
      after.tokens.map((t) => t.winner),
      [true, false],
    );
    // A second YES in the same neg-risk event is refused by the simulator (the adapter would revert).
    const second = await simResolve(sibling.condition_id, 'Yes');
    assert.equal(second.status, 400, await second.text());
    assert.equal((await clobMarket(sibling.condition_id)).closed, false);

    const redeem = await ctf('redeem', account, {
      condition_id: market.condition_id,
      neg_risk: true,
      amounts: ['2000000', '3000000'],
    });
    assert.equal(redeem.status, 200, redeem.text);
    assert.equal((redeem.body as { status: string }).status, 'confirmed');
    assert.deepEqual(await held(wallet, ids), [1_000_000n, 0n]);
    // 2 YES pay 1 each, the 3 NO nothing.
    assert.equal(await collateralOf(wallet), start - 3_000_000n + 2_000_000n);
  });

  test('bad neg-risk requests are 400 (or 402 for a shortfall) and nothing reaches the relayer', async () => {
    const [, , open] = await negRiskMarkets();
    assert.ok(open && !open.closed);
    const resolved = (await negRiskMarkets()).find((m) => m.closed);
    assert.ok(resolved, 'the option resolved in the test before');
    // Approved for standard markets only: the neg-risk adapters may not move its collateral or tokens.
    const { account: standardOnly } = await depositWallet({ usdc: true, ctf: true });
    const { account } = await depositWallet({ all: true });
    const submits = await relayerSubmits();
    const bad: Array<[string, unknown]> = [
      ['split', { condition_id: open.condition_id, amount: '1000000', neg_risk: 'yes' }],
      ['merge', { condition_id: open.condition_id, amount: '1000000', neg_risk: 'maybe' }],
      ['split', { condition_id: `0x${'cd'.repeat(32)}`, amount: '1000000', neg_risk: true }],
      ['split', { condition_id: resolved.condition_id, amount: '1000000', neg_risk: true }],
      ['redeem', { condition_id: resolved.condition_id, neg_risk: true }],
      ['redeem', { condition_id: resolved.condition_id, neg_risk: true, amounts: ['0', '0'] }],
      ['redeem', { condition_id: resolved.condition_id, neg_risk: true, amounts: ['1', '1', '1'] }],
      ['redeem', { condition_id: open.condition_id, neg_risk: true, amounts: ['1', '0'] }],
    ];
    for (const [op, body] of bad) {
      const res = await ctf(op, account, body);
      assert.equal(res.status, 400, `${op} ${JSON.stringify(body)}: ${res.text}`);
      assertError(res, 400, 'validation_error');
    }
    // Missing neg-risk approvals: named in the refusal.
    const noSplit = assertError(
      await ctf('split', standardOnly, {
        condition_id: open.condition_id,
        amount: '1000000',
        neg_risk: true,
      }),
      400,
      'validation_error',
    );
    assert.match(String(noSplit.error), /usdc_neg_risk/);
    assert.equal(
      (await ctf('split', account, { condition_id: open.condition_id, amount: '1000000', neg_risk: true }))
        .status,
      200,
    );
    const afterSplit = await relayerSubmits();
    assert.equal(afterSplit, submits + 1);
    // The standard-only wallet holds none of the neg-risk tokens: a shortfall comes first, as for any wallet.
    assertError(
      await ctf('merge', standardOnly, { condition_id: open.condition_id, amount: '1', neg_risk: true }),
      402,
      'insufficient_funds',
    );
    assertError(
      await ctf('merge', account, { condition_id: open.condition_id, amount: '1000001', neg_risk: true }),
      402,
      'insufficient_funds',
    );
    assert.equal(await relayerSubmits(), afterSplit);
  });
});

describe('neg-risk trades settle on the sandbox chain through the NegRiskAdapter', () => {
  let yesSide: SimAccount;
  let noSide: SimAccount;
  let option: { market: Market; clob: ClobMarket; yes: string; no: string };

  const funder = (a: SimAccount) => a.credentials.funder_address as string;
  const order = (account: SimAccount, body: Record<string, unknown>) =>
    server.request('/api/v1/orders?exchange=polymarket', {
      method: 'POST',
      headers: header(account),
      body: { market_id: option.market.exchange_market_id, size: 5, ...body },
    });
  const round = (n: number) => Math.round(n * 1e6) / 1e6;
  const base = (n: number) => BigInt(Math.round(n * 1e6));

  async function book(
    outcome: string,
  ): Promise<{ bids: [number, number][]; asks: [number, number][]; tick_size: number }> {
    const res = await server.request(
      `/api/v1/orderbook?exchange=polymarket&market_id=${encodeURIComponent(option.market.exchange_market_id)}&outcome=${outcome}`,
    );
    assert.equal(res.status, 200, res.text);
    return res.body as { bids: [number, number][]; asks: [number, number][]; tick_size: number };
  }

  before(async () => {
    const walked = await walkVenue(polymarket.adapter);
    await new MarketsRepo(server.runtime.store.db, server.runtime.store.dialect).upsertMany(
      walked.markets,
      new Date().toISOString(),
    );
    // An option still open (the tests above resolved the first) with room inside its spread.
    const candidates = (await negRiskMarkets()).filter((m) => !m.closed);
    for (const clob of candidates) {
      const market = walked.markets.find((m) => m.exchange_market_id === clob.condition_id);
      if (!market) continue;
      option = {
        market,
        clob,
        yes: market.outcomes[0]?.name as string,
        no: market.outcomes[1]?.name as string,
      };
      const b = await book(option.yes);
      const [bid] = b.bids[0] ?? [];
      const [ask] = b.asks[0] ?? [];
      if (bid !== undefined && ask !== undefined && ask - bid >= 1.5 * b.tick_size) break;
    }
    assert.ok(option, 'an open neg-risk option');
    yesSide = (await depositWallet({ all: true })).account;
    noSide = (await depositWallet({ all: true })).account;
  });

  test('a YES buy against a resting NO buy mints a neg-risk set; a buy from the house gets neg-risk tokens', async () => {
    const [yesId, noId] = option.clob.tokens.map((t) => t.token_id) as [string, string];
    const b = await book(option.yes);
    const [bid] = b.bids[0] as [number, number];
    const [ask] = b.asks[0] as [number, number];
    assert.ok(ask - bid >= 1.5 * b.tick_size, 'room inside the spread');
    const yesPrice = round(ask - b.tick_size);
    const noPrice = round(1 - yesPrice);
    const wrappedBefore = await collateralOf(WRAPPED_COLLATERAL);
    const resting = await order(noSide, { outcome: option.no, side: 'buy', price: noPrice });
    assert.equal((resting.body as { status: string }).status, 'open', resting.text);
    const noBefore = await collateralOf(funder(noSide));
    const hit = await order(yesSide, { outcome: option.yes, side: 'buy', price: yesPrice });
    assert.equal((hit.body as { status: string }).status, 'filled', hit.text);
    assert.deepEqual(await held(funder(yesSide), [yesId, noId]), [5_000_000n, 0n]);
    assert.deepEqual(await held(funder(noSide), [yesId, noId]), [0n, 5_000_000n]);
    assert.equal(await collateralOf(funder(noSide)), noBefore - base(noPrice * 5));
    // The set's collateral went into the wrapped collateral, as the NegRiskAdapter's split does.
    assert.equal(await collateralOf(WRAPPED_COLLATERAL), wrappedBefore + 5_000_000n);

    const [houseAsk, size] = (await book(option.yes)).asks[0] as [number, number];
    assert.ok(size >= 5);
    const fromHouse = await order(yesSide, { outcome: option.yes, side: 'buy', price: houseAsk });
    assert.equal((fromHouse.body as { status: string }).status, 'filled', fromHouse.text);
    assert.deepEqual(await held(funder(yesSide), [yesId, noId]), [10_000_000n, 0n]);
  });

  test('a YES sell against a resting NO sell merges the neg-risk set through the adapter: each seller is paid', async () => {
    const [yesId, noId] = option.clob.tokens.map((t) => t.token_id) as [string, string];
    const b = await book(option.yes);
    const [bid] = b.bids[0] as [number, number];
    const [ask] = b.asks[0] as [number, number];
    assert.ok(ask - bid >= 1.5 * b.tick_size, 'room inside the spread');
    const yesPrice = round(bid + b.tick_size);
    const noPrice = round(1 - yesPrice);
    const wrappedBefore = await collateralOf(WRAPPED_COLLATERAL);
    const resting = await order(noSide, { outcome: option.no, side: 'sell', price: noPrice });
    assert.equal((resting.body as { status: string }).status, 'open', resting.text);
    const [noBefore, yesBefore] = await Promise.all([
      collateralOf(funder(noSide)),
      collateralOf(funder(yesSide)),
    ]);
    const hit = await order(yesSide, { outcome: option.yes, side: 'sell', price: yesPrice });
    assert.equal((hit.body as { status: string }).status, 'filled', hit.text);
    assert.deepEqual(await held(funder(yesSide), [yesId, noId]), [5_000_000n, 0n]);
    assert.deepEqual(await held(funder(noSide), [yesId, noId]), [0n, 0n]);
    assert.equal(await collateralOf(funder(noSide)), noBefore + base(noPrice * 5));
    const received = (await collateralOf(funder(yesSide))) - yesBefore;
    assert.ok(received > 0n && received <= base(yesPrice * 5), `the YES seller got ${received}`);
    assert.equal(await collateralOf(WRAPPED_COLLATERAL), wrappedBefore - 5_000_000n);
  });
});
