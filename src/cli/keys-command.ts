// `omnibook keys create|list|revoke`: key administration against the configured database.
// The clear key is printed once, at creation, and is never stored.
import { loadConfig } from '../config/load.js';
import { isTierName, TIER_NAMES } from '../domain/tiers.js';
import { ApiKeysRepo } from '../store/api-keys-repo.js';
import { openStore } from '../store/database.js';
import { ApiKeyService } from '../tenancy/api-keys.js';
import { parse, UsageError } from './args.js';

const FLAGS = {
  tier: { type: 'string' },
  name: { type: 'string' },
  builder: { type: 'boolean' },
  qps: { type: 'string' },
  burst: { type: 'string' },
  'mcp-trading': { type: 'boolean' },
  json: { type: 'boolean' },
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const USAGE = `usage:
  omnibook keys create --tier ${TIER_NAMES.join('|')} [--name NAME] [--builder] [--qps N] [--burst N] [--mcp-trading] [--json]
  omnibook keys list [--json]
  omnibook keys revoke KEY_ID
`;

export async function keysCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, FLAGS);
  const [sub, ...rest] = positionals;
  if (values.help || !sub) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  const config = loadConfig({
    ...(values.config ? { file: values.config } : {}),
    overrides: values['data-dir'] ? { dataDir: values['data-dir'] } : {},
  });
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await store.migrate();
    const keys = new ApiKeyService(new ApiKeysRepo(store.db), 0);
    switch (sub) {
      case 'create': {
        const tier = values.tier ?? 'free';
        if (!isTierName(tier)) throw new UsageError(`--tier must be one of ${TIER_NAMES.join(', ')}`);
        const { key, info } = await keys.create({
          name: values.name ?? `${tier} key`,
          tier,
          builder: values.builder ?? false,
          qpsLimit: numberFlag(values.qps, '--qps'),
          burst: numberFlag(values.burst, '--burst'),
          mcpTrading: values['mcp-trading'] ?? false,
        });
        if (values.json) process.stdout.write(`${JSON.stringify({ ...info, key })}\n`);
        else {
          process.stdout.write(`${key}\n`);
          process.stderr.write(
            `created ${info.id} (tier ${info.tier}${info.builder ? ', builder' : ''}${info.mcp_trading ? ', MCP order tools on' : ''}); the key above is shown only once\n`,
          );
        }
        return 0;
      }
      case 'list': {
        const list = await keys.list();
        if (values.json) process.stdout.write(`${JSON.stringify(list)}\n`);
        else {
          for (const k of list) {
            const state = k.revoked_at ? `revoked ${k.revoked_at}` : 'active';
            process.stdout.write(
              `${k.id}\t${k.prefix}\t${k.tier}${k.builder ? '+builder' : ''}\t${state}\t${k.name}\n`,
            );
          }
        }
        return 0;
      }
      case 'revoke': {
        const id = rest[0];
        if (!id) throw new UsageError('keys revoke needs a KEY_ID (see `omnibook keys list`)');
        if (!(await keys.revoke(id))) {
          process.stderr.write(`no active key with id ${id}\n`);
          return 1;
        }
        process.stdout.write(`revoked ${id}\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown keys subcommand '${sub}'\n${USAGE}`);
    }
  } finally {
    await store.close();
  }
}

function numberFlag(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number`);
  return n;
}
