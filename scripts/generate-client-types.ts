// `npm run generate:client`: regenerates clients/typescript/src/generated/openapi.ts from this build's own
// /openapi.json, served by an in-process sandbox server (no simulators: the document depends only on the routes).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENERATED_FILE, renderTypes } from '../clients/typescript/scripts/generate-types.mjs';
import { loadConfig } from '../src/config/load.js';
import { createRuntime } from '../src/main.js';

const dataDir = mkdtempSync(join(tmpdir(), 'omnibook-openapi-'));
try {
  const config = loadConfig({
    env: {},
    overrides: {
      mode: 'sandbox',
      port: 0,
      host: '127.0.0.1',
      dataDir,
      logLevel: 'warn',
      recorder: { topN: 0 },
    },
  });
  const runtime = await createRuntime(config, { venues: [] });
  try {
    const url = await runtime.listen();
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as unknown;
    const { writeFile } = await import('node:fs/promises');
    await writeFile(GENERATED_FILE, await renderTypes(document));
    process.stdout.write(`wrote ${GENERATED_FILE}\n`);
  } finally {
    await runtime.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
