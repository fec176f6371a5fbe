/**
 * Program counters to Solidity source: the source maps and source files of the loaded artifacts,
 * matched against the code the node runs (runtime code, or init code for constructors). Library
 * links, immutables and the trailing metadata hash are ignored when matching.
 */
import type { CodeSource, SourceLocation, SourceLocator } from '../chain/core/sources.js';
import { decodeSourceMap, instructionIndex, type MapEntry, SourceText } from './sourceMap.js';

/** The files of one compiler run, by source id; generated (Yul) sources are marked. */
export class Compilation {
  readonly files = new Map<number, SourceText>();
  readonly generated = new Set<number>();
  /** The solc AST of each file, by source id, when the build output has it (coverage reads them). */
  readonly asts = new Map<number, unknown>();
  /** The project folder source names are relative to, when known. */
  root: string | undefined;
  byName(name: string): SourceText | undefined {
    for (const f of this.files.values()) if (f.name === name) return f;
    return undefined;
  }
}

/** Byte ranges `[start, length]` that differ per deployment or compile. */
export type Masks = ReadonlyArray<readonly [number, number]>;

export interface MappedCode {
  readonly name: string;
  /** Code as the compiler wrote it (hex, no 0x, placeholders zeroed). */
  readonly code: string;
  readonly masks: Masks;
  readonly sourceMap: string;
  readonly compilation: Compilation;
  /** Generated sources of this piece of code (Hardhat: evm.*.generatedSources). */
  readonly generated?: ReadonlyArray<{ id: number; name: string; contents: string }>;
}

/** The CBOR metadata trailer of compiled code, as `[start, length]`; undefined when absent. */
export function metadataRange(hex: string): [number, number] | undefined {
  const size = hex.length / 2;
  if (size < 2) return undefined;
  const len = parseInt(hex.slice(-4), 16);
  const start = size - 2 - len;
  if (len === 0 || start < 0) return undefined;
  const first = parseInt(hex.slice(start * 2, start * 2 + 2), 16);
  // A CBOR map of 1 to 15 entries (solc writes `ipfs`/`bzzr`, `solc`, …).
  return first >= 0xa1 && first <= 0xaf ? [start, len + 2] : undefined;
}

/**
 * Masks that hold for any deployment of `hex`: the metadata trailer, and a library's own address,
 * which its runtime code starts with (`PUSH20 <address>`, zeros in the compiler's output).
 */
export function deploymentMasks(hex: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (hex.startsWith('73' + '00'.repeat(20))) out.push([1, 20]);
  const meta = metadataRange(hex);
  if (meta) out.push(meta);
  return out;
}

function applyMasks(hex: string, masks: Masks): string {
  let out = hex;
  for (const [start, len] of masks) {
    if ((start + len) * 2 > out.length) continue;
    out = out.slice(0, start * 2) + '0'.repeat(len * 2) + out.slice((start + len) * 2);
  }
  return out;
}

const toHex = (code: Uint8Array): string => {
  let s = '';
  for (let i = 0; i < code.length; i++) s += (code[i]! < 16 ? '0' : '') + code[i]!.toString(16);
  return s;
};

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

class ContractSource implements CodeSource {
  readonly name: string;
  /** What this source was built from: code, source map, compilation. */
  readonly origin: MappedCode;
  private readonly map: MapEntry[];
  private readonly index: Int32Array;
  private readonly compilation: Compilation;
  private readonly generated: Set<number>;

  constructor(m: MappedCode) {
    this.name = m.name;
    this.origin = m;
    this.map = decodeSourceMap(m.sourceMap);
    this.index = instructionIndex(hexToBytes(m.code));
    this.compilation = m.compilation;
    this.generated = new Set([...m.compilation.generated, ...(m.generated ?? []).map((g) => g.id)]);
  }

  private entry(pc: number): MapEntry | undefined {
    const i = this.index[pc];
    return i === undefined || i < 0 ? undefined : this.map[i];
  }

  inSource(pc: number): boolean {
    const e = this.entry(pc);
    return e !== undefined && e.file >= 0 && e.start >= 0 && !this.generated.has(e.file) && this.compilation.files.has(e.file);
  }

  jump(pc: number): string {
    return this.entry(pc)?.jump ?? '-';
  }

  private readonly scopes = new Map<number, number>();
  private readonly scopeIds = new Map<string, number>();

  scope(pc: number): number {
    let id = this.scopes.get(pc);
    if (id !== undefined) return id;
    const e = this.entry(pc);
    const file = e && this.inSource(pc) ? this.compilation.files.get(e.file) : undefined;
    const around = file ? file.enclosing(e!.start) : undefined;
    const key = around ? `${file!.name}:${around.contract ?? ''}.${around.function ?? ''}` : '';
    id = this.scopeIds.get(key) ?? this.scopeIds.size;
    this.scopeIds.set(key, id);
    this.scopes.set(pc, id);
    return id;
  }

  locate(pc: number): SourceLocation | undefined {
    if (!this.inSource(pc)) return undefined;
    const e = this.entry(pc)!;
    const file = this.compilation.files.get(e.file)!;
    const { line, column } = file.position(e.start);
    return { ...file.enclosing(e.start), file: file.name, line, column, text: file.line(line) };
  }
}

interface Entry {
  readonly code: string;
  readonly masks: Masks;
  readonly mapped: MappedCode;
  source?: ContractSource;
}

export class SourceIndex implements Omit<SourceLocator, 'describeError'> {
  private readonly runtime = new Map<number, Entry[]>();
  private readonly creation: Entry[] = [];
  private readonly compilations = new Set<Compilation>();
  private readonly seen = new WeakMap<Uint8Array, CodeSource | null>();
  mapped = 0;

  /** Register a contract's runtime (`create` false) or creation code with its source map. */
  add(m: MappedCode, create: boolean): void {
    // The map is decoded when its code first fails (a malformed one then locates nothing): start-up stays cheap.
    if (m.code.length === 0 || m.sourceMap.length === 0) return;
    const masks: Masks = [...m.masks, ...deploymentMasks(m.code)];
    const entry: Entry = { code: applyMasks(m.code, masks), masks, mapped: m };
    this.compilations.add(m.compilation);
    if (create) this.creation.push(entry);
    else {
      const list = this.runtime.get(m.code.length) ?? [];
      list.push(entry);
      this.runtime.set(m.code.length, list);
      this.mapped++;
    }
  }

  code(code: Uint8Array, create: boolean): CodeSource | undefined {
    const known = this.seen.get(code);
    if (known !== undefined) return known ?? undefined;
    const found = this.find(code, create);
    this.seen.set(code, found ?? null);
    return found;
  }

  private find(code: Uint8Array, create: boolean): CodeSource | undefined {
    const hex = toHex(code);
    const candidates = create ? this.creation.filter((e) => e.code.length <= hex.length) : (this.runtime.get(hex.length) ?? []);
    for (const e of candidates) {
      const own = create ? hex.slice(0, e.code.length) : hex;
      if (applyMasks(own, e.masks) !== e.code) continue;
      e.source ??= new ContractSource(e.mapped);
      return e.source;
    }
    return undefined;
  }

  /** The compiler output the source of `code` comes from (see `code`). */
  origin(code: Uint8Array, create: boolean): MappedCode | undefined {
    const s = this.code(code, create);
    return s instanceof ContractSource ? s.origin : undefined;
  }

  /** Every compiler run registered. */
  runs(): Iterable<Compilation> {
    return this.compilations;
  }

  snippet(file: string, line: number, radius: number): Array<{ line: number; text: string }> {
    for (const c of this.compilations) {
      const f = c.byName(file);
      if (!f) continue;
      const out: Array<{ line: number; text: string }> = [];
      for (let l = Math.max(1, line - radius); l <= Math.min(f.lineCount, line + radius); l++) out.push({ line: l, text: f.line(l) });
      return out;
    }
    return [];
  }
}
