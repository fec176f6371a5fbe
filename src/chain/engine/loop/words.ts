/**
 * The fast loop's stack words: 256-bit words as eight 32-bit limbs, least significant first, in a
 * typed array per frame (word i at limbs 8i..8i+7), so an inlined instruction updates them in
 * place and allocates nothing. A BigInt is made only where a word leaves the loop (ethereumjs's
 * stack, before an instruction the loop hands over) or comes in (read back after it), and for the
 * arithmetic the loop does not do on limbs (MUL, DIV, MOD of large words).
 *
 * Most words a contract computes with are below 2^32 (offsets, lengths, counters, jump targets,
 * booleans). Such a word is kept narrow: its value in limb 0 and `wide[i]` 0, its seven high limbs
 * not written (whatever a word before left there). `wide[i]` 1 means all eight limbs hold the
 * word. An instruction on narrow words touches one limb; one that needs all eight widens its
 * operands first (`widen`: the seven high limbs zeroed), and a word that comes in from memory,
 * calldata or a BigInt is marked narrow whenever its high limbs are zero. Every read of a word
 * goes through its flag: limb 0 is right in both forms, limbs 1-7 only when wide.
 *
 * The same bytes are also seen as four 64-bit limbs (a BigUint64Array over the same buffer), which
 * turns a wide word into a BigInt in four reads and back in four writes. That view needs a
 * little-endian machine (every platform Node ships for); install.ts declines the loop otherwise.
 */

/** Words of a full stack. */
const WORDS = 1024;
const TWO_32 = 4294967296;
const BIG_TWO_32 = 1n << 32n;
const TWO_53 = 2 ** 53;

export const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** One frame's stack: the limbs, the 64-bit view of the same bytes, and which words are wide. */
export interface Words {
  readonly u32: Uint32Array;
  readonly u64: BigUint64Array;
  readonly wide: Uint8Array;
}

/** Stacks of finished frames, for the next frames (at most POOL kept). */
const pool: Words[] = [];
const POOL = 64;

export function takeWords(): Words {
  const w = pool.pop();
  if (w !== undefined) return w;
  const u32 = new Uint32Array(WORDS * 8);
  return { u32, u64: new BigUint64Array(u32.buffer), wide: new Uint8Array(WORDS) };
}

export function giveWords(w: Words): void {
  if (pool.length < POOL) pool.push(w);
}

/** Word `i` as a BigInt. */
export function toBig(w: Words, i: number): bigint {
  const s = w.u32;
  const b = i << 3;
  if (w.wide[i] === 0) return BigInt(s[b]);
  if ((s[b + 2] | s[b + 3] | s[b + 4] | s[b + 5] | s[b + 6] | s[b + 7]) === 0 && s[b + 1] < 0x200000) {
    return BigInt(s[b + 1] * TWO_32 + s[b]);
  }
  const u = w.u64;
  const q = i << 2;
  return (u[q + 3] << 192n) | (u[q + 2] << 128n) | (u[q + 1] << 64n) | u[q];
}

/** Set word `i` to `v` (0 <= v < 2^256). */
export function fromBig(w: Words, i: number, v: bigint): void {
  if (v < BIG_TWO_32) {
    w.u32[i << 3] = Number(v);
    w.wide[i] = 0;
    return;
  }
  const u = w.u64;
  const q = i << 2;
  u[q] = v;
  u[q + 1] = v >> 64n;
  u[q + 2] = v >> 128n;
  u[q + 3] = v >> 192n;
  w.wide[i] = 1;
}

/** Set word `i` to `n`, an integer 0 <= n < 2^53. */
export function setNum(s: Uint32Array, wide: Uint8Array, i: number, n: number): void {
  const b = i << 3;
  if (n < TWO_32) {
    s[b] = n;
    wide[i] = 0;
    return;
  }
  s[b] = n % TWO_32;
  s[b + 1] = Math.floor(n / TWO_32);
  s[b + 2] = 0;
  s[b + 3] = 0;
  s[b + 4] = 0;
  s[b + 5] = 0;
  s[b + 6] = 0;
  s[b + 7] = 0;
  wide[i] = 1;
}

/** Make word `i` wide: its high limbs zeroed if it was narrow. */
export function widen(s: Uint32Array, wide: Uint8Array, i: number): void {
  if (wide[i] !== 0) return;
  const b = i << 3;
  s[b + 1] = 0;
  s[b + 2] = 0;
  s[b + 3] = 0;
  s[b + 4] = 0;
  s[b + 5] = 0;
  s[b + 6] = 0;
  s[b + 7] = 0;
  wide[i] = 1;
}

/** Word `i` as a number when it is below 2^32, else -1. */
export function small(s: Uint32Array, wide: Uint8Array, i: number): number {
  const b = i << 3;
  if (wide[i] === 0) return s[b];
  return (s[b + 1] | s[b + 2] | s[b + 3] | s[b + 4] | s[b + 5] | s[b + 6] | s[b + 7]) === 0 ? s[b] : -1;
}

export function isZero(s: Uint32Array, wide: Uint8Array, i: number): boolean {
  const b = i << 3;
  if (wide[i] === 0) return s[b] === 0;
  return (s[b] | s[b + 1] | s[b + 2] | s[b + 3] | s[b + 4] | s[b + 5] | s[b + 6] | s[b + 7]) === 0;
}

/** -1, 0 or 1 as word `x` is below, equal to or above word `y` (unsigned). */
export function compare(s: Uint32Array, wide: Uint8Array, x: number, y: number): number {
  if ((wide[x] | wide[y]) !== 0) {
    widen(s, wide, x);
    widen(s, wide, y);
    const bx = x << 3;
    const by = y << 3;
    for (let k = 7; k > 0; k--) {
      const p = s[bx + k];
      const q = s[by + k];
      if (p !== q) return p < q ? -1 : 1;
    }
  }
  const p = s[x << 3];
  const q = s[y << 3];
  return p === q ? 0 : p < q ? -1 : 1;
}

/** The same, reading both as two's complement signed words (a narrow word is never negative). */
export function compareSigned(s: Uint32Array, wide: Uint8Array, x: number, y: number): number {
  const sx = wide[x] === 0 ? 0 : s[(x << 3) + 7] >>> 31;
  const sy = wide[y] === 0 ? 0 : s[(y << 3) + 7] >>> 31;
  if (sx !== sy) return sx === 1 ? -1 : 1;
  return compare(s, wide, x, y);
}

/** Word `y` = word `x` - word `y` mod 2^256. */
export function sub(s: Uint32Array, wide: Uint8Array, x: number, y: number): void {
  const bx = x << 3;
  const by = y << 3;
  if ((wide[x] | wide[y]) === 0 && s[bx] >= s[by]) {
    s[by] = s[bx] - s[by];
    return;
  }
  widen(s, wide, x);
  widen(s, wide, y);
  let borrow = 0;
  for (let k = 0; k < 8; k++) {
    const r = s[bx + k] - s[by + k] - borrow;
    s[by + k] = r;
    borrow = r < 0 ? 1 : 0;
  }
}

/** Word `y` = word `x` + word `y` mod 2^256. */
export function add(s: Uint32Array, wide: Uint8Array, x: number, y: number): void {
  const bx = x << 3;
  const by = y << 3;
  if ((wide[x] | wide[y]) === 0) {
    const r = s[bx] + s[by];
    if (r < TWO_32) {
      s[by] = r;
      return;
    }
    setNum(s, wide, y, r);
    return;
  }
  widen(s, wide, x);
  widen(s, wide, y);
  let carry = 0;
  for (let k = 0; k < 8; k++) {
    const r = s[bx + k] + s[by + k] + carry;
    s[by + k] = r;
    carry = r > 0xffffffff ? 1 : 0;
  }
}

/** Word `y` = word `y` << n, for n < 256. */
export function shl(s: Uint32Array, wide: Uint8Array, y: number, n: number): void {
  widen(s, wide, y);
  const b = y << 3;
  const limbs = n >>> 5;
  const bits = n & 31;
  for (let k = 7; k >= 0; k--) {
    const from = k - limbs;
    let r = from >= 0 ? s[b + from] << bits : 0;
    if (bits !== 0 && from >= 1) r |= s[b + from - 1] >>> (32 - bits);
    s[b + k] = r;
  }
}

/** Word `y` = word `y` >> n (logical), for n < 256. */
export function shr(s: Uint32Array, wide: Uint8Array, y: number, n: number): void {
  const b = y << 3;
  if (wide[y] === 0) {
    s[b] = n < 32 ? s[b] >>> n : 0;
    return;
  }
  const limbs = n >>> 5;
  const bits = n & 31;
  for (let k = 0; k < 8; k++) {
    const from = k + limbs;
    let r = from < 8 ? s[b + from] >>> bits : 0;
    if (bits !== 0 && from + 1 < 8) r |= s[b + from + 1] << (32 - bits);
    s[b + k] = r;
  }
}

/**
 * MUL, DIV and MOD of the words at `i + 1` (top) and `i`, into `i`: on numbers when both words are
 * below 2^32 and the result is exact, else as BigInts.
 */
export function mulDivMod(w: Words, op: number, i: number): void {
  const s = w.u32;
  const wide = w.wide;
  const a = small(s, wide, i + 1);
  const b = small(s, wide, i);
  if (a >= 0 && b >= 0) {
    if (op === 0x02) {
      const p = a * b;
      if (p < TWO_53) return setNum(s, wide, i, p);
    } else return setNum(s, wide, i, b === 0 ? 0 : op === 0x04 ? Math.floor(a / b) : a % b);
  }
  const p = toBig(w, i + 1);
  const q = toBig(w, i);
  fromBig(w, i, op === 0x02 ? BigInt.asUintN(256, p * q) : q === 0n ? 0n : op === 0x04 ? p / q : p % q);
}

/**
 * Set word `i` to the `n` bytes at `start` of `bytes` read big-endian, bytes past the end reading
 * as zero (PUSH data, a short calldata word, an address). `view` views `bytes`.
 */
export function setBytes(s: Uint32Array, wide: Uint8Array, i: number, bytes: Uint8Array, view: DataView, start: number, n: number): void {
  const b = i << 3;
  let end = start + n;
  if (end > bytes.length) {
    // Past the end: byte by byte (rare: truncated PUSH data, calldata's last word).
    for (let j = 0; j < 8; j++) s[b + j] = 0;
    for (let j = 0; j < n; j++) {
      const p = end - 1 - j;
      if (p < bytes.length) s[b + (j >>> 2)] |= bytes[p] << ((j & 3) << 3);
    }
    wide[i] = 1;
    return;
  }
  if (n <= 4) {
    let v = 0;
    for (let p = start; p < end; p++) v = v * 256 + bytes[p];
    s[b] = v;
    wide[i] = 0;
    return;
  }
  let k = 0;
  for (; end - 4 >= start; end -= 4) s[b + k++] = view.getUint32(end - 4);
  if (end > start) {
    let last = 0;
    for (let p = start; p < end; p++) last = (last << 8) | bytes[p];
    s[b + k++] = last;
  }
  for (; k < 8; k++) s[b + k] = 0;
  wide[i] = (s[b + 1] | s[b + 2] | s[b + 3] | s[b + 4] | s[b + 5] | s[b + 6] | s[b + 7]) === 0 ? 0 : 1;
}

/** Word `i` = the 32 bytes at `at` of `view`, big-endian (narrow when its high limbs are zero). */
export function load(s: Uint32Array, wide: Uint8Array, i: number, view: DataView, at: number): void {
  const b = i << 3;
  let high = 0;
  for (let k = 7; k > 0; k--) high |= s[b + k] = view.getUint32(at + 28 - 4 * k);
  s[b] = view.getUint32(at + 28);
  wide[i] = high === 0 ? 0 : 1;
}

/**
 * How many words each instruction the loop may hand to ethereumjs takes off the stack (at least
 * that many: reading back more than it took is only slower). An instruction changes no word below
 * those, so after it runs only the words from there up are read back; -1 (an opcode not listed
 * here) reads back the whole stack.
 */
export const POPS: Int8Array = (() => {
  const t = new Int8Array(256).fill(-1);
  const set = (pops: number, ...ops: number[]): void => {
    for (const op of ops) t[op] = pops;
  };
  set(0, 0x00, 0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4a, 0x58, 0x59, 0x5a, 0x5b, 0x5f, 0xfe);
  set(1, 0x15, 0x19, 0x1e, 0x31, 0x35, 0x3b, 0x3f, 0x40, 0x49, 0x50, 0x51, 0x54, 0x56, 0x5c, 0xff);
  set(2, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a, 0x1b, 0x1c, 0x1d);
  set(2, 0x20, 0x52, 0x53, 0x55, 0x57, 0x5d, 0xf3, 0xfd);
  set(3, 0x08, 0x09, 0x37, 0x39, 0x3e, 0x5e, 0xf0);
  set(4, 0x3c, 0xf5);
  set(6, 0xf4, 0xfa);
  set(7, 0xf1, 0xf2);
  for (let n = 0; n < 32; n++) t[0x60 + n] = 0; // PUSH1..PUSH32
  for (let n = 1; n <= 16; n++) {
    t[0x7f + n] = n; // DUPn
    t[0x8f + n] = n + 1; // SWAPn
  }
  for (let n = 0; n <= 4; n++) t[0xa0 + n] = n + 2; // LOG0..LOG4
  return t;
})();

/** Set word `i` to a 20-byte address. */
export function setAddress(s: Uint32Array, wide: Uint8Array, i: number, a: Uint8Array): void {
  const b = i << 3;
  wide[i] = 1;
  for (let k = 0; k < 5; k++) {
    const p = 16 - 4 * k;
    s[b + k] = (a[p] << 24) | (a[p + 1] << 16) | (a[p + 2] << 8) | a[p + 3];
  }
  s[b + 5] = 0;
  s[b + 6] = 0;
  s[b + 7] = 0;
}
