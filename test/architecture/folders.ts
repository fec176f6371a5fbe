/**
 * The folder graph of src/: which folder imports which, value imports told apart from type-only
 * ones, checked against the order written in the README ("Folder order" in Development).
 *
 *   node dist/test/architecture/folders.js [--src DIR] [--readme FILE]   (npm run folders)
 *
 * prints every folder in the written order with the folders it imports, then any cycle between
 * folders (value imports) and any import that runs against the order; exits 1 when there is one.
 * The structure test runs the same checks.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FolderEdge {
  from: string;
  to: string;
  /** Some import along this edge is a value import (not `import type`). */
  value: boolean;
  /** `file → file` pairs behind the edge. */
  imports: string[];
}

export interface FolderGraph {
  folders: string[];
  edges: FolderEdge[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Folder of a file, relative to src/, with `/` separators ('.' for src/ itself). */
const folderOf = (src: string, file: string) => relative(src, dirname(file)).split(sep).join('/') || '.';

/** Relative imports of a source text: the specifier and whether only types come through it. */
export function importsIn(text: string): Array<{ spec: string; typeOnly: boolean }> {
  const out: Array<{ spec: string; typeOnly: boolean }> = [];
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+'(\.[^']+)'|(typeof\s+)?import\(\s*'(\.[^']+)'\s*\)/g;
  for (const m of text.matchAll(re)) {
    if (m[6] !== undefined) {
      out.push({ spec: m[6], typeOnly: m[5] !== undefined });
      continue;
    }
    const clause = m[3]!.trim();
    // `import { type A, type B } from` brings in nothing at run time either.
    const allTypes = /^\{[^}]*\}$/.test(clause) && clause.slice(1, -1).split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type '));
    out.push({ spec: m[4]!, typeOnly: m[2] !== undefined || allTypes });
  }
  return out;
}

/** Every folder of `src` that holds a source file, and the imports between folders. */
export function folderGraph(src: string): FolderGraph {
  const files = sourceFiles(src);
  const known = new Set(files);
  const edges = new Map<string, FolderEdge>();
  for (const file of files) {
    const from = folderOf(src, file);
    for (const { spec, typeOnly } of importsIn(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (!known.has(target)) continue;
      const to = folderOf(src, target);
      if (to === from) continue;
      const key = `${from}\n${to}`;
      const edge = edges.get(key) ?? { from, to, value: false, imports: [] };
      edge.value ||= !typeOnly;
      edge.imports.push(`${relative(src, file)} → ${relative(src, target)}${typeOnly ? ' (type)' : ''}`);
      edges.set(key, edge);
    }
  }
  const folders = [...new Set(files.map((f) => folderOf(src, f)))].sort();
  return { folders, edges: [...edges.values()].sort((a, b) => (a.from + a.to < b.from + b.to ? -1 : 1)) };
}

/** Cycles between folders through value imports: each strongly connected set of two or more folders. */
export function folderCycles(graph: FolderGraph): string[][] {
  const next = new Map<string, string[]>();
  for (const e of graph.edges) if (e.value) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const f of graph.folders) if (!index.has(f)) visit(f);
  return out;
}

/**
 * The written order: the folders listed, top first, in the README's fenced block that follows the
 * line `Folder order`; the first word of each line is a folder under src/.
 */
export function readOrder(readme: string): string[] {
  const at = readme.search(/^Folder order\b/m);
  if (at < 0) throw new Error('the README has no "Folder order" block');
  const block = /```[^\n]*\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block) throw new Error('the README\'s "Folder order" has no fenced block');
  return block[1]!
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0]!)
    .filter((w) => w !== '' && !w.startsWith('#'))
    .map((w) => w.replace(/^src\//, '').replace(/\/$/, ''));
}

/** Imports (value or type) from a folder to one listed above it, and folders the order does not list. */
export function againstOrder(graph: FolderGraph, order: string[]): string[] {
  const rank = new Map(order.map((f, i) => [f, i]));
  const wrong = graph.folders.filter((f) => !rank.has(f)).map((f) => `${f}: not in the folder order`);
  for (const e of graph.edges) {
    const a = rank.get(e.from);
    const b = rank.get(e.to);
    if (a === undefined || b === undefined || b > a) continue;
    for (const i of e.imports) wrong.push(`${e.from} → ${e.to} runs upward: ${i}`);
  }
  return wrong;
}

/** The graph as text: each folder in the written order with what it imports (`type:` for type-only). */
export function describe(graph: FolderGraph, order: string[]): string {
  const rows = order.filter((f) => graph.folders.includes(f)).map((f) => {
    const out = graph.edges.filter((e) => e.from === f);
    const value = out.filter((e) => e.value).map((e) => e.to);
    const types = out.filter((e) => !e.value).map((e) => e.to);
    return `${f.padEnd(20)} → ${value.join(', ') || '—'}${types.length ? `   type: ${types.join(', ')}` : ''}`;
  });
  return rows.join('\n');
}

function main(): void {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const args = process.argv.slice(2);
  const opt = (name: string, fallback: string) => {
    const i = args.indexOf(name);
    return i >= 0 && args[i + 1] ? resolve(args[i + 1]!) : fallback;
  };
  const graph = folderGraph(opt('--src', join(root, 'src')));
  const order = readOrder(readFileSync(opt('--readme', join(root, 'README.md')), 'utf8'));
  console.log(describe(graph, order));
  const cycles = folderCycles(graph);
  const wrong = againstOrder(graph, order);
  for (const c of cycles) console.log(`cycle: ${c.join(', ')}`);
  for (const w of wrong) console.log(w);
  console.log(`${graph.folders.length} folders, ${graph.edges.length} edges, ${cycles.length} cycles, ${wrong.length} against the order`);
  if (cycles.length || wrong.length) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
