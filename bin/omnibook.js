#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx's loader, so there is no build step to forget. The client
// commands (`omnibook market …`) load their own entry point, which needs none of the server's code.
import { register } from 'tsx/esm/api';

register();
const { CLIENT_COMMAND_NAMES } = await import('../src/cli/client-names.ts');
await import(
  CLIENT_COMMAND_NAMES.has(process.argv[2] ?? '') ? '../src/cli/client-main.ts' : '../src/cli/main.ts'
);
