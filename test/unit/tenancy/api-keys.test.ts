import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TIERS } from '../../../src/domain/tiers.js';
import type { ApiKeyRow } from '../../../src/store/api-keys-repo.js';
import { toPrincipal } from '../../../src/tenancy/api-keys.js';

function row(over: Partial<ApiKeyRow>): ApiKeyRow {
  return {
    id: 'key_1',
    key_hash: 'h',
    prefix: 'ob_x',
    name: 'n',
    tier: 'scale',
    is_builder: 0,
    customer_id: 'cus_1',
    qps_limit: null,
    burst: null,
    created_at: '2026-01-01T00:00:00.000Z',
    revoked_at: null,
    mcp_trading: 0,
    ...over,
  };
}

test('a key without overrides has its tier rate and burst', () => {
  const { limits } = toPrincipal(row({ tier: 'pro' }));
  assert.equal(limits.restQps, TIERS.pro.restQps);
  assert.equal(limits.restQpsBurst, TIERS.pro.restQpsBurst);
});

test("a qps_limit sets the burst in the tier's proportion, never the tier's whole burst (issue 31 item 8)", () => {
  // 500 end-users at 1 QPS each out of a 500 QPS pool: each bursts 2 (scale: burst = 2 × rate), not 400.
  assert.equal(toPrincipal(row({ tier: 'scale', qps_limit: 1 })).limits.restQpsBurst, 2);
  assert.equal(toPrincipal(row({ tier: 'free', qps_limit: 4 })).limits.restQpsBurst, 4);
  assert.equal(toPrincipal(row({ tier: 'pro', qps_limit: 100 })).limits.restQpsBurst, 200);
  // A bucket holds at least one request, or a sub-1 QPS key could never send one.
  assert.equal(toPrincipal(row({ tier: 'scale', qps_limit: 0.01 })).limits.restQpsBurst, 1);
  // An explicit burst stays as given.
  assert.equal(toPrincipal(row({ tier: 'scale', qps_limit: 1, burst: 7 })).limits.restQpsBurst, 7);
});

test('a builder row stored as admin acts as scale', () => {
  assert.equal(toPrincipal(row({ tier: 'admin', is_builder: 1 })).tier, 'scale');
  assert.equal(toPrincipal(row({ tier: 'admin', is_builder: 0 })).tier, 'admin');
});

test('the MCP order tools are off unless the key row enables them', () => {
  assert.equal(toPrincipal(row({})).mcpTrading, false);
  assert.equal(toPrincipal(row({ mcp_trading: 1 })).mcpTrading, true);
});
