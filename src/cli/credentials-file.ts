// `--credentials FILE` for the commands that act with exchange credentials (doctor, record, the client commands):
// read here alone so a client command does not load the venues to read it. Values are never printed.
import { readFileSync } from 'node:fs';
import { type ExchangeId, isExchangeId } from '../domain/exchanges.js';
import { UsageError } from './args.js';

/**
 * `--credentials FILE`: `{ "<exchange>": { <credential fields> } }`, or the sandbox's sandbox-accounts.json, which
 * nests the fields under `credentials`. Keys that are not exchanges are ignored.
 */
export function readCredentials(path: string): Map<ExchangeId, Record<string, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--credentials: cannot read ${path} as JSON (${(error as Error).name})`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new UsageError('--credentials: not a JSON object');
  const out = new Map<ExchangeId, Record<string, string>>();
  for (const [key, value] of Object.entries(parsed)) {
    if (!isExchangeId(key)) continue;
    const fields = (value as { credentials?: unknown })?.credentials ?? value;
    if (typeof fields !== 'object' || fields === null) continue;
    out.set(
      key,
      Object.fromEntries(
        Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string'),
      ),
    );
  }
  return out;
}
