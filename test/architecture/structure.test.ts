/**
 * The source tree's shape, checked on every run: no import cycles between files (type-only
 * imports included) or between folders (value imports), every import following the folder order
 * the README writes down (folders.ts), no file over 450 lines, rpc handlers that call into
 * chain/ rather than writing its fields, and ethereumjs's private fields and the dependency
 * patches' hooks touched only in src/chain/engine (privateAccess.ts).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { againstOrder, describe, folderCycles, folderGraph, readOrder } from './folders.js';
import { declaredMembers, hiddenMembers, privateAccesses } from './privateAccess.js';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

const FILES = sources(SRC);
const rel = (f: string) => relative(SRC, f);

/** Relative imports of a file (static, dynamic and type-only), resolved to source files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)) {
    const spec = (m[1] ?? m[2])!;
    out.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
  }
  return out.filter((f) => FILES.includes(f));
}

test('no import cycles in src/', () => {
  const graph = new Map(FILES.map((f) => [f, importsOf(f)]));
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (f: string, path: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      cycles.push([...path.slice(path.indexOf(f)), f].map(rel).join(' → '));
      return;
    }
    state.set(f, 'open');
    for (const g of graph.get(f)!) visit(g, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of FILES) visit(f, []);
  assert.deepEqual(cycles, []);
});

test('no cycle between folders, and every import follows the README\'s folder order', () => {
  const graph = folderGraph(SRC);
  const order = readOrder(readFileSync(new URL('../../../README.md', import.meta.url), 'utf8'));
  const problems = [...folderCycles(graph).map((c) => `cycle: ${c.join(', ')}`), ...againstOrder(graph, order)];
  assert.deepEqual(problems, [], `folder graph:\n${describe(graph, order)}`);
});

test('no source file over 450 lines', () => {
  const long = FILES.map((f) => [rel(f), readFileSync(f, 'utf8').split('\n').length] as const).filter(([, n]) => n > 450);
  assert.deepEqual(long, []);
});

test('layers import only downward: server knows no Ethereum, chain no JSON-RPC, the library no CLI', () => {
  const below: Record<string, string[]> = {
    server: ['server'],
    chain: ['chain'],
    trace: ['trace', 'chain'],
    format: ['format', 'chain', 'trace'],
    // The library is what the CLI stands on: it never imports the CLI.
    lib: ['lib', 'rpc', 'server', 'chain', 'trace', 'format', 'artifacts', 'explorer', 'coverage'],
  };
  const wrong: string[] = [];
  for (const f of FILES) {
    const layer = rel(f).split('/')[0]!;
    const allowed = below[layer];
    if (allowed === undefined) continue;
    for (const g of importsOf(f)) if (!allowed.some((a) => rel(g) === a || rel(g).startsWith(a + '/'))) wrong.push(`${rel(f)} → ${rel(g)}`);
  }
  assert.deepEqual(wrong, []);
});

test('rpc handlers never write a chain field', () => {
  const writes: string[] = [];
  for (const f of FILES.filter((f) => rel(f).startsWith('rpc/'))) {
    const lines = readFileSync(f, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (/\bnode\.[\w.]+\s*(?:=(?!=)|\+=|-=|\+\+|--)/.test(line)) writes.push(`${rel(f)}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(writes, []);
});

test('the rpc layer sees the node only as capabilities (chain/api.ts): only rpc/methods/index.ts imports it', () => {
  const node = join(SRC, 'chain/node.ts');
  const importers = FILES.filter((f) => rel(f).startsWith('rpc/') && importsOf(f).includes(node)).map(rel);
  assert.deepEqual(importers, ['rpc/methods/index.ts']);
  // Nor does a handler reach through a capability into the node's raw parts.
  const reaches: string[] = [];
  for (const f of FILES.filter((f) => rel(f).startsWith('rpc/') || rel(f).startsWith('trace/'))) {
    readFileSync(f, 'utf8').split('\n').forEach((line, i) => {
      if (/\bnode\.(?:vm|state|store|pool|stateTrie|trieNodes|preimages|lock)\b/.test(line)) reaches.push(`${rel(f)}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(reaches, []);
});

/** Names the dependency patches add to ethereumjs or read from the objects handed to it. */
const PATCH_HOOKS = ['leanTopFrame', 'getStorageMaybe', 'getAccountMaybe', 'warmAddress', 'warmStorage', 'slotBytesFromStackBigInt', 'addressBytesToHex', 'slotBytesToHex'];
const ENGINE = join(SRC, 'chain', 'engine') + '/';
const OURS = new Set(FILES.flatMap((f) => [...declaredMembers(readFileSync(f, 'utf8'))]));
const HIDDEN = hiddenMembers(fileURLToPath(new URL('../../../node_modules/@ethereumjs/', import.meta.url)), OURS);

test('the private-field check finds every form of access, and only those', () => {
  const flagged = (src: string) => privateAccesses(src, PATCH_HOOKS).map((f) => f.what);
  assert.deepEqual(flagged('const m = (rs.memory as unknown as { _store: Uint8Array })._store.slice(0, 32);'), ['member _store', 'member _store']);
  assert.deepEqual(flagged("a?._runState; a['_env']; Reflect.get(a, '_caches'); if ('_trie' in a) {}"), ['member _runState', "member '_env'", "member '_caches'", "member '_trie'"]);
  assert.deepEqual(flagged("const { _opts, x: { _db: db } } = trie;\ninterface T {\n  _len?: number;\n  _emit(): void;\n}"), ['member _opts', 'member _db', 'member _len', 'member _emit']);
  assert.deepEqual(flagged("a['_' + name]; a[`_${name}`]; (evm as { leanTopFrame?: boolean }).leanTopFrame = true; sm['getStorageMaybe']"), [
    "member '_'",
    "member '_${'",
    'hook leanTopFrame',
    'hook leanTopFrame',
    "hook 'getStorageMaybe'",
  ]);
  const hidden = new Set(['runInterpreter']);
  assert.deepEqual(
    privateAccesses("(evm as unknown as { runInterpreter(m: unknown): unknown }).runInterpreter(m); evm['runInterpreter']; const runInterpreter = 1; ok.run()", [], hidden).map((f) => f.what),
    ['protected member runInterpreter', "protected member 'runInterpreter'"],
  );
  // ethereumjs's protected members without an underscore are found in its declarations.
  for (const name of ['runInterpreter', 'performanceLogger']) assert.ok(HIDDEN.has(name), name);
  for (const name of ['runCall', 'journal', 'stateManager', '_opcodeMap']) assert.ok(!HIDDEN.has(name), name);
  // Not members: unused parameters and locals, names with an inner underscore, comments, text.
  assert.deepEqual(
    flagged(
      [
        'const f = (_ctx: Ctx, raw: unknown) => raw;',
        'function g(_step: Step, _cost: bigint) { const _n = 1; return _n + snake_case + MAX_GAS; }',
        '// the old code read x._store and called leanTopFrame',
        "/* { _store: Uint8Array } */ const msg = 'no _store here'; const re = /a._b/g; const t = `${a}._store`;",
        '{ const { a, b } = obj; }',
      ].join('\n'),
    ),
    [],
  );
});

test('ethereumjs private fields and the patches\' hooks are touched only in src/chain/engine', () => {
  const patches = join(SRC, 'chain', 'engine', 'patches');
  const patchText = readdirSync(patches).map((f) => readFileSync(join(patches, f), 'utf8')).join('\n');
  for (const hook of PATCH_HOOKS) assert.ok(patchText.includes(hook), `${hook} is no longer in a dependency patch: drop it from PATCH_HOOKS`);
  const outside = FILES.filter((f) => !f.startsWith(ENGINE));
  assert.ok(outside.length > 100 && FILES.length > outside.length, 'the source tree was not found');
  const found = outside.flatMap((f) => privateAccesses(readFileSync(f, 'utf8'), PATCH_HOOKS, HIDDEN).map((x) => `${rel(f)}:${x.line}: ${x.what}`));
  assert.deepEqual(found, []);
});
