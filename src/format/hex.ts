/** Wire encodings shared by the formatters. */
import { bytesToHex } from '@ethereumjs/util';
import type { Address } from '@ethereumjs/util';

export type Hex = `0x${string}`;

/** QUANTITY: minimal hex, "0x0" for zero. */
export const qty = (n: bigint | number): Hex => `0x${n.toString(16)}`;
/** DATA: bytes as 0x-hex. */
export const hex = (b: Uint8Array): Hex => bytesToHex(b) as Hex;
export const addr = (a: Address): Hex => a.toString() as Hex;

/**
 * A result as JSON text; the dispatcher embeds it as is. `value`, when given, is the same answer
 * as a value: in-process callers get a copy of it rather than a parse of the text, and the text is
 * written from it only when a transport first asks for it.
 */
export class RawJson {
  private text: string | undefined;

  constructor(json: string | undefined, readonly value?: unknown) {
    this.text = json;
  }

  get json(): string {
    return (this.text ??= JSON.stringify(this.value));
  }
}

/**
 * `format` of a chain object that never changes (a mined block, transaction or receipt), built
 * and written to JSON once: the answers for the last `keep` objects asked about are kept, so a
 * client polling the same block or receipt gets the same text without it being built and
 * serialized again.
 */
export function jsonOnce<K extends object>(format: (k: K) => unknown, keep = 256): (k: K) => RawJson {
  const recent = new Map<K, RawJson>();
  return (k) => {
    let out = recent.get(k);
    if (out === undefined) {
      out = new RawJson(undefined, format(k));
      if (recent.size >= keep) recent.delete(recent.keys().next().value!);
      recent.set(k, out);
    }
    return out;
  };
}
