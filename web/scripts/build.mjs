// Builds the console into web/dist: one minified ES module bundle and one stylesheet, each named by its content
// hash (so the server can let browsers keep them for a year), and the index.html that names them. Runs from
// `npm ci` (this workspace's `prepare`), so a fresh clone serves /console with no network. The SDK is bundled
// from its TypeScript sources, so the console does not wait for clients/typescript's own build. Writes
// dist/build-report.json with each file's raw and gzip size (the first-load budget is 300 KB of compressed script).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const sdk = join(root, '..', 'clients', 'typescript', 'src', 'index.ts');

const result = await build({
  entryPoints: [join(root, 'src', 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  platform: 'browser',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  alias: { '@omnibook/client': sdk },
  // The SDK imports `ws` only where no global WebSocket exists; a browser always has one.
  external: ['ws'],
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  write: false,
  metafile: true,
  logLevel: 'warning',
});

const hashed = (name, ext, bytes) =>
  `${name}-${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}.${ext}`;

const js = result.outputFiles[0].contents;
const css = readFileSync(join(root, 'src', 'styles.css'));
const jsName = hashed('console', 'js', js);
const cssName = hashed('console', 'css', css);
const html = readFileSync(join(root, 'src', 'index.html'), 'utf8')
  .replace('%SCRIPT%', `assets/${jsName}`)
  .replace('%STYLES%', `assets/${cssName}`);

rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'assets'), { recursive: true });
writeFileSync(join(dist, 'assets', jsName), js);
writeFileSync(join(dist, 'assets', cssName), css);
writeFileSync(join(dist, 'index.html'), html);

const size = (bytes) => ({ bytes: bytes.length, gzip_bytes: gzipSync(bytes, { level: 9 }).length });
const report = {
  script: { file: `assets/${jsName}`, ...size(js) },
  styles: { file: `assets/${cssName}`, ...size(css) },
  html: size(Buffer.from(html)),
};
writeFileSync(join(dist, 'build-report.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(
  `console: built web/dist (script ${(report.script.gzip_bytes / 1024).toFixed(1)} KB gzip, ` +
    `${(report.script.bytes / 1024).toFixed(1)} KB raw)`,
);
