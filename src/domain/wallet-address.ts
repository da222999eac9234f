// How each exchange spells a public wallet address, for GET /user-activity and WebSocket wallet subscriptions alike:
// one rule per exchange, checked before any venue is asked.
import { getAddress } from 'viem';
import type { ExchangeId } from './exchanges.js';

/** `problem` names what is wrong with an address, or is null when the address is fine. */
export interface AddressRule {
  describe: string;
  problem(address: string): string | null;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Any EVM chain: 0x and 40 hex digits; mixed case is an EIP-55 checksum and must be right (a typo shows there). */
const evmAddress = (chain: string): AddressRule => ({
  describe: `an EVM address on ${chain} (0x and 40 hex digits)`,
  problem(address) {
    if (!EVM_ADDRESS.test(address)) return 'is not 0x followed by 40 hex digits';
    const digits = address.slice(2);
    if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return null;
    return getAddress(address.toLowerCase()) === address ? null : 'has a wrong EIP-55 checksum (mixed case)';
  },
});

/** Each exchange's wallet address rule; exchanges without public wallet activity (kalshi) have none. */
export const ADDRESS_RULES: Readonly<Partial<Record<ExchangeId, AddressRule>>> = {
  polymarket: evmAddress('Polygon'),
  opinion: evmAddress('BNB Chain'),
  limitless: evmAddress('Base'),
  predictfun: evmAddress('BNB Chain'),
};
