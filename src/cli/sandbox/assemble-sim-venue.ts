// What every sandbox launcher does once its simulator is up: build the adapter against it, open the funded
// paper account, and hand back one handle whose close stops the adapter and then the simulator, also when the
// launch fails half-way.
import type { VenueAdapter } from '../../venues/port.js';
import type { RunningSimVenue, SandboxAccount } from '../sandbox-venues.js';

export interface StartedSim {
  control: string;
  close(): Promise<void>;
}

export interface SimVenueParts<S extends StartedSim> {
  adapter: (sim: S) => VenueAdapter | Promise<VenueAdapter>;
  /** The account written to sandbox-accounts.json. */
  firstAccount: () => Promise<SandboxAccount>;
  /** Further paper accounts (tests, demos). */
  nextAccount: () => Promise<SandboxAccount>;
  /** Named accounts written beside the first one. */
  extraAccounts?: () => Promise<Record<string, SandboxAccount>>;
}

export async function assembleSimVenue<S extends StartedSim>(
  sim: S,
  parts: SimVenueParts<S>,
): Promise<RunningSimVenue> {
  let adapter: VenueAdapter | undefined;
  const close = async () => {
    try {
      await adapter?.close?.();
    } finally {
      await sim.close();
    }
  };
  try {
    adapter = await parts.adapter(sim);
    const account = await parts.firstAccount();
    const extraAccounts = (await parts.extraAccounts?.()) ?? {};
    return { adapter, account, extraAccounts, control: sim.control, createAccount: parts.nextAccount, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
