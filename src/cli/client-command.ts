// The client commands (`omnibook markets search`, `market`, `book`, `candles`, `quote`, `consolidated`, `route`,
// `order`, `fills`, `positions`, `balance`): an API server's answers through @omnibook/client. Loaded by main.ts
// only when one of them runs, so a server's own commands never load the client. A refusal prints the API's code on
// standard error and exits 1 (3 when trying again later may work); usage errors exit 2.
import { CLIENT_USAGE } from './client/connection.js';
import {
  bookCommand,
  candlesCommand,
  consolidatedCommand,
  marketCommand,
  marketsCommand,
  quoteCommand,
  routeCommand,
} from './client/market-commands.js';
import { failure } from './client/output.js';
import { balanceCommand, fillsCommand, orderCommand, positionsCommand } from './client/trading-commands.js';

export const CLIENT_COMMANDS: ReadonlyMap<string, string> = new Map([
  ['markets', 'markets search TEXT [--exchange ID,…] [--status S] [--limit N]'],
  ['market', 'market SVC_ID'],
  [
    'book',
    'book SVC_ID [--outcome O] [--depth N] [--watch]   (--watch: live from the WebSocket until Ctrl-C)',
  ],
  ['candles', 'candles SVC_ID [--interval 1m|1h|6h|1d|1w|max] [--outcome O] [--start UNIX_S] [--end UNIX_S]'],
  [
    'quote',
    'quote SVC_ID --side buy|sell --amount N [--outcome O]   (execution price against the book, fees included)',
  ],
  ['consolidated', 'consolidated SVC_ID [--outcome O] [--limit N] [--min-tier HIGH|MEDIUM|LOW]'],
  ['route', 'route SVC_ID --side buy|sell --amount N [--outcome O] [--exchanges ID,…] [--max-legs N]'],
  [
    'order',
    'order place SVC_ID --side buy|sell --price P --size N [--outcome O] [--type gtc|ioc|fok|gtd] [--expiration UNIX_S] [--idempotency-key K]\n' +
      '  omnibook order get|cancel ORDER_ID --exchange ID\n' +
      '  omnibook order list --exchange ID [--status open|closed|all] [--market MARKET_ID] [--limit N]',
  ],
  ['fills', 'fills --exchange ID [--market MARKET_ID] [--limit N]'],
  ['positions', 'positions --exchange ID [--market MARKET_ID]'],
  ['balance', 'balance --exchange ID [--refresh]'],
]);

export async function clientCommand(name: string, argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: omnibook ${CLIENT_COMMANDS.get(name)}\n${CLIENT_USAGE}\n`);
    return 0;
  }
  const out = (text: string) => {
    process.stdout.write(text);
  };
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    switch (name) {
      case 'markets':
        return await marketsCommand(argv, out);
      case 'market':
        return await marketCommand(argv, out);
      case 'book':
        return await bookCommand(argv, out, stop.signal);
      case 'candles':
        return await candlesCommand(argv, out);
      case 'quote':
        return await quoteCommand(argv, out);
      case 'consolidated':
        return await consolidatedCommand(argv, out);
      case 'route':
        return await routeCommand(argv, out);
      case 'order':
        return await orderCommand(argv, out);
      case 'fills':
        return await fillsCommand(argv, out);
      case 'positions':
        return await positionsCommand(argv, out);
      case 'balance':
        return await balanceCommand(argv, out);
      default:
        process.stderr.write(`unknown client command '${name}'\n`);
        return 2;
    }
  } catch (error) {
    const failed = failure(error);
    if (!failed) throw error;
    process.stderr.write(`omnibook: ${failed.line}\n`);
    return failed.code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
