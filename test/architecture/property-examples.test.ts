// Enforces "every counterexample a property test ever found stays as a fixed example": each fast-check `assert`
// call in test/ (as `fc.assert`, `fc['assert']` or an imported `assert`, under whatever name fast-check was
// imported) passes an options object literal with an `examples` key, so a new counterexample has an obvious home.
// test/support/property.ts (`assertProperty`) requires it by type and is the usual way; an empty list is allowed
// where none was ever found. `assert` handed around as a value cannot be checked, so it is reported too.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Finding {
  line: number;
  text: string;
  why: string;
}

/** The fast-check `assert` uses of one source file that do not pass `examples`. */
export function findingsIn(fileName: string, source: string): Finding[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  // Names bound to the fast-check module (default or namespace import) and to its `assert` export.
  const modules = new Set<string>();
  const asserts = new Set<string>();
  for (const statement of sf.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteralLike(statement.moduleSpecifier)) continue;
    if (statement.moduleSpecifier.text !== 'fast-check' || !statement.importClause) continue;
    const { name, namedBindings } = statement.importClause;
    if (name) modules.add(name.text);
    if (namedBindings && ts.isNamespaceImport(namedBindings)) modules.add(namedBindings.name.text);
    if (namedBindings && ts.isNamedImports(namedBindings)) {
      for (const element of namedBindings.elements) {
        if ((element.propertyName ?? element.name).text === 'assert') asserts.add(element.name.text);
      }
    }
  }
  if (modules.size === 0 && asserts.size === 0) return [];

  const findings: Finding[] = [];
  const report = (node: ts.Node, why: string) =>
    findings.push({
      line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1,
      text: node.getText(sf).split('\n')[0] ?? '',
      why,
    });
  /** `fc.assert`, `fc['assert']` or an imported `assert` binding. */
  const isFastCheckAssert = (node: ts.Node): boolean => {
    if (ts.isIdentifier(node)) return asserts.has(node.text) && !isDeclarationName(node);
    if (ts.isPropertyAccessExpression(node)) {
      return (
        ts.isIdentifier(node.expression) && modules.has(node.expression.text) && node.name.text === 'assert'
      );
    }
    if (ts.isElementAccessExpression(node)) {
      return (
        ts.isIdentifier(node.expression) &&
        modules.has(node.expression.text) &&
        ts.isStringLiteralLike(node.argumentExpression) &&
        node.argumentExpression.text === 'assert'
      );
    }
    return false;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && isFastCheckAssert(node.expression)) {
      const options = node.arguments[1];
      if (!options || !ts.isObjectLiteralExpression(options)) {
        report(node, 'no options object literal with `examples`');
      } else if (
        !options.properties.some((p) => p.name !== undefined && propertyName(p.name) === 'examples')
      ) {
        report(node, 'its options have no `examples`');
      }
      // The callee is accounted for; its arguments may still hold other uses.
      for (const argument of node.arguments) visit(argument);
      return;
    }
    if (isFastCheckAssert(node) && !isImportSpecifier(node)) {
      report(node, 'fast-check assert used other than as a direct call, so its options cannot be checked');
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return findings;
}

function propertyName(name: ts.PropertyName): string | null {
  if (ts.isIdentifier(name) || ts.isStringLiteralLike(name)) return name.text;
  return null;
}

function isImportSpecifier(node: ts.Node): boolean {
  return ts.isIdentifier(node) && node.parent !== undefined && ts.isImportSpecifier(node.parent);
}

function isDeclarationName(node: ts.Identifier): boolean {
  return isImportSpecifier(node);
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' ? [] : testFiles(path);
    return /\.[cm]?ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

test('every fast-check assert in test/ passes `examples` (the home of its counterexamples)', () => {
  const violations: string[] = [];
  let calls = 0;
  for (const file of testFiles(join(ROOT, 'test'))) {
    const source = readFileSync(file, 'utf8');
    if (!source.includes('fast-check')) continue;
    calls += (source.match(/\bassert\s*\(/g) ?? []).length;
    const path = relative(ROOT, file).split(sep).join('/');
    for (const f of findingsIn(path, source)) violations.push(`${path}:${f.line}: ${f.text} (${f.why})`);
  }
  assert.ok(calls > 0, 'no fast-check use found: the scan looks in the wrong place');
  assert.deepEqual(
    violations,
    [],
    `pass examples (an empty list when none was ever found):\n${violations.join('\n')}`,
  );
});

test('the check recognises every way of calling fast-check assert, with and without examples', () => {
  const lines = (source: string) => findingsIn('probe.ts', source).map((f) => f.line);
  assert.deepEqual(
    lines(
      [
        "import fc from 'fast-check';",
        'fc.assert(fc.property(fc.nat(), () => true));',
        'fc.assert(fc.property(fc.nat(), () => true), { numRuns: 5 });',
        "fc['assert'](fc.property(fc.nat(), () => true));",
        'fc.assert(fc.property(fc.nat(), () => true), { numRuns: 5, examples: [[1]] });',
        'fc.assert(fc.property(fc.nat(), () => true), { examples: [] });',
        'const run = fc.assert;',
        'fc.assert(p, options);',
      ].join('\n'),
    ),
    [2, 3, 4, 7, 8],
  );
  assert.deepEqual(
    lines(
      [
        "import * as check from 'fast-check';",
        "import { assert as go, property } from 'fast-check';",
        'check.assert(property(check.nat(), () => true));',
        'go(property(check.nat(), () => true));',
        "go(property(check.nat(), () => true), { 'examples': [] });",
        "import assert from 'node:assert/strict';",
      ].join('\n'),
    ),
    [3, 4],
  );
  assert.deepEqual(lines("import assert from 'node:assert/strict';\nassert.ok(true);"), []);
});
