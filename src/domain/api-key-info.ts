// What an API key looks like to an administrator (GET/POST /keys): never the clear key or its hash, which only
// the creation response and the store hold respectively.
import { type Static, Type } from 'typebox';
import { TIER_NAMES } from './tiers.js';

export const ApiKeyInfo = Type.Object({
  id: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, for recognising it' }),
  name: Type.String(),
  tier: Type.Enum(TIER_NAMES),
  builder: Type.Boolean(),
  customer_id: Type.String(),
  qps_limit: Type.Union([Type.Number(), Type.Null()]),
  burst: Type.Union([Type.Number(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  mcp_trading: Type.Boolean({
    description: 'The MCP order tools (place_order, cancel_order) are enabled for this key',
  }),
});
export type ApiKeyInfo = Static<typeof ApiKeyInfo>;
