// Polymarket's contracts on Polygon (chain 137), CLOB V2. The sandbox chain puts its contracts at these same
// addresses, so live and sandbox differ only in the RPC endpoint. Sources: docs/venues/polymarket.md ("On chain").
import type { Address } from 'viem';

export const POLYGON_CHAIN_ID = 137;

export interface PolymarketContracts {
  /** pUSD, the V2 collateral (6 decimals). */
  collateral: Address;
  /** Gnosis ConditionalTokens: the ERC-1155 outcome tokens. */
  conditionalTokens: Address;
  /** CTF Exchange V2. */
  exchange: Address;
  /** Neg Risk CTF Exchange V2. */
  negRiskExchange: Address;
  negRiskAdapter: Address;
  /** Where the V2 SDK sends split/merge/redeem of standard markets. */
  collateralAdapter: Address;
  negRiskCollateralAdapter: Address;
}

export const POLYGON_V2_CONTRACTS: PolymarketContracts = {
  collateral: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
  conditionalTokens: '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045',
  exchange: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRiskExchange: '0xe2222d279d744050d28e00520010520000310F59',
  negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
  collateralAdapter: '0xAdA100Db00Ca00073811820692005400218FcE1f',
  negRiskCollateralAdapter: '0xadA2005600Dec949baf300f4C6120000bDB6eAab',
};
