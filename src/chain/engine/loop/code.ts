/**
 * What the fast loop needs to know of a code array, worked out once per array: which offsets are
 * valid jump destinations. Code arrays are never modified (the
 * state manager hands out the same array for the same code), so a weak map keeps the result for as
 * long as the code is alive.
 */

export interface CodeInfo {
  /** 1 at each JUMPDEST that is an instruction (not inside PUSH data). */
  readonly jumpdest: Uint8Array;
}

const infos = new WeakMap<Uint8Array, CodeInfo>();

const JUMPDEST = 0x5b;
const PUSH1 = 0x60;
const PUSH32 = 0x7f;

export function codeInfo(code: Uint8Array): CodeInfo {
  let info = infos.get(code);
  if (info === undefined) {
    const jumpdest = new Uint8Array(code.length);
    for (let pc = 0; pc < code.length; pc++) {
      const op = code[pc];
      if (op === JUMPDEST) jumpdest[pc] = 1;
      else if (op >= PUSH1 && op <= PUSH32) pc += op - PUSH1 + 1;
    }
    info = { jumpdest };
    infos.set(code, info);
  }
  return info;
}
