/**
 * The fast loop's two-operand instructions that run.ts does not write out itself (it does ADD, SUB,
 * LT, GT and EQ): word `x` is the top of the stack, `y` the one below it and the result.
 */
import { compareSigned, mulDivMod, setNum, shl, shr, small, widen, type Words } from './words.js';

export function binary(w: Words, op: number, x: number, y: number): void {
  const s = w.u32;
  const wd = w.wide;
  const bx = x << 3;
  const by = y << 3;
  switch (op) {
    case 0x02: // MUL
    case 0x04: // DIV
    case 0x06: // MOD
      mulDivMod(w, op, y);
      return;
    case 0x12: // SLT
    case 0x13: // SGT
      setNum(s, wd, y, compareSigned(s, wd, x, y) === (op === 0x12 ? -1 : 1) ? 1 : 0);
      return;
    case 0x16: // AND: narrow when either is
      if (wd[x] === 0 || wd[y] === 0) {
        s[by] &= s[bx];
        wd[y] = 0;
      } else for (let k = 0; k < 8; k++) s[by + k] &= s[bx + k];
      return;
    case 0x17: // OR
    case 0x18: // XOR
      if ((wd[x] | wd[y]) === 0) s[by] = op === 0x17 ? s[by] | s[bx] : s[by] ^ s[bx];
      else {
        widen(s, wd, x);
        widen(s, wd, y);
        if (op === 0x17) for (let k = 0; k < 8; k++) s[by + k] |= s[bx + k];
        else for (let k = 0; k < 8; k++) s[by + k] ^= s[bx + k];
      }
      return;
    case 0x1a: {
      // BYTE: byte `i` counted from the most significant end
      const i = small(s, wd, x);
      widen(s, wd, y);
      setNum(s, wd, y, i < 0 || i >= 32 ? 0 : (s[by + ((31 - i) >>> 2)] >>> (((31 - i) & 3) << 3)) & 0xff);
      return;
    }
    case 0x1b: // SHL
    case 0x1c: {
      // SHR
      const n = small(s, wd, x);
      if (n < 0 || n >= 256) setNum(s, wd, y, 0);
      else if (op === 0x1b) shl(s, wd, y, n);
      else shr(s, wd, y, n);
      return;
    }
    default:
      throw new Error(`opcode 0x${op.toString(16)} is marked inline but has no implementation`);
  }
}
