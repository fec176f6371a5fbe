/**
 * Solidity source maps: solc's compressed `s:l:f:j:m;…` lists, the program counter of each
 * instruction, and source text as lines and definitions (contract, function, modifier), so a
 * program counter becomes `file:line:column` inside `Contract.function`.
 *
 * Platform-neutral, like the rest of src/artifacts.
 */

/** One instruction's entry: byte offset and length in file `file` (-1: no source). */
export interface MapEntry {
  readonly start: number;
  readonly length: number;
  readonly file: number;
  /** `i` into a function, `o` out of one, `-` a plain jump or none. */
  readonly jump: string;
}

/**
 * Decode a source map: every field left empty repeats the previous instruction's value. A
 * malformed field makes the whole map unusable (an empty list), never an exception.
 */
export function decodeSourceMap(map: string): MapEntry[] {
  const out: MapEntry[] = [];
  let start = -1;
  let length = -1;
  let file = -1;
  let jump = '-';
  if (map.length === 0) return out;
  for (const item of map.split(';')) {
    const fields = item.split(':');
    const num = (i: number, prev: number): number => {
      const f = fields[i];
      if (f === undefined || f === '') return prev;
      const n = Number(f);
      if (!Number.isInteger(n)) throw new SyntaxError(`bad source map field ${f}`);
      return n;
    };
    try {
      start = num(0, start);
      length = num(1, length);
      file = num(2, file);
    } catch {
      return [];
    }
    if (fields[3] !== undefined && fields[3] !== '') jump = fields[3];
    out.push({ start, length, file, jump });
  }
  return out;
}

/** The instruction index of every byte of `code` (-1 for PUSH data bytes). */
export function instructionIndex(code: Uint8Array): Int32Array {
  const index = new Int32Array(code.length).fill(-1);
  let n = 0;
  for (let pc = 0; pc < code.length; pc++) {
    index[pc] = n++;
    const op = code[pc]!;
    if (op >= 0x60 && op <= 0x7f) pc += op - 0x5f;
  }
  return index;
}

/** What a definition is: the body ranges of contracts and of the functions inside them. */
export interface Definition {
  readonly kind: 'contract' | 'function';
  /** `Thrower`, `requireString`, `constructor`, `fallback`, `receive`, a modifier's name. */
  readonly name: string;
  /** Byte offsets of the definition, keyword to closing brace. */
  readonly start: number;
  readonly end: number;
}

const CONTAINERS = new Set(['contract', 'library', 'interface']);
const FUNCTIONS = new Set(['function', 'modifier', 'constructor', 'fallback', 'receive']);

/** A source file: its text, line starts and definitions, all in solc's byte offsets. */
export class SourceText {
  private readonly bytes: Uint8Array;
  private readonly lineStarts: number[] = [0];
  private defs: Definition[] | undefined;

  constructor(
    readonly name: string,
    readonly text: string,
  ) {
    this.bytes = new TextEncoder().encode(text);
    for (let i = 0; i < this.bytes.length; i++) if (this.bytes[i] === 0x0a) this.lineStarts.push(i + 1);
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** 1-based line and column (in characters) of a byte offset. */
  position(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    const prefix = new TextDecoder().decode(this.bytes.subarray(this.lineStarts[lo], offset));
    return { line: lo + 1, column: prefix.length + 1 };
  }

  /** The text of 1-based line `line`, without its line break. */
  line(line: number): string {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return '';
    const end = this.lineStarts[line] ?? this.bytes.length + 1;
    return new TextDecoder().decode(this.bytes.subarray(start, end - 1)).replace(/\r$/, '');
  }

  /** The innermost contract and function around a byte offset. */
  enclosing(offset: number): { contract?: string; function?: string } {
    const out: { contract?: string; function?: string } = {};
    for (const d of this.definitions()) {
      if (offset < d.start || offset >= d.end) continue;
      if (d.kind === 'contract') out.contract = d.name;
      else out.function = d.name;
    }
    return out;
  }

  /** Contract and function definitions, found by a scan that skips comments and strings. */
  definitions(): Definition[] {
    this.defs ??= scanDefinitions(this.bytes);
    return this.defs;
  }
}

/**
 * Definitions in Solidity source: `contract|library|interface Name … { … }` and
 * `function name`, `modifier name`, `constructor`, `fallback`, `receive` with a body. Function
 * types (`function (uint) external f;`) sit inside parentheses or end with `;` and are skipped.
 */
function scanDefinitions(src: Uint8Array): Definition[] {
  const defs: Definition[] = [];
  const open: Array<{ kind: Definition['kind']; name: string; start: number } | undefined> = [];
  let pending: { kind: Definition['kind']; name: string; start: number } | undefined;
  let parens = 0;
  let i = 0;
  const n = src.length;
  const isIdent = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x24;
  const word = (): string => {
    while (i < n && (src[i] === 0x20 || src[i] === 0x09 || src[i] === 0x0a || src[i] === 0x0d)) i++;
    const s = i;
    while (i < n && isIdent(src[i]!)) i++;
    return new TextDecoder().decode(src.subarray(s, i));
  };
  while (i < n) {
    const c = src[i]!;
    if (c === 0x2f && src[i + 1] === 0x2f) {
      while (i < n && src[i] !== 0x0a) i++;
    } else if (c === 0x2f && src[i + 1] === 0x2a) {
      i += 2;
      while (i < n && !(src[i] === 0x2a && src[i + 1] === 0x2f)) i++;
      i += 2;
    } else if (c === 0x22 || c === 0x27) {
      i++;
      while (i < n && src[i] !== c) i += src[i] === 0x5c ? 2 : 1;
      i++;
    } else if (c === 0x28) {
      parens++;
      i++;
    } else if (c === 0x29) {
      parens = Math.max(0, parens - 1);
      i++;
    } else if (c === 0x7b) {
      open.push(pending);
      pending = undefined;
      i++;
    } else if (c === 0x7d) {
      const def = open.pop();
      i++;
      if (def) defs.push({ ...def, end: i });
    } else if (c === 0x3b) {
      if (parens === 0) pending = undefined;
      i++;
    } else if (isIdent(c)) {
      const start = i;
      const w = word();
      if (parens > 0 || (start > 0 && isIdent(src[start - 1]!))) continue;
      if (CONTAINERS.has(w)) pending = { kind: 'contract', name: word(), start };
      else if (FUNCTIONS.has(w) && pending?.kind !== 'function') {
        const named = w === 'function' || w === 'modifier';
        const save = i;
        const name = named ? word() : w;
        if (named && name === '') i = save;
        pending = { kind: 'function', name: name === '' ? w : name, start };
      }
    } else {
      i++;
    }
  }
  return defs;
}
