// Polymarket signature types end to end, adapter against simulator over loopback: a post-cutover account is
// refused on type 0 with the venue's text (403-free: a 4xx naming the deposit-wallet flow) and trades through its
// deposit wallet (type 3, found through the relayer when funder_address is left out); a legacy account trades on
// 0, 1 and 2; balances are read for the funder; ensureDepositWallet creates a wallet once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey } from 'viem/accounts';
import type { Market } from '../../../src/domain/market.js';
import type { OrderRequest } from '../../../src/domain/trading.js';
import { AppError } from '../../../src/errors/app-error.js';
import type { VenueSession } from '../../../src/venues/port.js';
import { liquidMarkets, startVenue, type VenueUnderTest } from './harness.js';

interface SimAccount {
  credentials: Record<string, string>;
  address: string;
  wallets: { proxy?: string; safe?: string; deposit?: string };
}

describe('polymarket: signature types and deposit wallets (adapter ↔ simulator)', () => {
  let venue: VenueUnderTest;
  let market: Market;

  before(async () => {
    venue = await startVenue('polymarket');
    [market] = (await liquidMarkets(venue, 1)) as [Market];
  });
  after(() => venue?.close());

  const account = async (
    kind: 'legacy' | 'deposit',
    extra: Record<string, unknown> = {},
  ): Promise<SimAccount> => {
    const res = await fetch(`${venue.controlUrl}/__sim/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind, collateral: '100000000', ...extra }),
    });
    assert.equal(res.status, 201);
    return (await res.json()) as SimAccount;
  };
  const session = (credentials: Record<string, string>): VenueSession => ({
    exchange: 'polymarket',
    credentials,
    source: 'per_request',
  });
  const order = (): OrderRequest => ({
    market_id: market.exchange_market_id,
    outcome: 'Yes',
    side: 'buy',
    price: 0.01,
    size: 5,
    order_type: 'gtc',
    client_order_id: randomUUID(),
  });
  const place = (s: VenueSession) => {
    const create = venue.adapter.trading.createOrder;
    assert.ok(create);
    return create.call(venue.adapter.trading, venue.ctx(), s, order());
  };
  const balance = async (s: VenueSession) => {
    const fetchBalance = venue.adapter.trading.fetchBalance;
    assert.ok(fetchBalance);
    return String((await fetchBalance.call(venue.adapter.trading, venue.ctx(), s)).raw.balance);
  };

  test('a post-cutover account is refused on type 0 and accepted through its deposit wallet (type 3)', async () => {
    const a = await account('deposit');
    const asEoa = session({ ...a.credentials, signature_type: '0', funder_address: '' });
    await assert.rejects(place(asEoa), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.ok(error.status >= 400 && error.status < 500, `${error.status} ${error.message}`);
      assert.match(error.message, /please use the deposit wallet flow/);
      return true;
    });
    const asWallet = session(a.credentials);
    const placed = await place(asWallet);
    assert.equal(placed.status, 'open');
    // Without funder_address the adapter finds the deposit wallet through the relayer.
    const { funder_address: _, ...noFunder } = a.credentials;
    assert.equal((await place(session(noFunder))).status, 'open');
    assert.equal(await balance(asWallet), '100000000', 'the funder (deposit wallet) balance, not the EOA');
    assert.equal(await balance(asEoa), '0');
  });

  test('a deposit-wallet order the exchange still refuses for the account is 403 forbidden naming the upstream issue', async () => {
    const a = await account('deposit', { deposit_orders_refused: true });
    await assert.rejects(place(session(a.credentials)), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'forbidden', error.message);
      assert.equal(error.retryable, false);
      assert.match(error.message, /deposit-wallet \(signature_type 3\) order/);
      assert.match(error.message, /py-clob-client-v2 #70, #103/);
      assert.match(error.message, /order signer address has to be the address of the API KEY/);
      return true;
    });
    // The same text for a type-0 order whose key is not the signer's stays an authentication failure.
    const other = await account('legacy');
    const mismatched = session({
      ...other.credentials,
      clob_api_key: a.credentials.clob_api_key as string,
      clob_api_secret: a.credentials.clob_api_secret as string,
      clob_api_passphrase: a.credentials.clob_api_passphrase as string,
      signature_type: '0',
    });
    await assert.rejects(place(mismatched), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'authentication_failed', error.message);
      return true;
    });
  });

  test('without funder_address the deposit wallet is derived locally (CREATE2) and checked with /deployed, never /relay-payload', async () => {
    const a = await account('deposit');
    const { funder_address: wallet, ...noFunder } = a.credentials;
    await venue.sim.clearRequests();
    const placed = await place(session(noFunder));
    assert.equal(placed.status, 'open');
    const routes = [...(await venue.sim.requests()).keys()].filter((r) => r.startsWith('relayer '));
    assert.deepEqual(routes, ['relayer GET /deployed'], routes.join(', '));
    assert.equal(await balance(session(noFunder)), '100000000', `the wallet found is ${wallet}`);
  });

  test('a legacy account trades on types 0, 1 and 2 and each reads its own funder balance', async () => {
    const a = await account('legacy');
    const base = { ...a.credentials };
    const sessions = [
      session({ ...base, signature_type: '0' }),
      session({ ...base, signature_type: '1', funder_address: a.wallets.proxy as string }),
      session({ ...base, signature_type: '2', funder_address: a.wallets.safe as string }),
    ];
    for (const s of sessions) {
      assert.equal((await place(s)).status, 'open');
      // 0.01 × 5 shares reserved out of 100 pUSD in each wallet; the balance itself is unchanged until a fill.
      assert.equal(await balance(s), '100000000');
    }
  });

  test('type 1 and 2 need funder_address; a bad signature_type is a 400 naming the field', async () => {
    const a = await account('legacy');
    for (const credentials of [
      { ...a.credentials, signature_type: '1' },
      { ...a.credentials, signature_type: '7' },
    ]) {
      await assert.rejects(place(session(credentials)), (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.status, 400);
        assert.match(error.message, /signature_type|funder_address/);
        return true;
      });
    }
  });

  test('ensureDepositWallet creates the signer’s deposit wallet once and the new account trades through it', async () => {
    const ensure = venue.adapter.trading.ensureDepositWallet;
    assert.ok(ensure);
    const s = session({ private_key: generatePrivateKey() });
    const first = await ensure.call(venue.adapter.trading, venue.ctx(), s);
    assert.equal(first.created, true);
    assert.match(first.address, /^0x[0-9a-fA-F]{40}$/);
    const again = await ensure.call(venue.adapter.trading, venue.ctx(), s);
    assert.deepEqual(again, { address: first.address, created: false });
    const trading = session({ ...s.credentials, signature_type: '3' });
    assert.equal((await place(trading)).status, 'open');
  });
});
