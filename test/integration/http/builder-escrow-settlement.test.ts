// Background fee settlement, end to end in the sandbox: the real server with its fee settlement job on a short
// interval, the Polymarket simulator and a local anvil with our FeeEscrow. A builder places impersonated GTD orders
// with fee_auth that fill in part and rest; the simulator's clock then passes their expiry, and nobody reads the
// orders again. The job alone finds them closed (asking the exchange with the end-user's managed credentials) and
// settles each fee pro rata: the filled share to affiliate and treasury, the rest back to the payer. Every balance
// and the contract's FeeSettled log are read with ethers, independently of the viem code in src/; the payers are
// funded and approve with ethers too. One fee is also settled by three racing callers (the running job and two
// direct calls, as two nodes would) and the chain shows one settlement.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Contract, JsonRpcProvider, Network, NonceManager, Wallet } from 'ethers';
import { deployFeeEscrow, type FeeEscrowDeployment } from '../../../src/chain/sandbox/fee-escrow-deploy.js';
import { type SandboxChain, startSandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
import {
  connectSandboxChain,
  type RunningSimVenue,
  SIM_VENUE_LAUNCHERS,
} from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import type { Market } from '../../../src/domain/market.js';
import type { FeeSettlementJob } from '../../../src/services/builder/fee-settlement-job.js';
import { FeeEscrowsRepo } from '../../../src/store/fee-escrows-repo.js';
import { MarketsRepo } from '../../../src/store/markets-repo.js';
import { walkVenue } from '../../support/catalogue.js';
import { PULL_FEE_TYPES } from '../../support/pull-fee.js';
import { startTestServer, type TestServer } from '../../support/server.js';

interface ApiOrder {
  id: string;
  client_order_id: string;
  status: string;
  filled: number;
  size: number;
}

interface Book {
  bids: [number, number][];
  asks: [number, number][];
}

const AFFILIATE = Wallet.createRandom().address;
const AFFILIATE_BPS = 2_500;
const ERC20 = [
  'function balanceOf(address) view returns (uint256)',
  'function approve(address, uint256) returns (bool)',
  'function mint(address, uint256)',
];
const ESCROW_ABI = [
  'event FeeSettled(bytes32 indexed orderId, uint256 toAffiliate, uint256 toTreasury, uint256 refunded)',
  'function pullFee(bytes32 orderId, address payer, uint256 feeAmount, uint256 deadline, bytes signature, address affiliate, uint16 affiliateBps)',
];

let chain: SandboxChain;
let escrow: FeeEscrowDeployment;
let polymarket: RunningSimVenue;
let server: TestServer;
let markets: Market[];
let provider: JsonRpcProvider;
let collateral: Contract;
let job: FeeSettlementJob;
let alice: Wallet;
let bob: Wallet;
let carol: Wallet;

before(async () => {
  const overrides = {
    mode: 'sandbox' as const,
    builder: {
      affiliateAddress: AFFILIATE,
      minFeeUsdc: '20000',
      minFeeBps: 0,
      tiers: { iron: { feeBps: 50, affiliateFeeBps: AFFILIATE_BPS } },
      feeSettlement: { intervalMs: 100, leaseTtlMs: 5_000 },
    },
  };
  const config = loadConfig({ env: {}, overrides });
  chain = await startSandboxChain();
  escrow = await deployFeeEscrow(chain);
  // A bare network: ethers' own for chain id 137 asks the Polygon gas station on the internet for fees.
  const network = new Network('omnibook-sandbox', chain.chainId);
  // No result cache: a nonce read 250 ms ago is stale once the transaction it was read for is mined.
  provider = new JsonRpcProvider(chain.rpcUrl, network, {
    batchMaxCount: 1,
    staticNetwork: network,
    cacheTimeout: -1,
  });
  collateral = new Contract(chain.contracts.collateral, ERC20, provider);
  // Funded before the simulator starts: it mints with the same key when it settles trades on chain.
  alice = await payer(1_000_000n);
  bob = await payer(1_000_000n);
  carol = await payer(1_000_000n);
  polymarket = await SIM_VENUE_LAUNCHERS.polymarket!(config, { size: 12, seed: 11, chain });
  server = await startTestServer({
    venues: [polymarket.adapter],
    chain: connectSandboxChain(chain, config),
    config: {
      builder: {
        ...overrides.builder,
        escrow: { address: escrow.address, chainId: chain.chainId, operatorKey: escrow.operatorKey },
      },
    },
  });
  const walked = await walkVenue(polymarket.adapter);
  await new MarketsRepo(server.runtime.store.db, server.runtime.store.dialect).upsertMany(
    walked.markets,
    new Date().toISOString(),
  );
  markets = walked.markets.filter((m) => m.status === 'active');
  const running = server.runtime.feeSettlementJob;
  assert.ok(running, 'the fee settlement job runs where a fee escrow is wired in');
  job = running;
});
after(async () => {
  await server?.stop();
  provider?.destroy();
  await polymarket?.close();
  await chain?.close();
});

const balance = async (owner: string): Promise<bigint> => collateral.getFunction('balanceOf')(owner);

/** A fee payer holding `funds` of collateral that approved the escrow for all of it (ethers throughout). */
async function payer(funds: bigint): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey, provider);
  await provider.send('anvil_setBalance', [wallet.address, '0xde0b6b3a7640000']);
  const minter = new NonceManager(new Wallet(chain.minterKey, provider));
  await (await collateral.connect(minter).getFunction('mint')(wallet.address, funds)).wait();
  await (await collateral.connect(wallet).getFunction('approve')(escrow.address, funds)).wait();
  return wallet;
}

let seq = 0;
async function feeAuth(signer: Wallet, fee: bigint): Promise<Record<string, unknown>> {
  const message = {
    orderId: `0x${(++seq).toString(16).padStart(8, '0')}${'5e'.repeat(28)}`,
    payer: signer.address,
    feeAmount: fee,
    deadline: BigInt(Math.floor(Date.now() / 1000) + 600),
  };
  const signature = await signer.signTypedData(
    { name: 'Omnibook FeeEscrow', version: '1', chainId: chain.chainId, verifyingContract: escrow.address },
    PULL_FEE_TYPES,
    message,
  );
  return {
    order_id: message.orderId,
    payer: message.payer,
    fee_amount: String(fee),
    deadline: Number(message.deadline),
    signature,
  };
}

describe('fees of orders nobody reads again are settled by the background job', () => {
  let builder: string;
  let user: { customer_id: string };

  before(async () => {
    builder = (await server.runtime.keys.create({ name: 'builder', tier: 'pro', builder: true })).key;
    const created = await server.request('/api/v1/builder/users', {
      method: 'POST',
      key: builder,
      body: { external_id: 'settled-in-background', qps_limit: 50 },
    });
    assert.equal(created.status, 201, created.text);
    user = created.body as typeof user;
    const onboarded = await server.request('/api/v1/builder/onboard', {
      method: 'POST',
      key: builder,
      body: { customer_id: user.customer_id, exchange: 'polymarket', mode: 'managed' },
    });
    assert.equal(onboarded.status, 200, onboarded.text);
    // As on Polymarket, the deposit wallet approves the exchanges before its orders are taken (through the
    // simulator's control, as builder-escrow.test.ts does).
    const funder = (onboarded.body as { funder_address?: string }).funder_address;
    assert.ok(funder, onboarded.text);
    const approved = await fetch(`${polymarket.control}/__sim/chain/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: funder }),
    });
    assert.equal(approved.status, 200, await approved.text());
  });

  /** An impersonated GTD buy at the best ask, larger than the level: part fills at once, the rest rests. */
  async function partialGtd(market: Market, fee: bigint, who: Wallet): Promise<ApiOrder & { feeId: string }> {
    const outcome = market.outcomes[0]!.name;
    const read = await server.request(
      `/api/v1/orderbook?exchange=polymarket&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=${outcome}`,
    );
    assert.equal(read.status, 200, read.text);
    const [ask, level] = (read.body as Book).asks[0]!;
    const auth = await feeAuth(who, fee);
    const placed = await server.request('/api/v1/orders?exchange=polymarket', {
      method: 'POST',
      key: builder,
      headers: { 'x-builder-customer-id': user.customer_id },
      body: {
        market_id: market.exchange_market_id,
        outcome,
        side: 'buy',
        price: ask,
        size: Math.round((level + 6) * 100) / 100,
        params: { order_type: 'gtd', expiration: String(Math.floor(Date.now() / 1000) + 3_600) },
        fee_auth: auth,
      },
    });
    assert.equal(placed.status, 200, placed.text);
    const order = placed.body as ApiOrder;
    assert.equal(order.status, 'partially_filled', placed.text);
    return { ...order, feeId: auth.order_id as string };
  }

  /** What the contract pays for `filled` of `size` of `fee` (FeeEscrow._close, spelled out again). */
  function split(fee: bigint, order: ApiOrder) {
    const units = (n: number) => BigInt(Math.round(n * 1_000_000));
    const distributed = (fee * units(order.filled)) / units(order.size);
    const toAffiliate = (distributed * BigInt(AFFILIATE_BPS)) / 10_000n;
    return { toAffiliate, toTreasury: distributed - toAffiliate, refunded: fee - distributed };
  }

  test('partly filled GTD orders expire unread: the job distributes the filled share and refunds the rest, once', async () => {
    const [first, second] = markets.filter((m) => m.outcomes.length > 0);
    assert.ok(first && second, 'two polymarket markets');
    const feeA = 60_000n;
    const feeB = 80_000n;
    const a = await partialGtd(first, feeA, alice);
    const b = await partialGtd(second, feeB, bob);
    assert.equal(await balance(escrow.address), feeA + feeB, 'both fees held while the orders rest');

    const fees = new FeeEscrowsRepo(server.runtime.store.db);
    const rowB = await fees.byOrderId(b.feeId);
    assert.equal(rowB?.state, 'held', 'recorded held while the order rests');

    // The simulator's clock passes the orders' expiry: the exchange takes both off the book. No API call reads them.
    const moved = await fetch(`${polymarket.control}/__sim/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance_seconds: 7_200 }),
    });
    assert.equal(moved.status, 200);

    // B is settled by three racing callers: the running job and two direct calls, as two nodes would.
    const raced = await Promise.all([job.settleOne(rowB), job.settleOne(rowB)]);
    assert.deepEqual(raced, ['settled', 'settled']);

    // A is left to the job alone: wait (an observable condition, bounded in passes) for its escrow to empty.
    for (let pass = 0; pass < 200 && (await balance(escrow.address)) > 0n; pass++) await job.nextPass();
    assert.equal(await balance(escrow.address), 0n, 'every fee settled');

    const sa = split(feeA, a);
    const sb = split(feeB, b);
    assert.ok(
      sa.refunded > 0n && sa.refunded < feeA,
      'A is settled pro rata, not in full or refunded in full',
    );
    assert.ok(sb.refunded > 0n && sb.refunded < feeB);
    assert.equal(await balance(alice.address), 1_000_000n - feeA + sa.refunded);
    assert.equal(await balance(bob.address), 1_000_000n - feeB + sb.refunded);
    assert.equal(await balance(AFFILIATE), sa.toAffiliate + sb.toAffiliate);
    assert.equal(await balance(escrow.treasury), sa.toTreasury + sb.toTreasury);

    // One settlement per fee on chain, whoever asked.
    const logs = await new Contract(escrow.address, ESCROW_ABI, provider).queryFilter('FeeSettled', 0);
    const settledIds = logs.map((l) => ('args' in l ? String(l.args[0]).toLowerCase() : ''));
    assert.deepEqual(settledIds.sort(), [a.feeId, b.feeId].map((id) => id.toLowerCase()).sort());

    for (const [order, fee] of [
      [a, feeA],
      [b, feeB],
    ] as const) {
      const row = await fees.byOrderId(order.feeId);
      assert.equal(row?.state, 'settled');
      assert.equal(row?.clientOrderId, order.client_order_id);
      // B's split was recorded by whichever racing caller's own settle went through.
      assert.equal(row?.filledUnits, BigInt(Math.round(order.filled * 1_000_000)), `${fee}`);
    }
  });

  test('a fee pulled for an order that was never sent (the server stopped in between) is refunded', async () => {
    // What a server that stopped between the pull and the send leaves: the fee recorded and pulled, no journal row.
    // (The job may look at the record before the pull below is mined: it finds nothing on chain before the
    // fee_auth's deadline and waits.)
    const fee = 30_000n;
    const auth = await feeAuth(carol, fee);
    const fees = new FeeEscrowsRepo(server.runtime.store.db);
    const recordedAt = Date.now() - 10 * 60_000;
    await fees.insert({
      orderId: String(auth.order_id).toLowerCase(),
      customerId: user.customer_id,
      exchange: 'polymarket',
      clientOrderId: 'never-sent',
      deadlineS: Number(auth.deadline),
      nowMs: recordedAt,
    });
    const operator = new NonceManager(new Wallet(escrow.operatorKey, provider));
    const pull = new Contract(escrow.address, ESCROW_ABI, operator).getFunction('pullFee');
    await (
      await pull(auth.order_id, auth.payer, fee, auth.deadline, auth.signature, AFFILIATE, AFFILIATE_BPS)
    ).wait();
    // (The job may refund it as soon as the pull is mined: the balance is only checked once it is back.)
    for (let pass = 0; pass < 200 && (await balance(carol.address)) < 1_000_000n; pass++)
      await job.nextPass();
    assert.equal(await balance(carol.address), 1_000_000n, 'refunded in full');
    assert.equal((await fees.byOrderId(String(auth.order_id).toLowerCase()))?.state, 'settled');
    // It was pulled, and the settlement refunded all of it.
    const events = new Contract(escrow.address, ESCROW_ABI, provider);
    const [settled] = await events.queryFilter(events.filters.FeeSettled!(auth.order_id), 0);
    assert.ok(settled && 'args' in settled, 'one FeeSettled for the fee');
    assert.deepEqual([settled.args[1], settled.args[2], settled.args[3]], [0n, 0n, fee]);
  });
});
