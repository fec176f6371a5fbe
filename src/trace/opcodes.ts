/**
 * Opcode names as geth prints them (`vm.OpCode.String()`), and the stack arity geth uses to
 * phrase stack underflow / overflow errors.
 */

const NAMES: string[] = new Array(256);
/** Items each opcode pops and pushes ([pops, pushes]); undefined for undefined opcodes. */
const ARITY: Array<[number, number] | undefined> = new Array(256);

function def(code: number, name: string, pops: number, pushes: number): void {
  NAMES[code] = name;
  ARITY[code] = [pops, pushes];
}

def(0x00, 'STOP', 0, 0);
def(0x01, 'ADD', 2, 1);
def(0x02, 'MUL', 2, 1);
def(0x03, 'SUB', 2, 1);
def(0x04, 'DIV', 2, 1);
def(0x05, 'SDIV', 2, 1);
def(0x06, 'MOD', 2, 1);
def(0x07, 'SMOD', 2, 1);
def(0x08, 'ADDMOD', 3, 1);
def(0x09, 'MULMOD', 3, 1);
def(0x0a, 'EXP', 2, 1);
def(0x0b, 'SIGNEXTEND', 2, 1);
def(0x10, 'LT', 2, 1);
def(0x11, 'GT', 2, 1);
def(0x12, 'SLT', 2, 1);
def(0x13, 'SGT', 2, 1);
def(0x14, 'EQ', 2, 1);
def(0x15, 'ISZERO', 1, 1);
def(0x16, 'AND', 2, 1);
def(0x17, 'OR', 2, 1);
def(0x18, 'XOR', 2, 1);
def(0x19, 'NOT', 1, 1);
def(0x1a, 'BYTE', 2, 1);
def(0x1b, 'SHL', 2, 1);
def(0x1c, 'SHR', 2, 1);
def(0x1d, 'SAR', 2, 1);
def(0x1e, 'CLZ', 1, 1);
def(0x20, 'KECCAK256', 2, 1);
def(0x30, 'ADDRESS', 0, 1);
def(0x31, 'BALANCE', 1, 1);
def(0x32, 'ORIGIN', 0, 1);
def(0x33, 'CALLER', 0, 1);
def(0x34, 'CALLVALUE', 0, 1);
def(0x35, 'CALLDATALOAD', 1, 1);
def(0x36, 'CALLDATASIZE', 0, 1);
def(0x37, 'CALLDATACOPY', 3, 0);
def(0x38, 'CODESIZE', 0, 1);
def(0x39, 'CODECOPY', 3, 0);
def(0x3a, 'GASPRICE', 0, 1);
def(0x3b, 'EXTCODESIZE', 1, 1);
def(0x3c, 'EXTCODECOPY', 4, 0);
def(0x3d, 'RETURNDATASIZE', 0, 1);
def(0x3e, 'RETURNDATACOPY', 3, 0);
def(0x3f, 'EXTCODEHASH', 1, 1);
def(0x40, 'BLOCKHASH', 1, 1);
def(0x41, 'COINBASE', 0, 1);
def(0x42, 'TIMESTAMP', 0, 1);
def(0x43, 'NUMBER', 0, 1);
def(0x44, 'DIFFICULTY', 0, 1);
def(0x45, 'GASLIMIT', 0, 1);
def(0x46, 'CHAINID', 0, 1);
def(0x47, 'SELFBALANCE', 0, 1);
def(0x48, 'BASEFEE', 0, 1);
def(0x49, 'BLOBHASH', 1, 1);
def(0x4a, 'BLOBBASEFEE', 0, 1);
def(0x50, 'POP', 1, 0);
def(0x51, 'MLOAD', 1, 1);
def(0x52, 'MSTORE', 2, 0);
def(0x53, 'MSTORE8', 2, 0);
def(0x54, 'SLOAD', 1, 1);
def(0x55, 'SSTORE', 2, 0);
def(0x56, 'JUMP', 1, 0);
def(0x57, 'JUMPI', 2, 0);
def(0x58, 'PC', 0, 1);
def(0x59, 'MSIZE', 0, 1);
def(0x5a, 'GAS', 0, 1);
def(0x5b, 'JUMPDEST', 0, 0);
def(0x5c, 'TLOAD', 1, 1);
def(0x5d, 'TSTORE', 2, 0);
def(0x5e, 'MCOPY', 3, 0);
def(0x5f, 'PUSH0', 0, 1);
for (let i = 1; i <= 32; i++) def(0x5f + i, `PUSH${i}`, 0, 1);
for (let i = 1; i <= 16; i++) def(0x7f + i, `DUP${i}`, i, i + 1);
for (let i = 1; i <= 16; i++) def(0x8f + i, `SWAP${i}`, i + 1, i + 1);
for (let i = 0; i <= 4; i++) def(0xa0 + i, `LOG${i}`, 2 + i, 0);
def(0xf0, 'CREATE', 3, 1);
def(0xf1, 'CALL', 7, 1);
def(0xf2, 'CALLCODE', 7, 1);
def(0xf3, 'RETURN', 2, 0);
def(0xf4, 'DELEGATECALL', 6, 1);
def(0xf5, 'CREATE2', 4, 1);
def(0xfa, 'STATICCALL', 6, 1);
def(0xfd, 'REVERT', 2, 0);
def(0xfe, 'INVALID', 0, 0);
def(0xff, 'SELFDESTRUCT', 1, 0);

for (let i = 0; i < 256; i++) {
  if (NAMES[i] === undefined) NAMES[i] = `opcode 0x${i.toString(16)} not defined`;
}

/** geth's name of an opcode. */
export function opName(code: number): string {
  return NAMES[code];
}

export const STACK_LIMIT = 1024;

/** geth's `ErrStackUnderflow` text for `code` run on a stack of `stackLen` items. */
export function stackUnderflowMessage(code: number, stackLen: number): string {
  const pops = ARITY[code]?.[0] ?? 0;
  return `stack underflow (${stackLen} <=> ${pops})`;
}

/** geth's `ErrStackOverflow` text for `code` run on a stack of `stackLen` items. */
export function stackOverflowMessage(code: number, stackLen: number): string {
  const [pops, pushes] = ARITY[code] ?? [0, 0];
  return `stack limit reached ${stackLen} (${STACK_LIMIT + pops - pushes})`;
}

export const OP = {
  STOP: 0x00,
  KECCAK256: 0x20,
  BALANCE: 0x31,
  EXTCODESIZE: 0x3b,
  EXTCODECOPY: 0x3c,
  EXTCODEHASH: 0x3f,
  SLOAD: 0x54,
  SSTORE: 0x55,
  LOG0: 0xa0,
  LOG4: 0xa4,
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  REVERT: 0xfd,
  INVALID: 0xfe,
  SELFDESTRUCT: 0xff,
} as const;

/** Opcodes after which a frame has halted on its own (no implicit STOP follows). */
export function isHalting(code: number): boolean {
  return code === OP.STOP || code === OP.RETURN || code === OP.REVERT || code === OP.SELFDESTRUCT || code === OP.INVALID;
}

export function isCallOp(code: number): boolean {
  return code === OP.CALL || code === OP.CALLCODE || code === OP.DELEGATECALL || code === OP.STATICCALL;
}

export function isCreateOp(code: number): boolean {
  return code === OP.CREATE || code === OP.CREATE2;
}

export type FrameType = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT';

export function frameTypeOf(code: number): FrameType | undefined {
  switch (code) {
    case OP.CALL:
      return 'CALL';
    case OP.CALLCODE:
      return 'CALLCODE';
    case OP.DELEGATECALL:
      return 'DELEGATECALL';
    case OP.STATICCALL:
      return 'STATICCALL';
    case OP.CREATE:
      return 'CREATE';
    case OP.CREATE2:
      return 'CREATE2';
    default:
      return undefined;
  }
}

/** How many stack items `code` pushes (0 for an undefined opcode). */
export function pushCount(code: number): number {
  return ARITY[code]?.[1] ?? 0;
}
