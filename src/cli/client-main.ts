// Entry point of the client commands (bin/omnibook.js loads it instead of main.ts for them): they talk to a server
// over HTTP and WebSocket, so they load the client package and nothing of the server.
import { UsageError } from './args.js';
import { clientCommand } from './client-command.js';

const [command = '', ...rest] = process.argv.slice(2);
clientCommand(command, rest).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`omnibook: ${error.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`omnibook: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
