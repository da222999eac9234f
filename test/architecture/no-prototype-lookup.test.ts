// Enforces docs/architecture.md "Lookups by an outside string": no .ts file under src/ or sim/ indexes a plain
// object by a wide string (`string`, a template literal type, `Uppercase<string>`…), reading or writing, and none
// asks `key in obj` with one, because `table['__proto__']` answers Object.prototype, `out['__proto__'] = v`
// replaces the prototype and `'toString' in table` is true. The TypeScript type checker decides what a key is.
import assert from 'node:assert/strict';
import { dirname, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The two modules that implement own-property access; the only files allowed to index by a wide string. */
const EXEMPT: ReadonlySet<string> = new Set(['src/domain/own-key.ts', 'sim/shared/own-key.ts']);

const TYPED_ARRAYS: ReadonlySet<string> = new Set([
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
  'Buffer',
]);

interface Finding {
  file: string;
  line: number;
  text: string;
}

/** Root-relative posix path of a source file, or null when it is outside src/ and sim/ (e.g. test/sim/…). */
function scannedPath(fileName: string): string | null {
  const path = relative(ROOT, fileName).split(sep).join('/');
  if (!path.startsWith('src/') && !path.startsWith('sim/')) return null;
  if (path.endsWith('.d.ts') || !/\.[cm]?tsx?$/.test(path)) return null;
  return path;
}

/** A key type that may hold any string at run time: `string`, a template literal, `Uppercase<string>`, a brand, `any`. */
function isWideString(type: ts.Type, checker: ts.TypeChecker, depth = 0): boolean {
  if (depth > 8) return false;
  if (type.isUnion() || type.isIntersection()) {
    return type.types.some((t) => isWideString(t, checker, depth + 1));
  }
  const generic =
    ts.TypeFlags.TypeParameter |
    ts.TypeFlags.Index |
    ts.TypeFlags.IndexedAccess |
    ts.TypeFlags.Conditional |
    ts.TypeFlags.Substitution;
  if (type.flags & generic) {
    const constraint = checker.getBaseConstraintOfType(type);
    return constraint !== undefined && constraint !== type && isWideString(constraint, checker, depth + 1);
  }
  const wide =
    ts.TypeFlags.Any | ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.StringMapping;
  return (type.flags & wide) !== 0;
}

/** Arrays, tuples and typed arrays are indexed by position; every member of a union must be one. */
function isPositional(type: ts.Type, checker: ts.TypeChecker): boolean {
  const t = checker.getNonNullableType(type);
  if (t.isUnion()) return t.types.every((u) => isPositional(u, checker));
  if (t.flags & ts.TypeFlags.Any) return false;
  if (checker.isArrayType(t) || checker.isTupleType(t)) return true;
  const name = (t.aliasSymbol ?? t.getSymbol())?.getName();
  return name !== undefined && TYPED_ARRAYS.has(name);
}

/** Every lookup by a wide string in the program's files under src/ and sim/, except the exempt helpers. */
function findPrototypeLookups(program: ts.Program): Finding[] {
  const checker = program.getTypeChecker();
  const findings: Finding[] = [];
  for (const sf of program.getSourceFiles()) {
    const file = scannedPath(sf.fileName);
    if (file === null || EXEMPT.has(file)) continue;
    const report = (node: ts.Node) => {
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      const text = node.getText(sf).replace(/\s+/g, ' ');
      findings.push({ file, line, text: text.length > 120 ? `${text.slice(0, 117)}...` : text });
    };
    const wide = (expr: ts.Expression) => isWideString(checker.getTypeAtLocation(expr), checker);
    const visit = (node: ts.Node): void => {
      if (
        ts.isElementAccessExpression(node) &&
        wide(node.argumentExpression) &&
        !isPositional(checker.getTypeAtLocation(node.expression), checker)
      ) {
        report(node);
      } else if (
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.InKeyword &&
        !ts.isPrivateIdentifier(node.left) &&
        wide(node.left)
      ) {
        report(node);
      } else if (
        // `const { [key]: v } = obj` reads obj[key] just the same.
        ts.isBindingElement(node) &&
        node.propertyName !== undefined &&
        ts.isComputedPropertyName(node.propertyName) &&
        ts.isObjectBindingPattern(node.parent) &&
        wide(node.propertyName.expression)
      ) {
        report(node);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return findings;
}

function compilerOptions(): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    resolve(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('tsconfig.json could not be read');
  return { ...parsed.options, noEmit: true };
}

function repositoryProgram(): { program: ts.Program; roots: number } {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    resolve(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!parsed) throw new Error('tsconfig.json could not be read');
  const roots = parsed.fileNames.filter((f) => scannedPath(f) !== null);
  return { program: ts.createProgram(roots, compilerOptions()), roots: roots.length };
}

/** A program over in-memory files (root-relative paths) next to the real ones, so lib and @types/node resolve. */
function inMemoryProgram(files: Record<string, string>): ts.Program {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options, true);
  const memory = new Map(Object.entries(files).map(([path, text]) => [resolve(ROOT, path), text]));
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (name, languageVersion, onError, shouldCreate) => {
    const text = memory.get(resolve(name));
    return text === undefined
      ? getSourceFile(name, languageVersion, onError, shouldCreate)
      : ts.createSourceFile(name, text, languageVersion, true);
  };
  host.fileExists = (name) => memory.has(resolve(name)) || fileExists(name);
  host.readFile = (name) => memory.get(resolve(name)) ?? readFile(name);
  return ts.createProgram([...memory.keys()], options, host);
}

const format = (f: Finding) => `${f.file}:${f.line}: ${f.text}`;

test('the detector reports reads, writes, `in` and `any` lookups by a wide string, and nothing safe', () => {
  const program = inMemoryProgram({
    'src/__self-test__/probe.ts': `
      import type { IncomingHttpHeaders } from 'node:http';
      import { ownValue } from '../domain/own-key.js';
      const TABLE: Record<string, string> = { a: 'A' };
      export function bad(key: string, loose: any, headers: IncomingHttpHeaders, upper: Uppercase<string>) {
        const read = TABLE[key]; // BAD read
        TABLE[key] = 'x'; // BAD write
        const has = key in TABLE; // BAD in
        const anyRead = loose[key]; // BAD any
        const header = headers[key]; // BAD headers
        const optional = (TABLE as Record<string, string> | undefined)?.[key]; // BAD optional
        const templated = TABLE[\`\${key}/x\`]; // BAD template
        const upperRead = TABLE[upper]; // BAD upper
        const { [key]: destructured } = TABLE; // BAD destructuring
        const byAnyKey = TABLE[loose]; // BAD any key
        return [read, has, anyRead, header, optional, templated, upperRead, destructured, byAnyKey];
      }
      export function generic<K extends string>(key: K, table: Record<string, number>) {
        return table[key]; // BAD generic
      }
      export function good(key: string, list: string[], bytes: Uint8Array, i: number, which: 'a' | 'b') {
        const literal = TABLE['a'];
        const narrowed = TABLE[which];
        const map = new Map<string, string>([['a', 'A']]);
        const fromMap = map.get(key);
        const viaHelper = ownValue(TABLE, key);
        const positional = [list[i], bytes[i], list[key as unknown as number]];
        const own = Object.hasOwn(TABLE, key);
        return [literal, narrowed, fromMap, viaHelper, positional, own];
      }
    `,
    'test/sim/__self-test__/outside.ts': `
      export const outside = (t: Record<string, string>, key: string) => t[key];
    `,
  });
  const found = findPrototypeLookups(program).filter((f) => f.file.startsWith('src/__self-test__/'));
  const source = program
    .getSourceFile(resolve(ROOT, 'src/__self-test__/probe.ts'))!
    .getFullText()
    .split('\n');
  const marked = source.flatMap((line, i) => (/\/\/ BAD /.test(line) ? [i + 1] : []));
  assert.equal(marked.length, 11);
  assert.deepEqual(
    found.map((f) => f.line),
    marked,
    `expected one finding on each BAD line, got:\n${found.map(format).join('\n')}`,
  );
  assert.ok(
    findPrototypeLookups(program).every((f) => !f.file.startsWith('test/')),
    'test/sim/... is not under sim/ and must not be scanned',
  );
});

test('the exempt helpers are exempt by path only', () => {
  const helper = `export const ownValue = <T>(r: Record<string, T>, k: string) =>
    Object.hasOwn(r, k) ? r[k] : undefined;`;
  const program = inMemoryProgram({
    'src/domain/own-key.ts': helper,
    'sim/shared/own-key.ts': helper,
    'sim/shared/__self-test__-own-key.ts': helper,
  });
  const found = findPrototypeLookups(program).map((f) => f.file);
  assert.deepEqual(found, ['sim/shared/__self-test__-own-key.ts']);
});

test('src/ and sim/ never look up a plain object by an outside string', () => {
  const { program, roots } = repositoryProgram();
  // The scan must have looked at real code, or it would pass vacuously.
  assert.ok(roots >= 100, `only ${roots} .ts files found under src/ and sim/`);
  const findings = findPrototypeLookups(program);
  const lines = findings.map(format);
  for (const line of lines) console.error(line);
  assert.equal(
    lines.length,
    0,
    `${lines.length} lookup(s) by a wide string (use a Map, or src/domain/own-key.ts / sim/shared/own-key.ts):\n${lines.join('\n')}`,
  );
});
