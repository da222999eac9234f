// The set of venues this server runs, checked at start: a declared capability must have its facet method and an
// undeclared one must not, so GET /exchanges can never promise what the code does not do.
import {
  CircuitBreaker,
  type CircuitPolicy,
  type CircuitState,
  type VenueCircuit,
} from '../domain/circuit-breaker.js';
import type { ExchangeId } from '../domain/exchanges.js';
import { PayloadDrift } from '../domain/payload-drift.js';
import { guardAdapter } from './circuit-guard.js';
import type { Capability, VenueAdapter } from './port.js';

type FacetName = 'catalog' | 'marketData' | 'trading';
/** A facet and one of its own method names, so the table below cannot name a method no facet has. */
type FacetMethod = { [F in FacetName]: [F, keyof VenueAdapter[F] & string] }[FacetName];

/** Capabilities that map to one facet method. The others are served by our own services or streams. */
const CAPABILITY_METHODS: Partial<Record<Capability, FacetMethod>> = {
  fetch_markets: ['catalog', 'fetchMarketsPage'],
  fetch_events: ['catalog', 'fetchEventsPage'],
  fetch_orderbook: ['marketData', 'fetchOrderBook'],
  fetch_price_history: ['marketData', 'fetchPriceHistory'],
  fetch_trades: ['marketData', 'fetchTrades'],
  fetch_user_activity: ['marketData', 'fetchUserActivity'],
  watch_address: ['marketData', 'fetchWalletActivity'],
  fetch_execution_price: ['marketData', 'fetchFeeSchedule'],
  create_order: ['trading', 'createOrder'],
  cancel_order: ['trading', 'cancelOrder'],
  fetch_order_history: ['trading', 'fetchOrderHistory'],
  fetch_fills: ['trading', 'fetchFills'],
  fetch_positions: ['trading', 'fetchPositions'],
  fetch_balance: ['trading', 'fetchBalance'],
  websocket: ['marketData', 'openMarketStream'],
};

export class RegistryError extends Error {
  override readonly name = 'RegistryError';
}

export interface CircuitOptions {
  policy: CircuitPolicy;
  now?: () => number;
  onTransition?: (exchange: ExchangeId, from: CircuitState, to: CircuitState) => void;
}

export class VenueRegistry {
  private readonly byId = new Map<ExchangeId, VenueAdapter>();
  private readonly breakers: VenueCircuit[] = [];
  /** Venue answers that failed their decoder (counted by the guard, so only with `circuits`). */
  readonly drift = new PayloadDrift();

  /**
   * With `circuits`, every adapter is handed out behind its venue's circuit breaker (`circuit-guard.ts`): the one
   * place all adapter calls pass, whoever makes them.
   */
  constructor(adapters: readonly VenueAdapter[], circuits?: CircuitOptions) {
    for (const adapter of adapters) {
      const id = adapter.descriptor.id;
      if (this.byId.has(id)) throw new RegistryError(`venue ${id} registered twice`);
      checkFacets(adapter);
      if (circuits) {
        const breaker = new CircuitBreaker(circuits.policy, circuits.now, (from, to) =>
          circuits.onTransition?.(id, from, to),
        );
        this.breakers.push({ exchange: id, breaker });
        this.byId.set(id, guardAdapter(adapter, breaker, this.drift));
      } else {
        this.byId.set(id, adapter);
      }
    }
  }

  /** Each venue's circuit breaker (empty when the registry runs without them). */
  circuits(): readonly VenueCircuit[] {
    return this.breakers;
  }

  get(id: ExchangeId): VenueAdapter | undefined {
    return this.byId.get(id);
  }

  has(id: ExchangeId): boolean {
    return this.byId.has(id);
  }

  list(): VenueAdapter[] {
    return [...this.byId.values()];
  }
}

function checkFacets(adapter: VenueAdapter): void {
  const { id, has } = adapter.descriptor;
  const problems: string[] = [];
  for (const [capability, target] of Object.entries(CAPABILITY_METHODS) as Array<[Capability, FacetMethod]>) {
    const [facet, method] = target;
    const declared = has[capability] !== 'unsupported';
    const present = typeof (adapter[facet] as unknown as Record<string, unknown>)[method] === 'function';
    if (declared && !present) problems.push(`${capability} is declared but ${facet}.${method} is missing`);
    if (!declared && present) problems.push(`${capability} is not declared but ${facet}.${method} exists`);
  }
  if (has.create_order !== 'unsupported' && typeof adapter.trading.lookupOrder !== 'function') {
    problems.push('create_order needs trading.lookupOrder (lost answers are reconciled, never re-sent)');
  }
  if (has.refresh_balance !== 'unsupported' && has.fetch_balance === 'unsupported') {
    problems.push('refresh_balance needs fetch_balance');
  }
  // An arbitrage leg is a walk of the venue's live book priced with its fee parameters.
  if (
    has.fetch_arbitrage !== 'unsupported' &&
    (has.fetch_orderbook === 'unsupported' || has.fetch_execution_price === 'unsupported')
  ) {
    problems.push('fetch_arbitrage needs fetch_orderbook and fetch_execution_price');
  }
  // An opportunity is net of both legs' taker fees: a venue without a fee model cannot have one honestly.
  const { takerFeeModel } = adapter.descriptor.features;
  if (has.fetch_arbitrage !== 'unsupported' && takerFeeModel === null) {
    problems.push('fetch_arbitrage needs a takerFeeModel (features)');
  }
  // The model's parameters are the fee schedule the venue publishes per market.
  if (takerFeeModel !== null && has.fetch_execution_price === 'unsupported') {
    problems.push(`takerFeeModel ${takerFeeModel} needs fetch_execution_price (the fee schedule)`);
  }
  if (problems.length > 0) throw new RegistryError(`venue ${id}: ${problems.join('; ')}`);
}
