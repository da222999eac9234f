// Who is calling: the verified API key with its effective limits (tier limits, with per-key QPS overrides applied).
import type { TierLimits, TierName } from '../domain/tiers.js';

export interface Principal {
  keyId: string;
  customerId: string;
  tier: TierName;
  isBuilder: boolean;
  /** The MCP order tools are enabled for this key (api_keys.mcp_trading). */
  mcpTrading: boolean;
  limits: TierLimits;
}
