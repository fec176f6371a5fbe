/** Wire encodings shared by the formatters. */
import { bytesToHex } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';

export type Hex = `0x${string}`;

/** QUANTITY: minimal hex, "0x0" for zero. */
export const qty = (n: bigint | number): Hex => `0x${n.toString(16)}`;
/** DATA: bytes as 0x-hex. */
export const hex = (b: Uint8Array): Hex => bytesToHex(b) as Hex;
export const addr = (a: Address): Hex => a.toString() as Hex;

/** A result already serialized to JSON text; the dispatcher embeds it as is. */
export class RawJson {
  constructor(readonly json: string) {}
}
