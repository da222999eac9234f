// The `omnibook` command: dispatches to serve, sandbox, sync, keys, migrate and the other commands below.
import { ConfigError } from '../config/load.js';
import { isAppError } from '../errors/app-error.js';
import { VERSION } from '../main.js';
import { DataDirInUseError } from '../store/server-lock.js';
import { MasterKeyError } from '../vault/master-key.js';
import { UsageError } from './args.js';
import { CLIENT_COMMAND_NAMES } from './client-names.js';
import { doctorCommand } from './doctor-command.js';
import { exportCommand } from './export-command.js';
import { importCommand } from './import-command.js';
import { keysCommand } from './keys-command.js';
import { linksCommand } from './links-command.js';
import { mcpCommand } from './mcp-command.js';
import { migrateCommand } from './migrate-command.js';
import { recordCommand } from './record-command.js';
import { replayCommand } from './replay-command.js';
import { serveCommand } from './serve-command.js';
import { syncCommand } from './sync-command.js';
import { vaultCommand } from './vault-command.js';

const HELP = `omnibook ${VERSION} — five prediction-market exchanges behind one API

usage: omnibook <command> [options]

commands:
  serve      run the API against the live exchanges
  sandbox    run the API against the bundled exchange simulators (offline, paper money)
  sync       walk every market and event into the database now, with progress (omnibook sync --help)
  keys       create, list or revoke API keys (omnibook keys --help)
  migrate    apply database migrations
  links      link markets across exchanges from a JSON-lines file, offline (omnibook links --help)
  vault      re-encrypt stored credentials under a new master key (omnibook vault --help)
  doctor     check each exchange from this machine, read-only: reachability, clock, one page, book and stream
             message decoded, credentials (omnibook doctor --help)
  export     write a recorded window (book states, trades, their markets) to a checksummed archive file
             (omnibook export --help; docs/replay-format.md)
  import     add an archive written by export to this store, verified first (omnibook import --help)
  record     write an exchange's answers to the adapters' read calls as test fixtures (omnibook record --help)
  replay     serve a recorded window through the same API, paper orders filled against it (omnibook replay --help)
  backtest   run a strategy module on a recorded window and print its report (omnibook backtest --help)
  mcp        the MCP tools on stdin/stdout against a running server (OMNIBOOK_URL, OMNIBOOK_API_KEY; omnibook mcp --help)

client commands (talk to a running server: --url / OMNIBOOK_URL, --key / OMNIBOOK_API_KEY, --json; <command> --help):
  markets search TEXT, market SVC_ID, book SVC_ID [--watch], candles SVC_ID, quote SVC_ID --side --amount,
  consolidated SVC_ID, route SVC_ID --side --amount, order place|get|list|cancel, fills, positions, balance

common options: --port N (PORT, default 8080), --host H (default 127.0.0.1), --data-dir DIR (default ./data),
  --config FILE (OMNIBOOK_CONFIG). Environment: DATABASE_URL, REDIS_URL, OMNIBOOK_ADMIN_KEY, LOG_LEVEL,
  OMNIBOOK_MASTER_KEY (default: <data-dir>/master.key, created on first run), OMNIBOOK_MASTER_KEY_PREVIOUS.
`;

export async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serveCommand('serve', rest);
    case 'sandbox':
      return serveCommand('sandbox', rest);
    case 'sync':
      return syncCommand(rest);
    case 'keys':
      return keysCommand(rest);
    case 'migrate':
      return migrateCommand(rest);
    case 'links':
      return linksCommand(rest);
    case 'vault':
      return vaultCommand(rest);
    case 'doctor':
      return doctorCommand(rest);
    case 'record':
      return recordCommand(rest);
    case 'replay':
      return replayCommand(rest);
    case 'backtest':
      return (await import('./backtest-command.js')).backtestCommand(rest);
    case 'export':
      return exportCommand(rest);
    case 'import':
      return importCommand(rest);
    case 'mcp':
      return mcpCommand(rest);
    case '--version':
    case '-v':
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return command === undefined ? 2 : 0;
    default:
      if (CLIENT_COMMAND_NAMES.has(command ?? '')) {
        // Loaded on demand (bin/omnibook.js goes straight to client-main.ts): a server never loads the client.
        return (await import('./client-command.js')).clientCommand(command ?? '', rest);
      }
      process.stderr.write(`unknown command '${command}'\n\n${HELP}`);
      return 2;
  }
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof MasterKeyError ||
      error instanceof DataDirInUseError ||
      (isAppError(error) && error.status < 500)
    ) {
      process.stderr.write(`omnibook: ${error.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`omnibook: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
