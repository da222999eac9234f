// The state one simulator instance shares across its listeners: catalogue, exchange, accounts and clock, plus the
// options that shape authentication and onboarding.
import type { SimClock } from '../shared/control.js';
import type { Accounts } from './accounts.js';
import type { Catalogue } from './catalogue.js';
import type { SimChain } from './chain.js';
import type { Exchange } from './exchange.js';
import type { WalletRegistry } from './wallet-registry.js';

export interface PmContext {
  cat: Catalogue;
  exchange: Exchange;
  accounts: Accounts;
  /** Account creation dates and the contract wallets (proxy, Safe, deposit wallet) each EOA owns. */
  wallets: WalletRegistry;
  clock: SimClock;
  /** L1/L2 timestamp tolerance against the wall clock, seconds. */
  authWindowSeconds: number;
  /** Collateral (base units) a wallet receives the first time it authenticates with L1. */
  newWalletBalance: number;
  /** The sandbox chain, when the simulator runs with one (conditions, collateral, the relayer's executions). */
  chain: SimChain | null;
}
