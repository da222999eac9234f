// The names of the client commands, without their code: bin/omnibook.js reads them to load the client entry point
// alone (no server code) when one of them runs.
export const CLIENT_COMMAND_NAMES: ReadonlySet<string> = new Set([
  'markets',
  'market',
  'book',
  'candles',
  'quote',
  'consolidated',
  'route',
  'order',
  'fills',
  'positions',
  'balance',
]);
