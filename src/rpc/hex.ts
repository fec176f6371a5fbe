/** Hex helpers shared by the codecs and formatters. Byte work goes through @ethereumjs/util. */
import { bytesToHex, hexToBytes } from '@ethereumjs/util';

export { bytesToHex, hexToBytes };

/** QUANTITY encoding: minimal hex, "0x0" for zero. */
export function toQuantity(value: bigint | number): string {
  return '0x' + value.toString(16);
}

/** Hex of a bigint left-padded to `bytes` bytes. */
export function toPaddedHex(value: bigint, bytes: number): string {
  return '0x' + value.toString(16).padStart(bytes * 2, '0');
}
