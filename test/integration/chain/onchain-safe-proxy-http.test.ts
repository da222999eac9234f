// Approvals and gasless CTF operations for a Safe funder (signature type 2) and a proxy-wallet funder (type 1), end to
// end on the sandbox chain: the real server, the Polymarket simulator (its relayer runs a Safe's own execTransaction,
// or the proxy wallet's proxy(calls)) and a local anvil. Balances and approvals are read back from the chain with
// ethers, apart from the code under test; the EOA's own transaction count shows it sent nothing (gasless); refused
// requests are shown to have submitted nothing and moved nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deriveSafe } from '@polymarket/builder-relayer-client';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
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

let chain: SandboxChain;
let polymarket: RunningSimVenue;
let server: TestServer;
let provider: JsonRpcProvider;

before(async () => {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  chain = await startSandboxChain();
  polymarket = await SIM_VENUE_LAUNCHERS.polymarket!(config, { size: 6, seed: 9, chain });
  server = await startTestServer({ venues: [polymarket.adapter], chain: connectSandboxChain(chain, config) });
  provider = new JsonRpcProvider(chain.rpcUrl, 137, { staticNetwork: true });
});
after(async () => {
  await server?.stop();
  await polymarket?.close();
  await chain?.close();
  provider?.destroy();
});

interface LegacyAccount {
  address: string;
  credentials: Record<string, string>;
  wallets: { proxy: string; safe: string };
}

/** A pre-cutover paper account (EOA, proxy wallet and Safe, each funded with 10 collateral), nothing approved. */
async function legacyAccount(): Promise<LegacyAccount> {
  const res = await fetch(`${polymarket.control}/__sim/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'legacy', approved: false, collateral: '10000000' }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as LegacyAccount;
}

/** The session for one of the account's wallets: signature type 1 (proxy) or 2 (Safe), that wallet as funder. */
function session(account: LegacyAccount, kind: 'proxy' | 'safe', funder = account.wallets[kind]) {
  const credentials = {
    ...account.credentials,
    signature_type: kind === 'safe' ? '2' : '1',
    funder_address: funder,
  };
  return { 'x-exchange-credentials': Buffer.from(JSON.stringify(credentials)).toString('base64') };
}

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

const collateral = () =>
  new Contract(chain.contracts.collateral, ['function balanceOf(address) view returns (uint256)'], provider);
const ctfContract = () =>
  new Contract(
    chain.contracts.conditionalTokens,
    ['function balanceOf(address, uint256) view returns (uint256)'],
    provider,
  );
const collateralOf = async (owner: string): Promise<bigint> => collateral().getFunction('balanceOf')(owner);
const positionsOf = (owner: string, ids: readonly string[]): Promise<bigint[]> =>
  Promise.all(ids.map((id) => ctfContract().getFunction('balanceOf')(owner, BigInt(id)) as Promise<bigint>));

async function approvals(headers: Record<string, string>): Promise<Array<{ approved: boolean }>> {
  const res = await server.request('/api/v1/approvals?exchange=polymarket', { headers });
  assert.equal(res.status, 200, res.text);
  return (res.body as { data: Array<{ approved: boolean }> }).data;
}

const ctf = (op: string, headers: Record<string, string>, body: unknown) =>
  server.request(`/api/v1/polymarket/ctf/${op}`, { method: 'POST', headers, body });

for (const kind of ['safe', 'proxy'] as const) {
  describe(`${kind === 'safe' ? 'a Safe (signature_type 2)' : 'a proxy wallet (signature_type 1)'} funder`, () => {
    let account: LegacyAccount;
    let wallet: string;
    let headers: Record<string, string>;

    before(async () => {
      account = await legacyAccount();
      wallet = account.wallets[kind];
      headers = session(account, kind);
    });

    test('approvals read false, are granted in one gasless relayer transaction, read true', async () => {
      const before = await approvals(headers);
      assert.equal(before.length, 10);
      assert.ok(before.every((a) => !a.approved));
      const res = await server.request('/api/v1/approvals?exchange=polymarket', {
        method: 'POST',
        headers,
        body: { all: true },
      });
      assert.equal(res.status, 200, res.text);
      const { data } = res.body as { data: { all_succeeded: boolean; results: Array<{ tx_hash: string }> } };
      assert.equal(data.all_succeeded, true);
      assert.equal(new Set(data.results.map((r) => r.tx_hash)).size, 1, 'one transaction for all ten');
      const receipt = await provider.getTransactionReceipt(data.results[0]?.tx_hash as string);
      assert.equal(receipt?.status, 1);
      assert.equal(receipt?.to?.toLowerCase(), wallet, 'sent to the wallet itself');
      assert.notEqual(receipt?.from.toLowerCase(), account.address.toLowerCase());
      assert.equal(await provider.getTransactionCount(account.address), 0, 'the EOA sent nothing');
      assert.ok((await approvals(headers)).every((a) => a.approved));
    });

    test('split, merge, and redeem after resolution move the wallet’s collateral and tokens on chain', async () => {
      const c = await simChain('conditions');
      const conditionId = c.condition_id as string;
      const ids = c.position_ids as string[];
      const start = await collateralOf(wallet);
      assert.equal(start, 10_000_000n);
      const eoaStart = await collateralOf(account.address);

      const split = await ctf('split', headers, { condition_id: conditionId, amount: '5000000' });
      assert.equal(split.status, 200, split.text);
      assert.equal((split.body as { status: string }).status, 'confirmed');
      assert.deepEqual(await positionsOf(wallet, ids), [5_000_000n, 5_000_000n]);
      assert.equal(await collateralOf(wallet), 5_000_000n);

      const merge = await ctf('merge', headers, { condition_id: conditionId, amount: '2000000' });
      assert.equal(merge.status, 200, merge.text);
      assert.deepEqual(await positionsOf(wallet, ids), [3_000_000n, 3_000_000n]);
      assert.equal(await collateralOf(wallet), 7_000_000n);

      await simChain('resolve', { condition_id: conditionId, winner: 'Yes' });
      const redeem = await ctf('redeem', headers, { condition_id: conditionId });
      assert.equal(redeem.status, 200, redeem.text);
      assert.equal((redeem.body as { status: string }).status, 'confirmed');
      assert.deepEqual(await positionsOf(wallet, ids), [0n, 0n]);
      assert.equal(await collateralOf(wallet), 10_000_000n, '3 YES paid 1 each');
      assert.equal(await collateralOf(account.address), eoaStart, "the EOA's own collateral did not move");
      assert.equal(await provider.getTransactionCount(account.address), 0, 'the EOA sent nothing');
    });

    test("another owner's wallet as funder is refused before the relayer, and nothing moves", async () => {
      const other = await legacyAccount();
      const foreign = other.wallets[kind];
      const c = await simChain('conditions');
      const submits = await relayerSubmits();
      const stranger = session(account, kind, foreign);
      assertError(
        await server.request('/api/v1/approvals?exchange=polymarket', {
          method: 'POST',
          headers: stranger,
          body: { all: true },
        }),
        400,
        'validation_error',
      );
      assert.equal(await relayerSubmits(), submits, 'nothing submitted');
      assert.ok((await approvals(session(other, kind))).every((a) => !a.approved));
      assert.equal(await collateralOf(foreign), 10_000_000n);
      assert.deepEqual(await positionsOf(foreign, c.position_ids as string[]), [0n, 0n]);
    });
  });
}

describe('a Safe funder whose Safe does not exist yet', () => {
  test('the first gasless call creates it (SAFE-CREATE) at the derived address, owned by the key, then runs', async () => {
    const key = `0x${'7a'.repeat(31)}03`;
    const owner = new Wallet(key).address;
    // The official client's own derivation, not ours.
    const safe = deriveSafe(owner, '0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b').toLowerCase();
    assert.equal(await provider.getCode(safe), '0x');
    const headers = {
      'x-exchange-credentials': Buffer.from(
        JSON.stringify({ private_key: key, signature_type: '2', funder_address: safe }),
      ).toString('base64'),
    };
    const res = await server.request('/api/v1/approvals?exchange=polymarket', {
      method: 'POST',
      headers,
      body: { usdc: true },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal((res.body as { data: { all_succeeded: boolean } }).data.all_succeeded, true);
    const owners = await new Contract(
      safe,
      ['function getOwners() view returns (address[])'],
      provider,
    ).getFunction('getOwners')();
    assert.deepEqual([...owners], [owner]);
    const after = (await approvals(headers)) as Array<{ token: string; target: string; approved: boolean }>;
    for (const a of after)
      assert.equal(a.approved, a.token === 'usdc' && !a.target.startsWith('neg_risk'), JSON.stringify(a));
    assert.equal(await provider.getTransactionCount(owner), 0, 'the EOA sent nothing');
  });
});
