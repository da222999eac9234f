// A server process started ahead of need (test/support/crash-harness.ts): `node --import tsx warm-start.mjs
// <bin/omnibook.js>` loads the modules `omnibook`'s command dispatcher imports (src/cli/main.ts's own imports, which
// run nothing when loaded), then waits for one line on stdin, the command's arguments as a JSON array, and runs
// bin/omnibook.js with them, as `node bin/omnibook.js <args>` would. Nothing before that line touches a data
// directory, a port or a venue. Its stdin closed without a line: it exits.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const bin = process.argv[2];
if (!bin) throw new Error('usage: node --import tsx warm-start.mjs <bin/omnibook.js>');
const main = new URL('../../src/cli/main.ts', import.meta.url);
const specifiers = [...readFileSync(main, 'utf8').matchAll(/^import\s[^;]*?from\s+'([^']+)';/gms)].map(
  (m) => m[1],
);
for (const specifier of specifiers.filter((s) => s.startsWith('.'))) {
  await import(new URL(specifier.replace(/\.js$/, '.ts'), main).href);
}

let input = '';
const line = await new Promise((resolve) => {
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    input += chunk;
    const end = input.indexOf('\n');
    if (end >= 0) resolve(input.slice(0, end));
  });
  process.stdin.on('end', () => resolve(null));
});
if (line === null) process.exit(0);
process.stdin.pause();
process.stdin.removeAllListeners();
process.argv = [process.argv[0], bin, ...JSON.parse(line)];
await import(pathToFileURL(bin).href);
