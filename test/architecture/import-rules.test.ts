// Enforces the import table of shared/design/architecture.md ("Folders and what each may import"): every
// static import, `export … from`, dynamic `import('…')` and `import('…')` type of every .ts file under src/ and
// sim/ is parsed with the TypeScript parser, relative specifiers are resolved to a folder, and each edge is
// checked against the rules below. A violation prints as `file: imports X (rule)`.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// ---------------------------------------------------------------------------------------------------------------
// Parsing

interface ParsedImport {
  specifier: string;
  /** `import type …`, `export type … from`, every named binding marked `type`, or an `import('…')` type node. */
  typeOnly: boolean;
  kind: 'import' | 'export' | 'dynamic' | 'import-type' | 'require';
  line: number;
}

interface ParseResult {
  imports: ParsedImport[];
  /** Dynamic imports whose argument is not a string literal: they cannot be checked, so they are reported. */
  unresolvable: Array<{ text: string; line: number }>;
}

function parseImports(fileName: string, source: string): ParseResult {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const imports: ParsedImport[] = [];
  const unresolvable: ParseResult['unresolvable'] = [];
  const lineOf = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteralLike(node.moduleSpecifier)) {
      imports.push({
        specifier: node.moduleSpecifier.text,
        typeOnly: isTypeOnlyImportClause(node.importClause),
        kind: 'import',
        line: lineOf(node),
      });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteralLike(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      const allNamedAreTypes =
        clause !== undefined &&
        ts.isNamedExports(clause) &&
        clause.elements.length > 0 &&
        clause.elements.every((e) => e.isTypeOnly);
      imports.push({
        specifier: node.moduleSpecifier.text,
        typeOnly: node.isTypeOnly || allNamedAreTypes,
        kind: 'export',
        line: lineOf(node),
      });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteralLike(node.moduleReference.expression)
    ) {
      imports.push({
        specifier: node.moduleReference.expression.text,
        typeOnly: node.isTypeOnly,
        kind: 'require',
        line: lineOf(node),
      });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) {
        imports.push({ specifier: arg.text, typeOnly: false, kind: 'dynamic', line: lineOf(node) });
      } else {
        unresolvable.push({ text: node.getText(sf), line: lineOf(node) });
      }
    } else if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'require' &&
      node.arguments.length === 1 &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      imports.push({
        specifier: node.arguments[0].text,
        typeOnly: false,
        kind: 'require',
        line: lineOf(node),
      });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteralLike(node.argument.literal)
    ) {
      imports.push({
        specifier: node.argument.literal.text,
        typeOnly: true,
        kind: 'import-type',
        line: lineOf(node),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { imports, unresolvable };
}

function isTypeOnlyImportClause(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false; // `import './x.js'` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false; // a default binding is a value
  const bindings = clause.namedBindings;
  if (!bindings || ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

// ---------------------------------------------------------------------------------------------------------------
// Classification of a repository path (posix, relative to the root) into the areas of the table

type Area =
  | 'config'
  | 'domain'
  | 'errors'
  | 'venues/port'
  | 'venues/registry'
  | 'venues/shared'
  | 'venues/<other top-level file>'
  | `venue:${string}`
  | 'store'
  | 'vault'
  | 'tenancy'
  | 'chain'
  | 'services'
  | 'ingestion'
  | 'realtime'
  | 'http'
  | 'mcp'
  | 'replay'
  | 'main'
  | 'cli'
  | 'sim'
  | 'test-code'
  | 'outside';

const SRC_FOLDERS = new Set([
  'config',
  'domain',
  'errors',
  'store',
  'vault',
  'tenancy',
  'chain',
  'services',
  'ingestion',
  'realtime',
  'http',
  'mcp',
  'replay',
  'cli',
]);

/** The area of a path, or `unknown:<why>` for src/ paths the table does not cover. */
function areaOf(repoPath: string): Area | `unknown:${string}` {
  const parts = repoPath.split('/');
  if (parts[0] === 'sim') return 'sim';
  if (parts[0] === 'test' || parts[0] === 'bench' || parts[0] === 'scripts') return 'test-code';
  if (parts[0] !== 'src') return 'outside';
  const top = parts[1] ?? '';
  if (parts.length === 2) {
    if (/^main\.[cm]?[jt]s$/.test(top)) return 'main';
    return `unknown:src/${top} is not in architecture.md's table`;
  }
  if (top === 'venues') {
    const second = parts[2] ?? '';
    if (parts.length === 3) {
      if (/^port\.[cm]?[jt]s$/.test(second)) return 'venues/port';
      if (/^registry\.[cm]?[jt]s$/.test(second)) return 'venues/registry';
      return 'venues/<other top-level file>';
    }
    if (second === 'shared') return 'venues/shared';
    return `venue:${second}`;
  }
  if (SRC_FOLDERS.has(top)) return top as Area;
  return `unknown:src/${top}/ is not in architecture.md's table`;
}

const VENUES_CORE: ReadonlySet<string> = new Set([
  'venues/port',
  'venues/registry',
  'venues/shared',
  'venues/<other top-level file>',
]);

interface Rule {
  /** Human form of the rule, printed with each violation. */
  text: string;
  /** Areas importable with values. */
  values: ReadonlySet<string> | 'any';
  /** Areas importable with type-only imports in addition to `values`. */
  types?: ReadonlySet<string>;
  /** Venue folders (any id) importable, through their index.ts only. */
  venueFolders?: boolean;
}

const set = (...xs: string[]) => new Set(xs);

const RULES: Record<string, Rule> = {
  config: { text: 'src/config may import nothing internal', values: set() },
  domain: { text: 'src/domain may import nothing internal', values: set() },
  errors: { text: 'src/errors may import only domain', values: set('domain') },
  venuesCore: {
    text: 'src/venues/port.ts, registry.ts and shared/ may import domain, errors, venues/port|registry|shared and config types',
    values: set('domain', 'errors', ...VENUES_CORE),
    types: set('config'),
  },
  venue: {
    text: 'src/venues/<id>/ may import domain, errors, venues/shared and venues/port.ts — never another venue',
    values: set('domain', 'errors', 'venues/shared', 'venues/port'),
  },
  store: { text: 'src/store may import domain, errors', values: set('domain', 'errors') },
  vault: {
    text: 'src/vault may import domain, errors, store, and venues/port.ts types',
    values: set('domain', 'errors', 'store'),
    types: set('venues/port'),
  },
  tenancy: { text: 'src/tenancy may import domain, errors, store', values: set('domain', 'errors', 'store') },
  chain: { text: 'src/chain may import domain, errors', values: set('domain', 'errors') },
  services: {
    text: 'src/services may import config, domain, errors, venues, store, vault, tenancy, chain',
    values: set('config', 'domain', 'errors', ...VENUES_CORE, 'store', 'vault', 'tenancy', 'chain'),
    venueFolders: true,
  },
  ingestion: {
    text: 'src/ingestion may import services, venues registry/port, store, domain, errors',
    values: set('services', 'venues/registry', 'venues/port', 'store', 'domain', 'errors'),
  },
  realtime: {
    text: 'src/realtime may import services, venues registry, tenancy, errors, domain, and venues/port.ts and vault types',
    values: set('services', 'venues/registry', 'tenancy', 'errors', 'domain'),
    types: set('venues/port', 'vault'),
  },
  http: {
    text: 'src/http may import services, errors, domain, config types, and tenancy with `import type` only',
    values: set('services', 'errors', 'domain'),
    types: set('config', 'tenancy'),
  },
  mcp: {
    text: 'src/mcp may import domain, errors, http (the admission refusal), and tenancy with `import type` only',
    values: set('domain', 'errors', 'http'),
    types: set('tenancy'),
  },
  replay: {
    text: 'src/replay may import domain, errors, store, venues/port.ts, main (it starts the same server), and config, realtime and services types',
    values: set('domain', 'errors', 'store', 'venues/port', 'main'),
    types: set('config', 'realtime', 'services'),
  },
  root: { text: 'src/main.ts and src/cli may import anything in src', values: 'any', venueFolders: true },
  sim: { text: 'sim/ may import nothing from src/', values: set('sim') },
};

function ruleFor(area: string): Rule | undefined {
  if (area === 'main' || area === 'cli') return RULES.root;
  if (VENUES_CORE.has(area)) return RULES.venuesCore;
  if (area.startsWith('venue:')) return RULES.venue;
  return RULES[area];
}

interface Violation {
  file: string;
  line: number;
  specifier: string;
  target: string;
  rule: string;
}

/** Checks one import edge; returns the broken rule, or null when the edge is allowed. */
function checkEdge(
  fromFile: string,
  imp: ParsedImport,
): Omit<Violation, 'file' | 'line' | 'specifier'> | null {
  const fromArea = areaOf(fromFile);
  if (fromArea.startsWith('unknown:')) return { target: '-', rule: fromArea.slice('unknown:'.length) };
  if (imp.specifier.startsWith('#')) {
    return {
      target: imp.specifier,
      rule: 'package subpath imports (#…) bypass this check; use a relative path',
    };
  }
  const target = resolveSpecifier(fromFile, imp.specifier);
  if (target === null) return null; // a package or node: builtin
  const toArea = areaOf(target);
  const verdict = (rule: string) => ({ target, rule });

  if (fromArea === 'sim') {
    if (toArea === 'sim' || toArea === 'outside') return null;
    return verdict(RULES.sim!.text);
  }
  if (toArea === 'test-code') return verdict('production code must not import test/, bench/ or scripts/');
  if (toArea === 'sim') {
    // The sandbox command starts the simulators, so the CLI may reach each simulator's entry point; nothing
    // else in src/ may, and never a simulator's internals (they share no code with src/).
    if (fromArea === 'cli' && /^sim\/[^/]+\/index\.[cm]?[jt]s$/.test(target)) return null;
    return verdict('src/ must not import sim/ (simulators share no code with src; src/cli may start them)');
  }
  if (target.startsWith('clients/')) {
    // The client package is published alone: the CLI's client commands use it through its entry point only.
    if (fromArea === 'cli' && target === 'clients/typescript/src/index.ts') return null;
    return verdict('only src/cli may import the client package, through clients/typescript/src/index.ts');
  }
  if (toArea === 'outside') return null; // e.g. package.json read by the composition root
  if (toArea.startsWith('unknown:')) return verdict(toArea.slice('unknown:'.length));

  // A venue folder exposes only its index.ts to the rest of the code.
  if (toArea.startsWith('venue:') && toArea !== fromArea && !/\/index\.[cm]?[jt]s$/.test(target)) {
    return verdict(`${toArea.replace('venue:', 'src/venues/')}/index.ts is the folder's only export`);
  }
  if (toArea === fromArea) return null;

  const rule = ruleFor(fromArea);
  if (!rule) return verdict(`no rule for ${fromArea}`);
  if (toArea.startsWith('venue:')) {
    if (fromArea.startsWith('venue:')) return verdict(rule.text);
    return rule.venueFolders ? null : verdict(rule.text);
  }
  if (rule.values === 'any' || rule.values.has(toArea)) return null;
  if (imp.typeOnly && rule.types?.has(toArea)) return null;
  return verdict(rule.text);
}

/** Repository path (posix) of a relative or absolute specifier, `.js` mapped to `.ts`; null for packages. */
function resolveSpecifier(fromFile: string, specifier: string): string | null {
  let absolute: string;
  if (specifier.startsWith('.')) absolute = posix.normalize(posix.join(posix.dirname(fromFile), specifier));
  else if (specifier.startsWith('/') || specifier.startsWith('file:')) {
    const path = specifier.startsWith('file:') ? fileURLToPath(specifier) : specifier;
    absolute = relative(ROOT, path).split(sep).join('/');
  } else return null;
  return absolute.replace(/\.(m|c)?js$/, '.$1ts').replace(/\.jsx$/, '.tsx');
}

// ---------------------------------------------------------------------------------------------------------------
// Walking the tree

function listTsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : listTsFiles(path);
    return /\.(m|c)?tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Scan {
  files: number;
  imports: number;
  relativeImports: number;
  perFile: Map<string, number>;
  violations: Violation[];
}

function scan(): Scan {
  const files = [...listTsFiles(join(ROOT, 'src')), ...listTsFiles(join(ROOT, 'sim'))].sort();
  const result: Scan = {
    files: files.length,
    imports: 0,
    relativeImports: 0,
    perFile: new Map(),
    violations: [],
  };
  for (const abs of files) {
    const file = relative(ROOT, abs).split(sep).join('/');
    const { imports, unresolvable } = parseImports(file, readFileSync(abs, 'utf8'));
    result.imports += imports.length;
    result.perFile.set(file, imports.length);
    for (const imp of imports) {
      if (imp.specifier.startsWith('.')) result.relativeImports += 1;
      const broken = checkEdge(file, imp);
      if (broken) result.violations.push({ file, line: imp.line, specifier: imp.specifier, ...broken });
    }
    for (const u of unresolvable) {
      if (USER_MODULE_LOADERS.has(file)) continue;
      result.violations.push({
        file,
        line: u.line,
        specifier: u.text,
        target: '?',
        rule: 'dynamic import with a computed specifier cannot be checked; use a string literal',
      });
    }
  }
  return result;
}

/**
 * Files that load a module the user names at run time, outside src/ (the backtest's strategy file): the only
 * computed dynamic imports allowed, since there is no edge between our modules to check.
 */
const USER_MODULE_LOADERS: ReadonlySet<string> = new Set(['src/cli/backtest/run-backtest.ts']);

function format(v: Violation): string {
  const shown = v.target === '-' || v.target === '?' ? v.specifier : v.target;
  return `${v.file}: imports ${shown} (${v.rule}) [line ${v.line}]`;
}

// ---------------------------------------------------------------------------------------------------------------
// Tests

test('the parser finds static, export-from, dynamic and type imports, and ignores comments and strings', () => {
  const source = `
    import a from './a.js';
    import type { B } from '../b.js';
    import { type C, type D } from './cd.js';
    import { type E, f } from './ef.js';
    import * as g from './g.js';
    import './side-effect.js';
    export { h } from './h.js';
    export type { I } from './i.js';
    export * from './star.js';
    const j = await import('./j.js');
    type K = typeof import('./k.js');
    // import { nope } from './in-a-comment.js';
    const s = "import { nope } from './in-a-string.js'";
    const t = \`export * from './in-a-template.js'\`;
    const dyn = await import(someVariable);
  `;
  const { imports, unresolvable } = parseImports('src/x/y.ts', source);
  const bySpec = Object.fromEntries(imports.map((i) => [i.specifier, i]));
  assert.deepEqual(Object.keys(bySpec).sort(), [
    '../b.js',
    './a.js',
    './cd.js',
    './ef.js',
    './g.js',
    './h.js',
    './i.js',
    './j.js',
    './k.js',
    './side-effect.js',
    './star.js',
  ]);
  assert.equal(bySpec['./a.js']?.typeOnly, false);
  assert.equal(bySpec['../b.js']?.typeOnly, true);
  assert.equal(bySpec['./cd.js']?.typeOnly, true);
  assert.equal(bySpec['./ef.js']?.typeOnly, false);
  assert.equal(bySpec['./side-effect.js']?.typeOnly, false);
  assert.equal(bySpec['./h.js']?.typeOnly, false);
  assert.equal(bySpec['./i.js']?.typeOnly, true);
  assert.equal(bySpec['./j.js']?.kind, 'dynamic');
  assert.equal(bySpec['./k.js']?.typeOnly, true);
  assert.equal(unresolvable.length, 1);
});

test('synthetic violations are detected and allowed edges pass', () => {
  const check = (file: string, source: string) =>
    parseImports(file, source).imports.map((imp) => checkEdge(file, imp)?.rule ?? null);

  // Violations.
  assert.notEqual(check('src/domain/x.ts', "import { openStore } from '../store/database.js';")[0], null);
  assert.notEqual(check('src/config/x.ts', "import type { Market } from '../domain/market.js';")[0], null);
  assert.notEqual(
    check('src/store/x.ts', "export { ApiKeyService } from '../tenancy/api-keys.js';")[0],
    null,
  );
  assert.notEqual(
    check('src/tenancy/x.ts', "const m = await import('../services/usage-service.js');")[0],
    null,
  );
  assert.notEqual(check('src/http/x.ts', "import { ApiKeyService } from '../tenancy/api-keys.js';")[0], null);
  assert.notEqual(check('src/http/x.ts', "import { openStore } from '../store/database.js';")[0], null);
  assert.notEqual(check('src/venues/kalshi/x.ts', "import { p } from '../polymarket/parse.js';")[0], null);
  assert.notEqual(
    check('src/venues/kalshi/x.ts', "import { VenueRegistry } from '../registry.js';")[0],
    null,
  );
  assert.notEqual(check('src/services/x.ts', "import { parse } from '../venues/kalshi/parse.js';")[0], null);
  assert.notEqual(check('src/vault/x.ts', "import { VenueRegistry } from '../venues/registry.js';")[0], null);
  assert.notEqual(check('src/vault/x.ts', "import { CredentialField } from '../venues/port.js';")[0], null);
  assert.notEqual(check('src/realtime/x.ts', "import { openStore } from '../store/database.js';")[0], null);
  assert.notEqual(
    check('src/ingestion/x.ts', "import { ApiKeyService } from '../tenancy/api-keys.js';")[0],
    null,
  );
  assert.notEqual(check('src/services/x.ts', "import { buildApp } from '../http/build-app.js';")[0], null);
  assert.notEqual(check('src/services/x.ts', "import { x } from '../../test/support/server.js';")[0], null);
  assert.notEqual(check('src/whatever/x.ts', "import { x } from '../domain/market.js';")[0], null);
  assert.notEqual(
    check('sim/kalshi/server.ts', "import { parse } from '../../src/venues/kalshi/parse.js';")[0],
    null,
  );
  assert.notEqual(
    check('sim/kalshi/server.ts', "import type { Market } from '../../src/domain/market.js';")[0],
    null,
  );

  assert.notEqual(check('src/domain/x.ts', "import { x } from '#store/database.js';")[0], null);

  // Allowed edges.
  assert.equal(check('src/http/x.ts', "import type { Principal } from '../tenancy/principal.js';")[0], null);
  assert.equal(check('src/http/x.ts', "import type { Config } from '../config/schema.js';")[0], null);
  assert.equal(
    check('src/http/routes/x.ts', "import { AppError } from '../../errors/app-error.js';")[0],
    null,
  );
  assert.equal(check('src/vault/x.ts', "import type { CredentialField } from '../venues/port.js';")[0], null);
  assert.equal(check('src/venues/kalshi/x.ts', "import { http } from '../shared/http.js';")[0], null);
  assert.equal(check('src/venues/kalshi/x.ts', "import { parse } from './parse.js';")[0], null);
  assert.equal(check('src/services/x.ts', "import { kalshi } from '../venues/kalshi/index.js';")[0], null);
  assert.equal(check('src/main.ts', "import { kalshi } from './venues/kalshi/index.js';")[0], null);
  assert.equal(
    check('src/cli/sandbox.ts', "import { startKalshiSim } from '../../sim/kalshi/index.js';")[0],
    null,
  );
  assert.notEqual(check('src/cli/sandbox.ts', "import { books } from '../../sim/kalshi/books.js';")[0], null);
  assert.notEqual(
    check('src/services/x.ts', "import { startKalshiSim } from '../../sim/kalshi/index.js';")[0],
    null,
  );
  assert.equal(check('src/cli/x.ts', "import { createRuntime } from '../main.js';")[0], null);
  assert.equal(
    check('src/config/x.ts', "import { Type } from 'typebox'; import { readFileSync } from 'node:fs';")[0],
    null,
  );
  assert.equal(check('sim/kalshi/server.ts', "import { x } from '../shared/http.js';")[0], null);
});

test('src/ and sim/ follow the import rules of architecture.md', () => {
  const result = scan();
  // The scan must have looked at real code, or it would pass vacuously.
  assert.ok(result.files >= 30, `only ${result.files} .ts files found under src/ and sim/`);
  assert.ok(result.relativeImports >= 80, `only ${result.relativeImports} relative imports parsed`);
  assert.ok((result.perFile.get('src/main.ts') ?? 0) >= 10, 'src/main.ts imports were not parsed');
  const lines = result.violations.map(format);
  for (const line of lines) console.error(line);
  assert.equal(
    lines.length,
    0,
    `${lines.length} import rule violation(s) (scanned ${result.files} files, ${result.imports} imports):\n${lines.join('\n')}`,
  );
});

test('clients/typescript is self-contained: its sources import only each other and packages', () => {
  const base = join(ROOT, 'clients', 'typescript', 'src');
  const files = listTsFiles(base);
  assert.ok(files.length > 5, 'the client sources are found');
  const broken: string[] = [];
  for (const abs of files) {
    const file = relative(ROOT, abs).split(sep).join('/');
    for (const imp of parseImports(file, readFileSync(abs, 'utf8')).imports) {
      const target = resolveSpecifier(file, imp.specifier);
      if (target !== null && !target.startsWith('clients/typescript/src/'))
        broken.push(`${file}: ${imp.specifier}`);
    }
  }
  assert.deepEqual(broken, []);
});
