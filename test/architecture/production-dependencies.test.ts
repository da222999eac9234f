// `omnibook serve` must run on a production install (`npm ci --omit=dev`): every package reached through static
// value imports from the CLI's entry point is a runtime dependency. The simulators (and the development SDKs they
// verify with) are reached only through the sandbox's dynamic import, so a production server never loads them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ENTRY = join(ROOT, 'src/cli/main.ts');

/** The specifiers a module loads when it is evaluated: value imports and re-exports, not types, not `import()`. */
function staticValueImports(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  for (const node of sf.statements) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      if (!node.isTypeOnly) out.push(node.moduleSpecifier.text);
    }
  }
  return out;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? specifier);
}

/** Every package the entry point loads statically, with one module that imports it. */
function packagesReached(entry: string): Map<string, string> {
  const reached = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of staticValueImports(file)) {
      if (specifier.startsWith('.')) {
        queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      } else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        const name = packageName(specifier);
        if (!reached.has(name)) reached.set(name, relative(ROOT, file));
      }
    }
  }
  return reached;
}

test('every package omnibook serve loads statically is a runtime dependency', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const runtime = new Set(Object.keys(pkg.dependencies));
  const reached = packagesReached(ENTRY);
  assert.ok(reached.has('fastify'), 'the walk reaches the HTTP server');
  const missing = [...reached].filter(([name]) => !runtime.has(name)).map(([n, by]) => `${n} (from ${by})`);
  assert.deepEqual(missing, [], 'packages a production install would not have');
});

test('the walk sees what a static import of the simulators would pull in', () => {
  const reached = packagesReached(join(ROOT, 'src/cli/sandbox-venues.ts'));
  assert.ok(
    reached.has('ethers'),
    'the Predict.fun simulator verifies sign-ins with ethers, a dev dependency',
  );
});
