/** Revert data decoding: Error(string) and Panic(uint256), in geth's words. */
import { bytesToBigInt, bytesToUtf8 } from '@ethereumjs/util';

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

const PANIC_REASONS: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

/** The human reason in revert data, or undefined for custom errors and empty data. */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const selector = Buffer.from(data.subarray(0, 4)).toString('hex');
  if (selector === ERROR_SELECTOR && data.length >= 68) {
    const offset = Number(bytesToBigInt(data.subarray(4, 36)));
    const start = 4 + offset;
    if (start + 32 > data.length) return undefined;
    const length = Number(bytesToBigInt(data.subarray(start, start + 32)));
    if (start + 32 + length > data.length) return undefined;
    return bytesToUtf8(data.subarray(start + 32, start + 32 + length));
  }
  if (selector === PANIC_SELECTOR && data.length === 36) {
    const code = Number(bytesToBigInt(data.subarray(4, 36)));
    return PANIC_REASONS[code] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}

/**
 * The JSON-RPC message of a revert: `execution reverted: <reason>` for Error(string), and
 * `execution reverted` alone for panics, custom errors and empty data, which clients decode from
 * the raw bytes in `error.data` (viem does exactly that for a -32000 "execution reverted").
 */
export function revertMessage(data: Uint8Array): string {
  const isErrorString = data.length >= 4 && Buffer.from(data.subarray(0, 4)).toString('hex') === ERROR_SELECTOR;
  const reason = isErrorString ? decodeRevertReason(data) : undefined;
  return reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`;
}
