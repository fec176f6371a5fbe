/**
 * The source tree's shape, checked on every run: no import cycles between files (type-only
 * imports included) or between folders (value imports), every import following the folder order
 * the README writes down (folders.ts), no file over 450 lines, and rpc handlers that call into
 * chain/ rather than writing its fields.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { againstOrder, describe, folderCycles, folderGraph, readOrder } from './folders.js';

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
    lib: ['lib', 'rpc', 'server', 'chain', 'trace', 'format', 'artifacts', 'explorer'],
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
