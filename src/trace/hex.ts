/** Hex encodings used by the tracers (geth's hexutil and `%x` forms). */

const BYTE_HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Lowercase hex of `bytes[start, end)`, no prefix. Longer runs go through Node's native encoder,
 * which gives one flat string: joining byte pairs builds a rope of one node per byte (a memory
 * word's hex then takes about 1 KB of heap, and a struct log with memory holds millions).
 */
export function hexRaw(bytes: Uint8Array, start = 0, end = bytes.length): string {
  if (end - start > 4) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex', start, end);
  let out = '';
  for (let i = start; i < end; i++) out += BYTE_HEX[bytes[i]];
  return out;
}

/** hexutil.Bytes: `0x`-prefixed lowercase hex (`0x` for empty). */
export function hexBytes(bytes: Uint8Array): string {
  return '0x' + hexRaw(bytes);
}

/** hexutil.Big / Uint64: minimal `0x` quantity. */
export function hexQuantity(value: bigint | number): string {
  return '0x' + value.toString(16);
}

const ZERO64 = '0'.repeat(64);

/** A 256-bit word as 64 hex chars, no prefix (geth's `%x` of a common.Hash). */
export function word64(value: bigint): string {
  const s = value.toString(16);
  return s.length >= 64 ? s : ZERO64.slice(s.length) + s;
}

/** A common.Hash as JSON: `0x` + 64 hex chars. */
export function hashHex(value: bigint): string {
  return '0x' + word64(value);
}

/** Big-endian bytes (any length up to 32) as a 256-bit word. */
export function bytesToWord(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = 0; i < bytes.length; i++) v = (v << 8n) | BigInt(bytes[i]);
  return v;
}

/** Low 20 bytes of a stack word as a lowercase 0x address. */
export function wordToAddressHex(value: bigint): string {
  const s = (value & ((1n << 160n) - 1n)).toString(16);
  return '0x' + s.padStart(40, '0');
}

/** Copy `size` bytes of `memory` from `offset`, zero-padded past its end (geth's GetMemoryCopyPadded). */
export function memorySlice(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  if (size === 0n) return new Uint8Array(0);
  // Sizes that large cannot have been paid for; cap them to keep the tracer safe.
  const n = size > 0x1000000n ? 0x1000000 : Number(size);
  const out = new Uint8Array(n);
  if (offset < BigInt(memory.length)) {
    const o = Number(offset);
    out.set(memory.subarray(o, Math.min(memory.length, o + n)));
  }
  return out;
}

/** Stable object with keys inserted in sorted order (Go marshals maps with sorted keys). */
export function sortedObject<V>(entries: Iterable<[string, V]>): Record<string, V> {
  const list = Array.from(entries);
  list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Record<string, V> = {};
  for (const [k, v] of list) out[k] = v;
  return out;
}
