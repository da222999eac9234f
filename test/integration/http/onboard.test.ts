// POST /onboard, GET /wallet and POST /wallet/export-key end to end: the real server over the Polymarket and Kalshi
// simulators. Credentials are proven at the exchange before they are stored, repeating is safe, every validation
// rule answers 400 naming fields, bad credentials answer 403 with nothing stored, a venue that does not answer is a
// 503, and the stored record is the session later private calls get.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { type RunningSimVenue, SIM_VENUE_LAUNCHERS } from '../../../src/cli/sandbox-venues.js';
import { loadConfig } from '../../../src/config/load.js';
import { CredentialsRepo } from '../../../src/store/credentials-repo.js';
import { CredentialsStore } from '../../../src/vault/credentials-store.js';
import { MasterKeyring, parseMasterKey } from '../../../src/vault/master-key.js';
import { assertError } from '../../support/error-shape.js';
import { startTestServer, type TestServer } from '../../support/server.js';

let server: TestServer;
let polymarket: RunningSimVenue;
let kalshi: RunningSimVenue;

before(async () => {
  const config = loadConfig({ env: {}, overrides: { mode: 'sandbox' } });
  polymarket = await SIM_VENUE_LAUNCHERS.polymarket!(config, { size: 3, seed: 7 });
  kalshi = await SIM_VENUE_LAUNCHERS.kalshi!(config, { size: 3, seed: 7 });
  server = await startTestServer({
    venues: [polymarket.adapter, kalshi.adapter],
    config: { logLevel: 'info' },
  });
});
after(async () => {
  await server?.stop();
  await polymarket?.close();
  await kalshi?.close();
});

/** A fresh customer with its own API key. */
async function customer(): Promise<{ key: string; customerId: string }> {
  const { key, info } = await server.runtime.keys.create({ name: 'onboard test', tier: 'pro' });
  return { key, customerId: info.customer_id };
}

const onboard = (key: string, body: unknown) =>
  server.request('/api/v1/onboard', { method: 'POST', key, body });

/** The server's own vault, opened with the key file it created on first run. */
function vault(): CredentialsStore {
  const key = parseMasterKey(readFileSync(join(server.dataDir, 'master.key'), 'utf8'));
  return new CredentialsStore(new CredentialsRepo(server.runtime.store.db), new MasterKeyring(key));
}

async function rowsOf(customerId: string): Promise<number> {
  return (await new CredentialsRepo(server.runtime.store.db).listFor(customerId)).length;
}

async function simFaults(sim: RunningSimVenue, body: unknown | null): Promise<void> {
  const res = await fetch(`${sim.control}/__sim/faults`, {
    method: body === null ? 'DELETE' : 'POST',
    headers: body === null ? {} : { 'content-type': 'application/json' },
    ...(body === null ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(res.ok);
}

async function simRequests(sim: RunningSimVenue): Promise<Map<string, number>> {
  const res = await fetch(`${sim.control}/__sim/requests`);
  const { counts } = (await res.json()) as { counts: Record<string, number> };
  return new Map(Object.entries(counts));
}

/** A PEM RSA key the simulator never issued. */
const strangerPem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;

describe('kalshi self', () => {
  test('valid credentials are proven, stored sealed and become the stored session; repeating is safe', async () => {
    const { key, customerId } = await customer();
    const account = await kalshi.createAccount();
    const body = { exchange: 'kalshi', mode: 'self', ...account.credentials };
    const first = await onboard(key, body);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, {
      exchange: 'kalshi',
      mode: 'self',
      status: 'complete',
      linked_exchanges: ['kalshi'],
      steps_completed: ['exchange_linked', 'credentials_validated', 'credentials_stored'],
    });
    const again = await onboard(key, body);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, first.body);
    assert.equal(await rowsOf(customerId), 1);
    assert.deepEqual(await vault().sessionFor(customerId, 'kalshi'), {
      exchange: 'kalshi',
      credentials: account.credentials,
      source: 'stored',
    });
    const wallet = await server.request('/api/v1/wallet', { key });
    assert.equal(wallet.status, 200, wallet.text);
    assert.deepEqual(wallet.body, {
      wallet: null,
      wallets: [],
      session_signer: null,
      linked_exchanges: [{ exchange: 'kalshi', has_credentials: true }],
    });
  });

  test('credentials the exchange rejects answer 403 and store nothing', async () => {
    const { key, customerId } = await customer();
    const account = await kalshi.createAccount();
    const res = await onboard(key, {
      exchange: 'kalshi',
      mode: 'self',
      api_key_id: account.credentials.api_key_id,
      private_key: strangerPem(),
    });
    assertError(res, 403, 'authentication_failed');
    assert.equal(await rowsOf(customerId), 0);
  });

  test('an exchange that does not answer is a 503 and stores nothing', async () => {
    const { key, customerId } = await customer();
    const account = await kalshi.createAccount();
    await simFaults(kalshi, { error_rate: 1, error_status: 503 });
    try {
      const res = await onboard(key, { exchange: 'kalshi', mode: 'self', ...account.credentials });
      assertError(res, 503, 'service_unavailable');
    } finally {
      await simFaults(kalshi, null);
    }
    assert.equal(await rowsOf(customerId), 0);
  });

  test('every validation rule answers 400 naming the fields', async () => {
    const { key, customerId } = await customer();
    const account = await kalshi.createAccount();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ private_key: account.credentials.private_key }, ['body.api_key_id is required for kalshi']],
      [{ api_key_id: 'k' }, ['body.private_key is required for kalshi']],
      [{ ...account.credentials, api_key_id: 7 }, ['body.api_key_id must be a string']],
      [
        { ...account.credentials, passphrase: 'x' },
        [
          'body has 1 field(s) kalshi onboarding does not take (names not repeated; it takes exchange, mode, wallet_type, eoa_address, funder_address, chain_id, api_key_id, private_key)',
        ],
      ],
      [
        {
          ...account.credentials,
          wallet_type: 'eoa',
          funder_address: '0x0000000000000000000000000000000000000001',
        },
        ['body.wallet_type applies to polymarket only', 'body.funder_address applies to polymarket only'],
      ],
      [
        { ...account.credentials, private_key: 'not a pem' },
        ['credentials.private_key must be the PEM private key of the Kalshi API key'],
      ],
    ];
    for (const [fields, messages] of cases) {
      const res = await onboard(key, { exchange: 'kalshi', mode: 'self', ...fields });
      const body = assertError(res, 400, 'validation_error');
      assert.deepEqual(body.validation_errors, messages, res.text);
    }
    assertError(
      await onboard(key, { exchange: 'kalshi', mode: 'custodial', ...account.credentials }),
      400,
      'validation_error',
    );
    assertError(await onboard(key, { mode: 'self', ...account.credentials }), 400, 'missing_parameter');
    assertError(await onboard(key, { exchange: 'nowhere', mode: 'self' }), 404, 'exchange_not_found');
    const managed = assertError(
      await onboard(key, { exchange: 'kalshi', mode: 'managed' }),
      501,
      'not_supported',
    );
    assert.match(String(managed.error), /kalshi does not offer managed onboarding; it offers self/);
    assert.equal(await rowsOf(customerId), 0);
  });
});

describe('polymarket self', () => {
  test('a private key alone: the CLOB key is derived once per signer, and repeating is safe', async () => {
    const { key, customerId } = await customer();
    const account = await polymarket.createAccount();
    const privateKey = account.credentials.private_key ?? '';
    const eoa = privateKeyToAccount(privateKey as `0x${string}`).address;
    const derivations = async () => (await simRequests(polymarket)).get('clob GET /auth/derive-api-key') ?? 0;
    const before = await derivations();
    const body = { exchange: 'polymarket', mode: 'self', private_key: privateKey };
    const first = await onboard(key, body);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, {
      exchange: 'polymarket',
      mode: 'self',
      status: 'complete',
      eoa_address: eoa,
      wallet_type: 'eoa',
      linked_exchanges: ['polymarket'],
      steps_completed: [
        'external_eoa_provided',
        'exchange_linked',
        'credentials_validated',
        'credentials_stored',
      ],
    });
    const again = await onboard(key, {
      ...body,
      eoa_address: eoa.toLowerCase(),
      wallet_type: 'eoa',
      chain_id: 137,
    });
    assert.deepEqual(again.body, first.body);
    assert.equal(await derivations(), before + 1, 'one L1 derivation for the signer, reused');
    assert.deepEqual(await vault().sessionFor(customerId, 'polymarket'), {
      exchange: 'polymarket',
      credentials: { private_key: privateKey },
      source: 'stored',
    });
  });

  test('CLOB credentials sent along are stored with the key; wrong ones answer 403 and store nothing', async () => {
    const { key, customerId } = await customer();
    const account = await polymarket.createAccount();
    const good = await onboard(key, { exchange: 'polymarket', mode: 'self', ...account.credentials });
    assert.equal(good.status, 200, good.text);
    assert.deepEqual((await vault().sessionFor(customerId, 'polymarket'))?.credentials, account.credentials);

    const other = await customer();
    const bad = await onboard(other.key, {
      exchange: 'polymarket',
      mode: 'self',
      ...account.credentials,
      clob_api_secret: Buffer.from('not the secret').toString('base64url'),
    });
    assertError(bad, 403, 'authentication_failed');
    assert.equal(await rowsOf(other.customerId), 0);
  });

  test('every wallet rule answers 400 naming the fields', async () => {
    const { key, customerId } = await customer();
    const account = await polymarket.createAccount();
    const pk = account.credentials.private_key ?? '';
    const someone = '0x00000000000000000000000000000000000000aa';
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{}, ['body.private_key is required for polymarket']],
      [{ private_key: 'abc' }, ['body.private_key must be 64 hex characters, optionally 0x-prefixed']],
      [{ private_key: `0x${'0'.repeat(64)}` }, ['body.private_key is not a valid secp256k1 private key']],
      [
        { private_key: pk, funder_address: someone },
        ['body.funder_address applies to wallet_type safe, proxy or deposit'],
      ],
      [
        { private_key: pk, wallet_type: 'safe' },
        [
          'body.eoa_address is required for wallet_type safe (the Safe owner that signs)',
          'body.funder_address is required for wallet_type safe (the wallet holding the funds)',
        ],
      ],
      [
        { private_key: pk, wallet_type: 'proxy' },
        ['body.funder_address is required for wallet_type proxy (the wallet holding the funds)'],
      ],
      [{ private_key: pk, chain_id: 1 }, ['body.chain_id must be 137 (Polygon), where Polymarket trades']],
      [
        { private_key: pk, eoa_address: 'nope' },
        ['body.eoa_address must be a 0x-prefixed 20-byte hex address'],
      ],
      [
        { private_key: pk, eoa_address: someone },
        ['body.eoa_address is not the address of body.private_key'],
      ],
      [
        { private_key: pk, wallet_type: 'proxy', funder_address: '0x12' },
        ['body.funder_address must be a 0x-prefixed 20-byte hex address'],
      ],
      [
        { private_key: pk, signature_type: '2' },
        ['body.signature_type disagrees with wallet_type eoa (signature type 0)'],
      ],
      [
        { private_key: pk, api_key_id: 'x' },
        [
          'body has 1 field(s) polymarket onboarding does not take (names not repeated; it takes exchange, mode, wallet_type, eoa_address, funder_address, chain_id, private_key, clob_api_key, clob_api_secret, clob_api_passphrase)',
        ],
      ],
      [
        { private_key: pk, clob_api_key: 'only-one' },
        ['credentials: send all three CLOB API fields, or none to derive them from private_key'],
      ],
    ];
    for (const [fields, messages] of cases) {
      const res = await onboard(key, { exchange: 'polymarket', mode: 'self', ...fields });
      const body = assertError(res, 400, 'validation_error');
      assert.deepEqual(body.validation_errors, messages, res.text);
      assert.ok(!res.text.includes(pk.slice(2)), 'an error never quotes the key');
    }
    assertError(
      await onboard(key, { exchange: 'polymarket', mode: 'self', private_key: pk, wallet_type: 'multisig' }),
      400,
      'validation_error',
    );
    assert.equal(await rowsOf(customerId), 0);
  });

  test('proxy, safe and deposit wallets sign for their funder once the adapter can; until then 501', async () => {
    const { key, customerId } = await customer();
    const account = await polymarket.createAccount();
    const pk = account.credentials.private_key ?? '';
    const eoa = privateKeyToAccount(pk as `0x${string}`).address;
    const funder = '0x00000000000000000000000000000000000000f1';
    const signsForFunder = polymarket.adapter.descriptor.credentials.some((f) => f.name === 'funder_address');
    const res = await onboard(key, {
      exchange: 'polymarket',
      mode: 'self',
      private_key: pk,
      wallet_type: 'safe',
      eoa_address: eoa,
      funder_address: funder,
    });
    if (!signsForFunder) {
      assertError(res, 501, 'not_supported');
      assert.equal(await rowsOf(customerId), 0);
      const deposit = await onboard(key, {
        exchange: 'polymarket',
        mode: 'self',
        private_key: pk,
        wallet_type: 'deposit',
      });
      assertError(deposit, 501, 'not_supported');
      return;
    }
    // With a funder-signing adapter the simulator decides whether this Safe is the signer's: either answer is
    // an honest one, and a refusal stores nothing.
    if (res.status === 200) {
      assert.equal((res.body as { safe_address: string }).safe_address, funder);
      const session = await vault().sessionFor(customerId, 'polymarket');
      assert.equal(session?.credentials.signature_type, '2');
      assert.equal(session?.credentials.funder_address, funder);
    } else {
      assert.ok([400, 403].includes(res.status), res.text);
      assert.equal(await rowsOf(customerId), 0);
    }
  });
});

describe('polymarket self, deposit wallet', () => {
  test('without funder_address the deposit wallet is created on the venue; repeating answers the same wallet', async () => {
    const { key, customerId } = await customer();
    const account = await polymarket.createAccount();
    const pk = account.credentials.private_key ?? '';
    const body = { exchange: 'polymarket', mode: 'self', private_key: pk, wallet_type: 'deposit' };
    const first = await onboard(key, body);
    assert.equal(first.status, 200, first.text);
    const result = first.body as Record<string, unknown>;
    assert.match(String(result.deposit_wallet_address), /^0x[0-9a-fA-F]{40}$/);
    assert.equal(result.funder_address, result.deposit_wallet_address);
    assert.deepEqual(result.steps_completed, [
      'external_eoa_provided',
      'wallet_deposit_created',
      'exchange_linked',
      'credentials_validated',
      'credentials_stored',
    ]);
    const again = await onboard(key, body);
    assert.deepEqual(again.body, first.body);
    // Naming the wallet it now has is the same onboarding.
    const named = await onboard(key, { ...body, funder_address: result.deposit_wallet_address });
    assert.equal(named.status, 200, named.text);
    assert.equal(
      (named.body as Record<string, unknown>).deposit_wallet_address,
      result.deposit_wallet_address,
    );
    assert.deepEqual((await vault().sessionFor(customerId, 'polymarket'))?.credentials, {
      private_key: pk,
      signature_type: '3',
      funder_address: String(result.deposit_wallet_address),
    });
  });
});

describe('polymarket managed', () => {
  test('creates and seals a wallet, answers the same addresses on repeat, and exports its key', async () => {
    const { key, customerId } = await customer();
    const noWallet = await server.request('/api/v1/wallet/export-key', {
      method: 'POST',
      key,
      body: { wallet_type: 'eoa' },
    });
    assertError(noWallet, 404, 'not_found');

    const first = await onboard(key, { exchange: 'polymarket', mode: 'managed' });
    assert.equal(first.status, 200, first.text);
    const result = first.body as Record<string, unknown>;
    const deposit = polymarket.adapter.trading.ensureDepositWallet !== undefined;
    assert.equal(result.mode, 'managed');
    assert.equal(result.status, 'complete');
    assert.match(String(result.eoa_address), /^0x[0-9a-fA-F]{40}$/);
    assert.equal(result.wallet_type, deposit ? 'deposit' : 'eoa');
    assert.deepEqual(
      result.steps_completed,
      deposit
        ? [
            'wallet_eoa_created',
            'wallet_deposit_created',
            'exchange_linked',
            'credentials_validated',
            'credentials_stored',
          ]
        : ['wallet_eoa_created', 'exchange_linked', 'credentials_validated', 'credentials_stored'],
    );
    if (deposit) assert.match(String(result.deposit_wallet_address), /^0x[0-9a-fA-F]{40}$/);

    const again = await onboard(key, { exchange: 'polymarket', mode: 'managed', chain_id: 137 });
    assert.deepEqual(again.body, first.body, 'the same wallet, not a new one');
    assert.equal(await rowsOf(customerId), 1);
    const session = await vault().sessionFor(customerId, 'polymarket');
    assert.equal(session?.source, 'managed');

    // Managed and self do not mix on one exchange.
    const account = await polymarket.createAccount();
    assertError(
      await onboard(key, { exchange: 'polymarket', mode: 'self', ...account.credentials }),
      409,
      'conflict',
    );

    const wallet = await server.request('/api/v1/wallet', { key });
    assert.equal(wallet.status, 200, wallet.text);
    const state = wallet.body as { wallet: Record<string, unknown>; wallets: Array<Record<string, unknown>> };
    assert.equal(state.wallet.eoa_address, result.eoa_address);
    assert.equal(state.wallet.wallet_type, 'eoa');
    assert.equal(state.wallet.chain_id, 137);
    assert.equal(state.wallets.length, deposit ? 2 : 1);

    const exported = await server.request('/api/v1/wallet/export-key', {
      method: 'POST',
      key,
      body: { wallet_type: 'eoa' },
    });
    assert.equal(exported.status, 200, exported.text);
    assert.equal(exported.headers.get('cache-control'), 'no-store');
    const privateKey = (exported.body as { private_key: `0x${string}` }).private_key;
    assert.equal(privateKeyToAccount(privateKey).address, result.eoa_address);
    assert.equal(session?.credentials.private_key, privateKey);

    const safe = await server.request('/api/v1/wallet/export-key', {
      method: 'POST',
      key,
      body: { wallet_type: 'safe' },
    });
    assertError(safe, 400, 'validation_error');
    assertError(
      await server.request('/api/v1/wallet/export-key', {
        method: 'POST',
        key,
        body: { wallet_type: 'hot' },
      }),
      400,
      'validation_error',
    );

    // The export is audited, without the key.
    const audit = server.logs.filter((line) => line.includes('"audit":"wallet_export_key"'));
    assert.equal(audit.length, 1);
    assert.ok(audit[0]?.includes(customerId));
    assert.ok(!server.logs.some((line) => line.includes(privateKey.slice(2))));
  });

  test('managed onboarding takes no credentials or wallet addresses', async () => {
    const { key, customerId } = await customer();
    const res = await onboard(key, {
      exchange: 'polymarket',
      mode: 'managed',
      private_key: `0x${'1'.repeat(64)}`,
      funder_address: '0x00000000000000000000000000000000000000aa',
      wallet_type: 'safe',
    });
    const body = assertError(res, 400, 'validation_error');
    assert.deepEqual(body.validation_errors, [
      'body.private_key: managed onboarding takes no credentials (the service creates the wallet)',
      'body.funder_address: a managed wallet is created by the service',
      'body.wallet_type: a managed wallet is eoa or deposit',
    ]);
    assert.ok(!res.text.includes('1'.repeat(64)));
    assert.equal(await rowsOf(customerId), 0);
  });

  test('self credentials first: managed onboarding on the same exchange is a conflict', async () => {
    const { key } = await customer();
    const account = await polymarket.createAccount();
    assert.equal(
      (await onboard(key, { exchange: 'polymarket', mode: 'self', ...account.credentials })).status,
      200,
    );
    assertError(await onboard(key, { exchange: 'polymarket', mode: 'managed' }), 409, 'conflict');
    assertError(
      await server.request('/api/v1/wallet/export-key', {
        method: 'POST',
        key,
        body: { wallet_type: 'eoa' },
      }),
      404,
      'not_found',
    );
  });
});
