// A paper account made through a simulator's own control route (`POST /__sim/accounts`), for tests that trade or
// hold positions at a simulated venue.
import assert from 'node:assert/strict';

export interface SimAccount {
  address: string;
  credentials: Record<string, string>;
}

export async function createSimAccount(control: string, body: unknown = {}): Promise<SimAccount> {
  const res = await fetch(`${control}/__sim/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 201, `POST ${control}/__sim/accounts: ${await res.clone().text()}`);
  const account = (await res.json()) as { address?: string; credentials: Record<string, string> };
  assert.ok(account.address, `${control}: the account has no address`);
  return { address: account.address, credentials: account.credentials };
}
