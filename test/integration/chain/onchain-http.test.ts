// Approvals and gasless CTF operations end to end on the sandbox chain: the real server, the Polymarket simulator
// (its relayer executes on the chain) and a local anvil with the real ConditionalTokens bytecode. Every balance
// and approval is read back from the chain itself, and every refused request is shown to have submitted nothing
// (the relayer's own request count).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Address, type Hex, parseAbi } from 'viem';
import type { OnChain } from '../../../src/chain/chain.js';
import type { SandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
import { startSandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
import {
  connectSandboxChain,
  type RunningSimVenue,
  SIM_VENUE_LAUNCHERS,
} from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import { assertError } from '../../support/error-shape.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { createSimAccount, type SimAccount } from '../../support/sim-accounts.js';

let chain: SandboxChain;
let onChain: OnChain;
let polymarket: RunningSimVenue;
let kalshi: RunningSimVenue;
let server: TestServer;

before(async () => {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  chain = await startSandboxChain();
  onChain = connectSandboxChain(chain, config);
  // Size 12 gives the Polymarket catalogue an active, a closed and a resolved binary market, all listed on chain.
  polymarket = await SIM_VENUE_LAUNCHERS.polymarket!(config, { size: 12, seed: 7, chain });
  kalshi = await SIM_VENUE_LAUNCHERS.kalshi!(config, { size: 3, seed: 7 });
  server = await startTestServer({ venues: [polymarket.adapter, kalshi.adapter], chain: onChain });
});
after(async () => {
  await server?.stop();
  await polymarket?.close();
  await kalshi?.close();
  await chain?.close();
});

type Account = SimAccount;

const simAccount = (body: Record<string, unknown>): Promise<Account> =>
  createSimAccount(polymarket.control, body);

async function simChain(path: string, body: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${polymarket.control}/__sim/chain/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.ok(res.ok, await res.clone().text());
  return (await res.json()) as Record<string, unknown>;
}

async function relayerSubmits(): Promise<number> {
  const res = await fetch(`${polymarket.control}/__sim/requests`);
  const { counts } = (await res.json()) as { counts: Record<string, number> };
  return Object.entries(counts)
    .filter(([route]) => route.includes('POST /submit'))
    .reduce((n, [, c]) => n + c, 0);
}

const header = (account: Account) => ({
  'x-exchange-credentials': Buffer.from(JSON.stringify(account.credentials)).toString('base64'),
});

const erc20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
const ctfReads = parseAbi([
  'function payoutDenominator(bytes32 conditionId) view returns (uint256)',
  'function payoutNumerators(bytes32 conditionId, uint256 index) view returns (uint256)',
  'function getOutcomeSlotCount(bytes32 conditionId) view returns (uint256)',
]);

interface ClobMarket {
  condition_id: string;
  closed: boolean;
  neg_risk: boolean;
  tokens: Array<{ token_id: string; outcome: string; winner: boolean }>;
}

/** The simulator's own CLOB market listing (as Polymarket serves it), read for test set-up. */
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

async function payouts(
  conditionId: string,
): Promise<{ slots: bigint; denominator: bigint; numerators: bigint[] }> {
  const ctf = { address: chain.contracts.conditionalTokens, abi: ctfReads } as const;
  const id = conditionId as Hex;
  const [slots, denominator] = await Promise.all([
    onChain.client.readContract({ ...ctf, functionName: 'getOutcomeSlotCount', args: [id] }),
    onChain.client.readContract({ ...ctf, functionName: 'payoutDenominator', args: [id] }),
  ]);
  const numerators =
    denominator === 0n
      ? []
      : await Promise.all(
          [0n, 1n].map((i) =>
            onChain.client.readContract({ ...ctf, functionName: 'payoutNumerators', args: [id, i] }),
          ),
        );
  return { slots, denominator, numerators };
}
const erc1155 = parseAbi(['function balanceOf(address, uint256) view returns (uint256)']);

async function collateralOf(owner: string): Promise<bigint> {
  return onChain.client.readContract({
    address: chain.contracts.collateral,
    abi: erc20,
    functionName: 'balanceOf',
    args: [owner as Address],
  });
}

async function positionsOf(owner: string, ids: readonly string[]): Promise<bigint[]> {
  return Promise.all(
    ids.map((id) =>
      onChain.client.readContract({
        address: chain.contracts.conditionalTokens,
        abi: erc1155,
        functionName: 'balanceOf',
        args: [owner as Address, BigInt(id)],
      }),
    ),
  );
}

interface Allowance {
  token: string;
  target: string;
  approved: boolean;
}

async function approvals(account: Account): Promise<Allowance[]> {
  const res = await server.request('/api/v1/approvals?exchange=polymarket', { headers: header(account) });
  assert.equal(res.status, 200, res.text);
  const body = res.body as { success: boolean; data: Allowance[] };
  assert.equal(body.success, true);
  return body.data;
}

const ctf = (op: string, account: Account, body: unknown) =>
  server.request(`/api/v1/polymarket/ctf/${op}`, { method: 'POST', headers: header(account), body });

describe('approvals', () => {
  // Paper accounts created `approved: false`: the simulator sets an approved one up with its approvals on chain.
  test('an EOA reads false, grants them all (one receipt each), reads true', async () => {
    const eoa = await simAccount({ approved: false });
    const before = await approvals(eoa);
    assert.equal(before.length, 10);
    assert.ok(before.every((a) => !a.approved));
    assert.deepEqual(
      new Set(before.map((a) => a.target)),
      new Set([
        'ctf_exchange',
        'neg_risk_ctf_exchange',
        'neg_risk_adapter',
        'collateral_adapter',
        'neg_risk_collateral_adapter',
      ]),
    );
    const res = await server.request('/api/v1/approvals?exchange=polymarket', {
      method: 'POST',
      headers: header(eoa),
      body: { all: true },
    });
    assert.equal(res.status, 200, res.text);
    const { success, data } = res.body as {
      success: boolean;
      data: { all_succeeded: boolean; results: Array<{ tx_hash: string; success: boolean }> };
    };
    assert.equal(success, true);
    assert.equal(data.all_succeeded, true);
    assert.equal(data.results.length, 10);
    for (const r of data.results) {
      const receipt = await onChain.client.getTransactionReceipt({ hash: r.tx_hash as Hex });
      assert.equal(receipt.status, 'success');
      assert.equal(receipt.from.toLowerCase(), eoa.address.toLowerCase());
    }
    assert.ok((await approvals(eoa)).every((a) => a.approved));
  });

  test('only the asked group is granted', async () => {
    const eoa = await simAccount({ approved: false });
    const res = await server.request('/api/v1/approvals?exchange=polymarket', {
      method: 'POST',
      headers: header(eoa),
      body: { ctf_neg_risk: true },
    });
    assert.equal(res.status, 200, res.text);
    const after = await approvals(eoa);
    for (const a of after)
      assert.equal(a.approved, a.token === 'ctf' && a.target.startsWith('neg_risk'), JSON.stringify(a));
  });

  test('a wallet without gas gets a failed item per approval saying so, and nothing changes', async () => {
    const poor = await simAccount({ gas: false, approved: false });
    const res = await server.request('/api/v1/approvals?exchange=polymarket', {
      method: 'POST',
      headers: header(poor),
      body: { usdc: true },
    });
    assert.equal(res.status, 200, res.text);
    const { success, data } = res.body as {
      success: boolean;
      data: { all_succeeded: boolean; results: Array<{ success: boolean; error?: string; tx_hash: string }> };
    };
    assert.equal(success, false);
    assert.equal(data.all_succeeded, false);
    assert.equal(data.results.length, 2);
    for (const r of data.results) {
      assert.equal(r.success, false);
      assert.match(r.error ?? '', /gas/);
      assert.equal(r.tx_hash, '');
    }
    assert.ok((await approvals(poor)).every((a) => !a.approved));
  });

  test('a deposit wallet grants them gaslessly through the relayer', async () => {
    const dw = await simAccount({ kind: 'deposit', approved: false });
    assert.ok((await approvals(dw)).every((a) => !a.approved));
    const res = await server.request('/api/v1/approvals?exchange=polymarket', {
      method: 'POST',
      headers: header(dw),
      body: { all: true },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal((res.body as { data: { all_succeeded: boolean } }).data.all_succeeded, true);
    assert.ok((await approvals(dw)).every((a) => a.approved));
  });

  test('bad requests: nothing asked 400, another exchange 501, unknown exchange 404, unknown field 400', async () => {
    const eoa = await simAccount({ approved: false });
    const post = (query: string, body: unknown) =>
      server.request(`/api/v1/approvals?${query}`, { method: 'POST', headers: header(eoa), body });
    assertError(await post('exchange=polymarket', {}), 400, 'validation_error');
    assertError(await post('exchange=polymarket', { usdc: 'yes' }), 400, 'validation_error');
    assertError(await post('exchange=polymarket', { usdc: true, extra: true }), 400, 'validation_error');
    assertError(await post('exchange=kalshi', { all: true }), 501, 'not_supported');
    assertError(await post('exchange=nope', { all: true }), 404, 'exchange_not_found');
    assertError(
      await server.request('/api/v1/approvals?exchange=kalshi', { headers: header(eoa) }),
      501,
      'not_supported',
    );
    assert.ok((await approvals(eoa)).every((a) => !a.approved));
  });
});

describe('CTF split, merge, redeem through the relayer', () => {
  let dw: Account;
  let wallet: string;

  before(async () => {
    dw = await simAccount({ kind: 'deposit' });
    wallet = dw.credentials.funder_address as string;
    const res = await server.request('/api/v1/approvals?exchange=polymarket', {
      method: 'POST',
      headers: header(dw),
      body: { all: true },
    });
    assert.equal((res.body as { data: { all_succeeded: boolean } }).data.all_succeeded, true);
  });

  test('split turns collateral into equal YES and NO; merge the reverse; the winner redeems to collateral', async () => {
    const c = await simChain('conditions');
    const conditionId = c.condition_id as string;
    const ids = c.position_ids as string[];
    const start = await collateralOf(wallet);
    assert.ok(start >= 10_000_000n);

    const split = await ctf('split', dw, { condition_id: conditionId, amount: '5000000' });
    assert.equal(split.status, 200, split.text);
    const splitBody = split.body as { transaction_hash: string; status: string };
    assert.equal(splitBody.status, 'confirmed');
    const receipt = await onChain.client.getTransactionReceipt({ hash: splitBody.transaction_hash as Hex });
    assert.equal(receipt.status, 'success');
    assert.deepEqual(await positionsOf(wallet, ids), [5_000_000n, 5_000_000n]);
    assert.equal(await collateralOf(wallet), start - 5_000_000n);

    const merge = await ctf('merge', dw, { condition_id: conditionId, amount: '2000000' });
    assert.equal(merge.status, 200, merge.text);
    assert.deepEqual(await positionsOf(wallet, ids), [3_000_000n, 3_000_000n]);
    assert.equal(await collateralOf(wallet), start - 3_000_000n);

    // Not resolved yet: refused before anything is submitted.
    const submits = await relayerSubmits();
    assertError(await ctf('redeem', dw, { condition_id: conditionId }), 400, 'validation_error');
    // More than held: a shortfall, refused too.
    assertError(
      await ctf('merge', dw, { condition_id: conditionId, amount: '3000001' }),
      402,
      'insufficient_funds',
    );
    assert.equal(await relayerSubmits(), submits);

    await simChain('resolve', { condition_id: conditionId, winner: 'Yes' });
    const redeem = await ctf('redeem', dw, { condition_id: conditionId });
    assert.equal(redeem.status, 200, redeem.text);
    assert.equal((redeem.body as { status: string }).status, 'confirmed');
    assert.deepEqual(await positionsOf(wallet, ids), [0n, 0n]);
    // 3 YES pay 1 each; the 3 NO pay nothing.
    assert.equal(await collateralOf(wallet), start);
  });

  test('every bad input is a 400 and nothing reaches the relayer', async () => {
    const c = await simChain('conditions');
    const conditionId = c.condition_id as string;
    const unknown = `0x${'ab'.repeat(32)}`;
    const submits = await relayerSubmits();
    const bad: Array<[string, unknown]> = [
      ['split', { condition_id: '0x1234', amount: '1000000' }],
      ['split', { condition_id: conditionId.slice(2), amount: '1000000' }],
      ['split', { condition_id: conditionId, amount: '0' }],
      ['split', { condition_id: conditionId, amount: '1.5' }],
      ['split', { condition_id: conditionId, amount: '-1' }],
      ['split', { condition_id: conditionId, amount: '01' }],
      ['split', { condition_id: conditionId, amount: 1000000 }],
      ['split', { condition_id: conditionId }],
      ['split', { condition_id: conditionId, amount: '9'.repeat(78) }],
      ['split', { condition_id: unknown, amount: '1000000' }],
      ['merge', { condition_id: conditionId, amount: '1', extra: 1 }],
      ['redeem', { condition_id: conditionId, neg_risk: true }],
      ['redeem', { condition_id: conditionId, amounts: ['1', '1'] }],
      ['redeem', { condition_id: conditionId, neg_risk: true, amounts: ['1'] }],
      ['redeem', { condition_id: conditionId, neg_risk: true, amounts: ['0', '0'] }],
      ['redeem', { condition_id: conditionId, neg_risk: true, amounts: ['1', 'x'] }],
      ['redeem', { condition_id: unknown }],
      ['redeem', {}],
    ];
    for (const [op, body] of bad) {
      const res = await ctf(op, dw, body);
      assert.equal(res.status, 400, `${op} ${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal(await relayerSubmits(), submits);
  });

  test('shortfalls are 402 insufficient_funds, as in trading, and nothing reaches the relayer', async () => {
    const held = await simChain('conditions');
    const heldId = held.condition_id as string;
    assert.equal((await ctf('split', dw, { condition_id: heldId, amount: '2000000' })).status, 200);
    await simChain('resolve', { condition_id: heldId, winner: 'Yes' });
    const empty = await simChain('conditions');
    const emptyId = empty.condition_id as string;
    const active = await simChain('conditions');
    const activeId = active.condition_id as string;
    await simChain('resolve', { condition_id: emptyId, winner: 'No' });
    const submits = await relayerSubmits();
    const balance = await collateralOf(wallet);
    const short: Array<[string, unknown]> = [
      // More collateral than the wallet holds.
      ['split', { condition_id: activeId, amount: (balance + 1n).toString() }],
      // No tokens at all, then more than held.
      ['merge', { condition_id: activeId, amount: '1' }],
      ['merge', { condition_id: heldId, amount: '2000001' }],
      // A resolved condition the wallet holds nothing of, and a neg-risk redemption above the holding.
      ['redeem', { condition_id: emptyId }],
      ['redeem', { condition_id: heldId, neg_risk: true, amounts: ['2000001', '0'] }],
    ];
    for (const [op, body] of short) {
      assertError(await ctf(op, dw, body), 402, 'insufficient_funds');
    }
    assert.equal(await relayerSubmits(), submits);
    assert.equal(await collateralOf(wallet), balance);
  });

  test("the simulator's markets live on chain: ids are the CTF's, resolved ones are reported by the oracle", async () => {
    const markets = await clobMarkets();
    assert.ok(markets.length >= 3);
    for (const m of markets) {
      const p = await payouts(m.condition_id);
      assert.equal(p.slots, 2n, `${m.condition_id} is a prepared binary condition`);
      const winner = m.tokens.findIndex((t) => t.winner);
      if (winner === -1) {
        assert.equal(p.denominator, 0n, `${m.condition_id} is unresolved on chain`);
      } else {
        assert.equal(p.denominator, 1n);
        assert.deepEqual(p.numerators, winner === 0 ? [1n, 0n] : [0n, 1n]);
      }
    }
    assert.ok(
      markets.some((m) => m.tokens.some((t) => t.winner)),
      'at least one resolved market',
    );
  });

  test('a listed market end to end: split on its token ids, the simulator resolves it, the winner redeems', async () => {
    const active = (await clobMarkets()).find((m) => !m.closed && !m.neg_risk);
    assert.ok(active, 'an active binary market');
    const conditionId = active.condition_id;
    const ids = active.tokens.map((t) => t.token_id);
    const start = await collateralOf(wallet);
    const split = await ctf('split', dw, { condition_id: conditionId, amount: '4000000' });
    assert.equal(split.status, 200, split.text);
    // The CLOB's token ids are the ERC-1155 position ids the split minted.
    assert.deepEqual(await positionsOf(wallet, ids), [4_000_000n, 4_000_000n]);

    const resolved = await simChain('resolve', { condition_id: conditionId, winner: 'No' });
    const receipt = await onChain.client.getTransactionReceipt({ hash: resolved.tx_hash as Hex });
    assert.equal(receipt.status, 'success');
    const after = await clobMarket(conditionId);
    assert.equal(after.closed, true);
    assert.deepEqual(
      after.tokens.map((t) => t.winner),
      [false, true],
    );
    assert.deepEqual((await payouts(conditionId)).numerators, [0n, 1n]);

    const redeem = await ctf('redeem', dw, { condition_id: conditionId });
    assert.equal(redeem.status, 200, redeem.text);
    assert.equal((redeem.body as { status: string }).status, 'confirmed');
    assert.deepEqual(await positionsOf(wallet, ids), [0n, 0n]);
    // 4 NO paid 1 each; the 4 YES nothing: back where it started.
    assert.equal(await collateralOf(wallet), start);
  });

  test('an EOA session is 501: gasless operations act from a deposit wallet', async () => {
    const eoa = await simAccount({});
    const c = await simChain('conditions');
    assertError(
      await ctf('split', eoa, { condition_id: c.condition_id, amount: '1000000' }),
      501,
      'not_supported',
    );
  });
});
