/**
 * Source maps and source files from compiler output on disk, for the artifacts `load.ts` reads:
 *  - Hardhat: the build info an artifact's `.dbg.json` names carries the compiler input (every
 *    source's text), the source ids and both source maps;
 *  - Foundry: `out/<File>.sol/<Name>.json` carries both source maps and its source's id;
 *    `out/build-info/*.json` maps ids to paths, which are read from the project root (the folder
 *    holding `out/`) and checked against the hashes in the metadata.
 * Output that does not agree with itself (a stale build info, a source edited since the build) is
 * left out, with one warning per folder; nothing here throws.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { SourceText } from './sourceMap.js';
import { Compilation, SourceIndex, type Masks } from './sources.js';

type Json = Record<string, unknown>;
const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

interface Bytecode {
  object?: unknown;
  sourceMap?: unknown;
  generatedSources?: Array<{ id: number; name: string; contents: string }>;
}

function strip(hex: unknown): string {
  if (typeof hex !== 'string') return '';
  return (hex.startsWith('0x') ? hex.slice(2) : hex).toLowerCase().replace(/__.{36}__/g, (m) => '0'.repeat(m.length));
}

function readJson(path: string): Json | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

export class SourceLoader {
  private readonly hardhatRuns = new Map<string, Compilation | null>();
  private readonly foundryRuns = new Map<string, Compilation | null>();
  private readonly warned = new Set<string>();
  private readonly checked = new WeakSet<SourceText>();

  constructor(
    readonly index: SourceIndex,
    private readonly warn: (message: string) => void,
  ) {}

  private warnOnce(folder: string, message: string): void {
    if (this.warned.has(folder)) return;
    this.warned.add(folder);
    this.warn(`artifacts: ${folder}: ${message}; its source locations are not used`);
  }

  /** A Hardhat artifact: `info` is its parsed build info, `runtime` its runtime code with `masks` applied. */
  hardhat(infoPath: string, info: Json, json: Json, runtime: string, masks: Masks): void {
    const entry = ((info.output as Json | undefined)?.contracts as Record<string, Record<string, { evm?: { bytecode?: Bytecode; deployedBytecode?: Bytecode & { immutableReferences?: unknown } } }>> | undefined)?.[
      json.sourceName as string
    ]?.[json.contractName as string];
    const evm = entry?.evm;
    if (!evm?.deployedBytecode || !evm.bytecode) return;
    const folder = dirname(dirname(infoPath));
    const built = strip(evm.deployedBytecode.object);
    if (built.length !== runtime.length || maskWith(built, masks) !== runtime) {
      this.warnOnce(folder, `${json.sourceName as string}:${json.contractName as string} differs from the build info ${infoPath} (output of another compiler run)`);
      return;
    }
    let compilation = this.hardhatRuns.get(infoPath);
    if (compilation === undefined) {
      compilation = hardhatCompilation(info);
      if (compilation) compilation.root = projectRoot(dirname(dirname(infoPath)), compilation);
      this.hardhatRuns.set(infoPath, compilation);
    }
    if (compilation === null) return;
    this.register(json.contractName as string, compilation, evm.deployedBytecode, evm.bytecode, masks);
  }

  /** A Foundry artifact at `path` (`out/<File>.sol/<Name>.json`). */
  foundry(path: string, json: Json, name: string, masks: Masks): void {
    const deployed = json.deployedBytecode as Bytecode | undefined;
    const creation = json.bytecode as Bytecode | undefined;
    if (typeof deployed?.sourceMap !== 'string' || typeof creation?.sourceMap !== 'string') return;
    const out = dirname(dirname(path));
    let compilation = this.foundryRuns.get(out);
    if (compilation === undefined) {
      compilation = this.foundryCompilation(out);
      this.foundryRuns.set(out, compilation);
    }
    if (compilation === null) return;
    const own = typeof json.id === 'number' ? json.id : undefined;
    const meta = metadataOf(json);
    const target = Object.keys((meta?.settings as Json | undefined)?.compilationTarget ?? {})[0];
    if (own !== undefined && target !== undefined && !compilation.files.has(own)) this.addFoundryFile(compilation, out, own, target, meta);
    // Built with --ast: the file's AST (coverage).
    if (own !== undefined && json.ast !== null && typeof json.ast === 'object' && !compilation.asts.has(own)) compilation.asts.set(own, json.ast);
    // Files named in this artifact's metadata that the id table knows: checked against their hashes.
    for (const [id, file] of compilation.files) {
      if (this.checked.has(file)) continue;
      if (this.checkHash(out, file, meta)) {
        if (meta?.sources && (meta.sources as Json)[file.name] !== undefined) this.checked.add(file);
      } else compilation.files.delete(id);
    }
    this.register(name, compilation, deployed, creation, masks);
  }

  private register(name: string, compilation: Compilation, deployed: Bytecode, creation: Bytecode, masks: Masks): void {
    const runtimeMap = typeof deployed.sourceMap === 'string' ? deployed.sourceMap : '';
    const creationMap = typeof creation.sourceMap === 'string' ? creation.sourceMap : '';
    this.index.add({ name, code: strip(deployed.object), masks, sourceMap: runtimeMap, compilation, generated: deployed.generatedSources }, false);
    // Creation code: only library links differ per deployment (constructor arguments follow it).
    this.index.add({ name, code: strip(creation.object), masks: [], sourceMap: creationMap, compilation, generated: creation.generatedSources }, true);
  }

  private foundryCompilation(out: string): Compilation | null {
    const compilation = new Compilation();
    compilation.root = dirname(out);
    let names: string[] = [];
    try {
      names = readdirSync(join(out, 'build-info')).filter((n) => n.endsWith('.json')).sort();
    } catch {
      // No build info (older forge): ids come from each artifact's own `id`.
    }
    const root = dirname(out);
    for (const n of names) {
      const info = readJson(join(out, 'build-info', n));
      const table = info?.source_id_to_path;
      if (!table || typeof table !== 'object') continue;
      for (const [id, path] of Object.entries(table as Record<string, unknown>)) {
        if (typeof path === 'string' && Number.isInteger(Number(id))) this.addFoundryFile(compilation, out, Number(id), path, undefined, root);
      }
    }
    return compilation;
  }

  private addFoundryFile(compilation: Compilation, out: string, id: number, path: string, meta: Json | undefined, root = dirname(out)): void {
    const full = resolve(root, path);
    try {
      if (statSync(full).size > MAX_SOURCE_BYTES) return;
      const file = new SourceText(path, readFileSync(full, 'utf8'));
      if (meta && !this.checkHash(out, file, meta)) return;
      compilation.files.set(id, file);
    } catch {
      // A library's source outside the project (or a deleted file): frames in it have no location.
    }
  }

  /** False (with a warning) when the metadata names another hash for this file's text. */
  private checkHash(out: string, file: SourceText, meta: Json | undefined): boolean {
    const want = ((meta?.sources as Record<string, { keccak256?: unknown }> | undefined)?.[file.name])?.keccak256;
    if (typeof want !== 'string') return true;
    const have = '0x' + bytesToHex(keccak_256(new TextEncoder().encode(file.text)));
    if (have === want.toLowerCase()) return true;
    this.warnOnce(out, `${file.name} changed since it was compiled`);
    return false;
  }
}

/**
 * The folder source names are relative to: the nearest folder at or above the artifacts folder
 * holding one of the compilation's files (Hardhat keeps its artifacts folder anywhere under the
 * project); the artifacts folder's parent when none is found.
 */
function projectRoot(artifacts: string, compilation: Compilation): string {
  const names = [...compilation.files.values()].map((f) => f.name).filter((n) => !n.startsWith('/'));
  for (let dir = artifacts, i = 0; i < 6; i++) {
    // A file: Hardhat's artifacts folder has a folder of the same name for each source.
    if (names.some((n) => isFile(join(dir, n)))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return dirname(artifacts);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function metadataOf(json: Json): Json | undefined {
  if (json.metadata && typeof json.metadata === 'object') return json.metadata as Json;
  if (typeof json.rawMetadata === 'string') {
    try {
      return JSON.parse(json.rawMetadata) as Json;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function maskWith(hex: string, masks: Masks): string {
  let out = hex;
  for (const [start, len] of masks) {
    if ((start + len) * 2 > out.length) continue;
    out = out.slice(0, start * 2) + '0'.repeat(len * 2) + out.slice((start + len) * 2);
  }
  return out;
}

function hardhatCompilation(info: Json): Compilation | null {
  const sources = (info.output as Json | undefined)?.sources as Record<string, { id?: unknown; ast?: unknown }> | undefined;
  const inputs = (info.input as Json | undefined)?.sources as Record<string, { content?: unknown }> | undefined;
  if (!sources || !inputs) return null;
  const compilation = new Compilation();
  for (const [name, s] of Object.entries(sources)) {
    const content = inputs[name]?.content;
    if (typeof s?.id === 'number' && typeof content === 'string') {
      compilation.files.set(s.id, new SourceText(name, content));
      if (s.ast !== null && typeof s.ast === 'object') compilation.asts.set(s.id, s.ast);
    }
  }
  return compilation;
}
