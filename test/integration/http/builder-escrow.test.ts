// The builder flow with fee escrow, end to end in the sandbox: the real server, the Polymarket simulator and a local
// anvil with our FeeEscrow deployed as `omnibook sandbox` deploys it (and configured as `serve` takes one). A builder creates end-users, onboards one
// managed, and places impersonated orders carrying fee_auth signed by a payer with ethers (independent of the viem
// code that checks it in the API, and of the contract's own ecrecover). Every balance is read on chain: the fee
// pulled into escrow, refunded on cancel, split between affiliate and treasury on a fill (pro rata on a partial
// fill). Every bad fee_auth is a 400 with nothing pulled and nothing at the exchange (the simulator's request log).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Wallet } from 'ethers';
import { type Address, erc20Abi, type Hex, parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { OnChain } from '../../../src/chain/chain.js';
import { deployFeeEscrow, type FeeEscrowDeployment } from '../../../src/chain/sandbox/fee-escrow-deploy.js';
import { type SandboxChain, startSandboxChain } from '../../../src/chain/sandbox/sandbox-chain.js';
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
import { PULL_FEE_TYPES } from '../../support/pull-fee.js';
import {
  startTestServer,
  type TestRequestInit,
  type TestResponse,
  type TestServer,
} from '../../support/server.js';

interface ApiOrder {
  id: string;
  status: string;
  filled: number;
  size: number;
}

interface Book {
  bids: [number, number][];
  asks: [number, number][];
  tick_size: number;
}

const AFFILIATE = privateKeyToAccount(generatePrivateKey()).address;
const AFFILIATE_BPS = 2_500;
const MIN_FEE = 20_000n;

let chain: SandboxChain;
let onChain: OnChain;
let escrow: FeeEscrowDeployment;
let polymarket: RunningSimVenue;
let server: TestServer;
let markets: Market[];

before(async () => {
  const overrides = {
    mode: 'sandbox' as const,
    builder: {
      affiliateAddress: AFFILIATE,
      minFeeUsdc: String(MIN_FEE),
      minFeeBps: 10,
      tiers: { iron: { feeBps: 50, affiliateFeeBps: AFFILIATE_BPS } },
    },
  };
  const config = loadConfig({ env: {}, overrides });
  chain = await startSandboxChain();
  onChain = connectSandboxChain(chain, config);
  escrow = await deployFeeEscrow(chain);
  polymarket = await SIM_VENUE_LAUNCHERS.polymarket!(config, { size: 12, seed: 7, chain });
  // Wired as `omnibook serve` wires a deployed escrow: builder.escrow in the configuration, on the runtime's chain.
  server = await startTestServer({
    venues: [polymarket.adapter],
    chain: onChain,
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
});
after(async () => {
  await server?.stop();
  await polymarket?.close();
  await chain?.close();
});

const call = (path: string, init: TestRequestInit = {}) => server.request(path, init);
const as = (customerId: string) => ({ 'x-builder-customer-id': customerId });

const balance = (owner: string) =>
  onChain.client.readContract({
    address: chain.contracts.collateral,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner as Address],
  });

async function send(key: Hex, abi: readonly unknown[], fn: string, args: unknown[]): Promise<void> {
  const wallet = onChain.wallet(key);
  const hash = await wallet.writeContract({
    address: chain.contracts.collateral,
    abi,
    functionName: fn,
    args,
  } as never);
  assert.equal((await onChain.client.waitForTransactionReceipt({ hash })).status, 'success');
}

/** A fee payer holding `funds` of collateral that approved the escrow for `allowance` of it. */
async function payer(funds: bigint, allowance = funds): Promise<Wallet> {
  const key = generatePrivateKey();
  const wallet = new Wallet(key);
  await onChain.client.request({
    method: 'anvil_setBalance' as never,
    params: [wallet.address, '0xde0b6b3a7640000'] as never,
  });
  await send(chain.minterKey, parseAbi(['function mint(address, uint256)']), 'mint', [wallet.address, funds]);
  if (allowance > 0n) await send(key, erc20Abi, 'approve', [escrow.address, allowance]);
  return wallet;
}

let seq = 0;
const newOrderId = () => `0x${(++seq).toString(16).padStart(6, '0')}${'e5'.repeat(29)}` as Hex;

/** fee_auth signed with ethers; `domain` and `message` overrides forge the bad ones. */
async function feeAuth(
  signer: Wallet,
  fee: bigint,
  o: { payer?: string; deadline?: number; domain?: Record<string, unknown>; amountShown?: bigint } = {},
): Promise<Record<string, unknown>> {
  const message = {
    orderId: newOrderId(),
    payer: o.payer ?? signer.address,
    feeAmount: fee,
    deadline: BigInt(o.deadline ?? Math.floor(Date.now() / 1000) + 600),
  };
  const signature = await signer.signTypedData(
    {
      name: 'Omnibook FeeEscrow',
      version: '1',
      chainId: chain.chainId,
      verifyingContract: escrow.address,
      ...o.domain,
    },
    PULL_FEE_TYPES,
    message,
  );
  return {
    order_id: message.orderId,
    payer: message.payer,
    fee_amount: String(o.amountShown ?? fee),
    deadline: Number(message.deadline),
    signature,
  };
}

/** Orders the simulator has been sent so far (its own request log). */
async function venueOrders(): Promise<number> {
  const res = await fetch(`${polymarket.control}/__sim/requests`);
  const { counts } = (await res.json()) as { counts: Record<string, number> };
  return Object.entries(counts)
    .filter(([route]) => /^POST \/orders?$/.test(route))
    .reduce((n, [, c]) => n + c, 0);
}

async function book(market: Market, outcome: string): Promise<Book> {
  const res = await call(
    `/api/v1/orderbook?exchange=polymarket&market_id=${encodeURIComponent(market.exchange_market_id)}&outcome=${outcome}`,
  );
  assert.equal(res.status, 200, res.text);
  return res.body as Book;
}

/** A market whose first outcome has room for a resting bid below the best ask, and asks to buy from. */
async function roomyMarket(): Promise<{ market: Market; outcome: string; book: Book }> {
  for (const market of markets) {
    const outcome = market.outcomes[0]?.name;
    if (!outcome) continue;
    const b = await book(market, outcome);
    const bid = b.bids[0]?.[0];
    const ask = b.asks[0];
    if (bid !== undefined && ask !== undefined && ask[0] - bid >= 2 * b.tick_size && ask[1] >= 2) {
      return { market, outcome, book: b };
    }
  }
  assert.fail('no polymarket market with room for a resting bid and asks to buy from');
}

describe('builder orders with fee escrow on the sandbox chain', () => {
  let builder: string;
  let user: { customer_id: string; api_key: string };

  before(async () => {
    builder = (await server.runtime.keys.create({ name: 'builder', tier: 'pro', builder: true })).key;
    const created = await call('/api/v1/builder/users', {
      method: 'POST',
      key: builder,
      body: { external_id: 'escrow-user', qps_limit: 50 },
    });
    assert.equal(created.status, 201, created.text);
    user = created.body as typeof user;
    await call('/api/v1/builder/users', { method: 'POST', key: builder, body: { external_id: 'other' } });
    const onboarded = await call('/api/v1/builder/onboard', {
      method: 'POST',
      key: builder,
      body: { customer_id: user.customer_id, exchange: 'polymarket', mode: 'managed' },
    });
    assert.equal(onboarded.status, 200, onboarded.text);
    // The simulator's markets here are listed on the sandbox chain, where trades settle: as on Polymarket, the
    // user's deposit wallet has approved the exchanges before its orders are taken (set up through the simulator's
    // control: approvals are not among the routes a builder acts on for a user).
    const funder = (onboarded.body as { funder_address?: string }).funder_address;
    assert.ok(funder, onboarded.text);
    const approved = await fetch(`${polymarket.control}/__sim/chain/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: funder }),
    });
    assert.equal(approved.status, 200, await approved.text());
  });

  const place = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call('/api/v1/orders?exchange=polymarket', {
      method: 'POST',
      key: builder,
      headers: { ...as(user.customer_id), ...headers },
      body,
    });

  test('the escrow configuration names the deployed contract, its chain, treasury and EIP-712 domain', async () => {
    const res = await call('/api/v1/builder/escrow/config', { key: builder });
    assert.equal(res.status, 200, res.text);
    const config = res.body as Record<string, unknown>;
    assert.equal(config.fee_escrow_enabled, true);
    assert.equal(config.escrow_contract_address, escrow.address);
    assert.equal(config.chain_id, chain.chainId);
    assert.equal(config.treasury_address, escrow.treasury);
    assert.equal(config.affiliate_address, AFFILIATE);
    assert.equal(config.affiliate_fee_bps, AFFILIATE_BPS);
    assert.equal(config.min_fee_usdc, String(MIN_FEE));
    assert.deepEqual(config.eip712_domain, {
      name: 'Omnibook FeeEscrow',
      version: '1',
      chainId: chain.chainId,
      verifyingContract: escrow.address,
    });
    const seen = await call(`/api/v1/builder/users/${user.customer_id}`, { key: builder });
    assert.equal((seen.body as { fee_escrow_enabled: boolean }).fee_escrow_enabled, true);
  });

  test('a resting order: the fee is pulled into escrow before it is placed, and refunded when it is cancelled', async () => {
    const alice = await payer(1_000_000n);
    const { market, outcome, book: b } = await roomyMarket();
    const price = b.bids[0]![0];
    const fee = 50_000n;
    const auth = await feeAuth(alice, fee);
    const placed = await place({
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price,
      size: 10,
      fee_auth: auth,
      payer_address: alice.address,
    });
    assert.equal(placed.status, 200, placed.text);
    const order = placed.body as ApiOrder;
    assert.equal(order.status, 'open');
    assert.equal(await balance(alice.address), 1_000_000n - fee);
    assert.equal(await balance(escrow.address), fee);

    // Polling an open order settles nothing.
    const polled = await call(`/api/v1/orders/${order.id}?exchange=polymarket`, { key: user.api_key });
    assert.equal((polled.body as ApiOrder).status, 'open');
    assert.equal(await balance(escrow.address), fee);

    const cancelled = await call(`/api/v1/orders/${order.id}?exchange=polymarket`, {
      method: 'DELETE',
      key: builder,
      headers: as(user.customer_id),
    });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal((cancelled.body as ApiOrder).status, 'cancelled');
    assert.equal(await balance(alice.address), 1_000_000n);
    assert.equal(await balance(escrow.address), 0n);
    assert.equal(await balance(AFFILIATE), 0n);
    assert.equal(await balance(escrow.treasury), 0n);
  });

  test('a fill against resting orders splits the fee between affiliate and treasury; a partial fill then cancel settles pro rata', async () => {
    const bob = await payer(1_000_000n);
    const { market, outcome, book: b } = await roomyMarket();
    const [bestAsk, askSize] = b.asks[0]!;
    const affiliate0 = await balance(AFFILIATE);
    const treasury0 = await balance(escrow.treasury);

    // Whole: part of the best ask's size at its price fills at once (the rest of the level stays for below).
    const size = Math.min(5, Math.floor(askSize / 2));
    const fee = 40_000n;
    const filled = await place({
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price: bestAsk,
      size,
      fee_auth: await feeAuth(bob, fee),
    });
    assert.equal(filled.status, 200, filled.text);
    assert.equal((filled.body as ApiOrder).status, 'filled', filled.text);
    const toAffiliate = (fee * BigInt(AFFILIATE_BPS)) / 10_000n;
    assert.equal(await balance(AFFILIATE), affiliate0 + toAffiliate);
    assert.equal(await balance(escrow.treasury), treasury0 + fee - toAffiliate);
    assert.equal(await balance(bob.address), 1_000_000n - fee);
    assert.equal(await balance(escrow.address), 0n);

    // Partial: more than the best ask now holds, at its price; the rest rests (as a bid) until cancelled.
    const after = await book(market, outcome);
    const [ask, left] = after.asks[0]!;
    const partialSize = Math.round((left + 7) * 100) / 100;
    const fee2 = 90_000n;
    const partial = await place({
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price: ask,
      size: partialSize,
      fee_auth: await feeAuth(bob, fee2),
    });
    assert.equal(partial.status, 200, partial.text);
    const p = partial.body as ApiOrder;
    assert.equal(p.status, 'partially_filled', partial.text);
    assert.ok(p.filled > 0 && p.filled < partialSize, partial.text);
    assert.equal(await balance(escrow.address), fee2, 'held while the order is open');
    const cancelled = await call(`/api/v1/orders/${p.id}?exchange=polymarket`, {
      method: 'DELETE',
      key: builder,
      headers: as(user.customer_id),
    });
    assert.equal(cancelled.status, 200, cancelled.text);
    const c = cancelled.body as ApiOrder;
    assert.equal(c.status, 'cancelled');
    const units = (n: number) => BigInt(Math.round(n * 1_000_000));
    const distributed = (fee2 * units(c.filled)) / units(c.size);
    const aff2 = (distributed * BigInt(AFFILIATE_BPS)) / 10_000n;
    assert.ok(distributed > 0n && distributed < fee2);
    assert.equal(await balance(AFFILIATE), affiliate0 + toAffiliate + aff2);
    assert.equal(await balance(escrow.treasury), treasury0 + fee - toAffiliate + distributed - aff2);
    assert.equal(await balance(bob.address), 1_000_000n - fee - distributed);
    assert.equal(await balance(escrow.address), 0n);
  });

  test('a repeated POST with the same Idempotency-Key replays the order and pulls the fee once', async () => {
    const erin = await payer(1_000_000n);
    const { market, outcome, book: b } = await roomyMarket();
    const body = {
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price: b.bids[0]![0],
      size: 10,
      fee_auth: await feeAuth(erin, 30_000n),
    };
    const first = await place(body, { 'idempotency-key': 'escrow-idem-1' });
    assert.equal(first.status, 200, first.text);
    const sent = await venueOrders();
    const again = await place(body, { 'idempotency-key': 'escrow-idem-1' });
    assert.equal(again.status, 200, again.text);
    assert.equal((again.body as ApiOrder).id, (first.body as ApiOrder).id);
    assert.equal(await venueOrders(), sent);
    assert.equal(await balance(erin.address), 970_000n);
    const id = (first.body as ApiOrder).id;
    await call(`/api/v1/orders/${id}?exchange=polymarket`, {
      method: 'DELETE',
      key: builder,
      headers: as(user.customer_id),
    });
    assert.equal(await balance(erin.address), 1_000_000n);
  });

  test('two concurrent POSTs with one Idempotency-Key and one fee_auth: both get the one order (issue 31 item 11)', async () => {
    const frank = await payer(1_000_000n);
    const { market, outcome, book: b } = await roomyMarket();
    const body = {
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price: b.bids[0]![0],
      size: 10,
      fee_auth: await feeAuth(frank, 30_000n),
    };
    // The second arrives while the first is pulling the fee: it used to find the fee recorded and answer 409.
    const both = await Promise.all([
      place(body, { 'idempotency-key': 'escrow-idem-concurrent' }),
      place(body, { 'idempotency-key': 'escrow-idem-concurrent' }),
    ]);
    try {
      const [first, second] = both as [TestResponse, TestResponse];
      assert.equal(first.status, 200, first.text);
      assert.equal(second.status, 200, second.text);
      assert.equal((second.body as ApiOrder).id, (first.body as ApiOrder).id);
      // One journal row (one client order id) and one fee pulled.
      const ids = both.map((r) => (r.body as ApiOrder & { client_order_id: string }).client_order_id);
      assert.equal(ids[0], ids[1]);
      assert.equal(await balance(frank.address), 970_000n);
      // A third with the same key and a different order is still refused.
      const other = await place({ ...body, size: 11 }, { 'idempotency-key': 'escrow-idem-concurrent' });
      assertError(other, 409, 'conflict');
    } finally {
      // Whatever was placed is cancelled, so a failure here leaves no resting order for the tests after it.
      for (const id of new Set(both.filter((r) => r.status === 200).map((r) => (r.body as ApiOrder).id))) {
        await call(`/api/v1/orders/${id}?exchange=polymarket`, {
          method: 'DELETE',
          key: builder,
          headers: as(user.customer_id),
        });
      }
    }
    assert.equal(await balance(frank.address), 1_000_000n);
  });

  test('every bad fee_auth is refused before the exchange: nothing pulled, nothing sent', async () => {
    const carol = await payer(1_000_000n);
    const poor = await payer(10_000_000n, 0n);
    const mallory = new Wallet(generatePrivateKey());
    const { market, outcome, book: b } = await roomyMarket();
    const order = {
      market_id: market.exchange_market_id,
      outcome,
      side: 'buy',
      price: b.bids[0]![0],
      size: 10,
    };
    const now = Math.floor(Date.now() / 1000);
    const reused = await feeAuth(carol, 30_000n);
    // Spent once (placed and cancelled), so its order id has escrowed already.
    const spent = await place({ ...order, fee_auth: reused });
    assert.equal(spent.status, 200, spent.text);
    await call(`/api/v1/orders/${(spent.body as ApiOrder).id}?exchange=polymarket`, {
      method: 'DELETE',
      key: builder,
      headers: as(user.customer_id),
    });
    const carol0 = await balance(carol.address);
    const cases: Array<[string, () => Promise<Record<string, unknown>>, number, string]> = [
      [
        'signed by someone else',
        async () => ({ fee_auth: await feeAuth(mallory, 30_000n, { payer: carol.address }) }),
        400,
        'bad_request',
      ],
      [
        'payer_address is not the payer',
        async () => ({ fee_auth: await feeAuth(carol, 30_000n), payer_address: mallory.address }),
        400,
        'bad_request',
      ],
      [
        'signer_address is not the payer',
        async () => ({ fee_auth: await feeAuth(carol, 30_000n), signer_address: mallory.address }),
        400,
        'bad_request',
      ],
      [
        'expired deadline',
        async () => ({ fee_auth: await feeAuth(carol, 30_000n, { deadline: now - 5 }) }),
        400,
        'bad_request',
      ],
      [
        'fee under the minimum',
        async () => ({ fee_auth: await feeAuth(carol, MIN_FEE - 1n) }),
        400,
        'bad_request',
      ],
      [
        'a larger fee_amount than signed',
        async () => ({ fee_auth: await feeAuth(carol, 30_000n, { amountShown: 40_000n }) }),
        400,
        'bad_request',
      ],
      [
        'signed for another chain',
        async () => ({ fee_auth: await feeAuth(carol, 30_000n, { domain: { chainId: 1 } }) }),
        400,
        'bad_request',
      ],
      [
        'signed for another contract',
        async () => ({
          fee_auth: await feeAuth(carol, 30_000n, {
            domain: { verifyingContract: chain.contracts.collateral },
          }),
        }),
        400,
        'bad_request',
      ],
      [
        'no signature',
        async () => {
          const { signature: _, ...rest } = await feeAuth(carol, 30_000n);
          return { fee_auth: rest };
        },
        400,
        'validation_error',
      ],
      [
        'payer_address without fee_auth',
        async () => ({ payer_address: carol.address }),
        400,
        'validation_error',
      ],
      ['an order id that already escrowed', async () => ({ fee_auth: reused }), 409, 'conflict'],
      [
        'a payer that never approved the escrow',
        async () => ({ fee_auth: await feeAuth(poor, 30_000n) }),
        402,
        'insufficient_funds',
      ],
    ];
    const sent = await venueOrders();
    const escrow0 = await balance(escrow.address);
    for (const [name, extra, status, code] of cases) {
      const res = await place({ ...order, ...(await extra()) });
      assertError(res, status, code);
      assert.equal(await venueOrders(), sent, `${name}: nothing reaches the exchange`);
      assert.equal(await balance(carol.address), carol0, `${name}: nothing pulled`);
      assert.equal(await balance(escrow.address), escrow0, name);
    }
    assert.equal(await balance(poor.address), 10_000_000n);
    const open = await call('/api/v1/orders?exchange=polymarket', { key: user.api_key });
    assert.deepEqual(open.body, []);
  });

  test('fee fields without impersonation are refused (403), even with a valid fee_auth', async () => {
    const dave = await payer(1_000_000n);
    const { market, outcome, book: b } = await roomyMarket();
    const res = await call('/api/v1/orders?exchange=polymarket', {
      method: 'POST',
      key: user.api_key,
      body: {
        market_id: market.exchange_market_id,
        outcome,
        side: 'buy',
        price: b.bids[0]![0],
        size: 10,
        fee_auth: await feeAuth(dave, 30_000n),
      },
    });
    assertError(res, 403, 'forbidden');
    assert.equal(await balance(dave.address), 1_000_000n);
  });
});
