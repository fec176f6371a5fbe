/**
 * Keccak-256 for hashing long chains of block headers (runs of mass-mined empty blocks).
 *
 * A header is about 600 bytes, five Keccak-f permutations. The pure-JS keccak hashes one in about
 * 25 µs; the WebAssembly one from hash-wasm in about 2.4 µs, which is what makes a million-block
 * hash chain take seconds instead of half a minute. It loads asynchronously, so callers await
 * `readyHeaderKeccak()` once before building runs; until then (and if it cannot load) the JS
 * implementation answers, with the same results.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { IHasher } from 'hash-wasm';
import keccakOnly from 'hash-wasm/dist/keccak.umd.min.js';

let hasher: IHasher | undefined;
let loading: Promise<void> | undefined;

/** Load the WebAssembly keccak (once; later calls return at once). */
export function readyHeaderKeccak(): Promise<void> {
  loading ??= keccakOnly.createKeccak(256).then(
    (h) => {
      hasher = h;
    },
    () => {
      // Without WebAssembly the JS keccak keeps working, only slower.
    },
  );
  return loading;
}

/** keccak256(bytes); the caller may reuse `bytes` afterwards. */
export function headerKeccak(bytes: Uint8Array): Uint8Array {
  const h = hasher;
  if (h === undefined) return keccak_256(bytes);
  h.init();
  h.update(bytes);
  return h.digest('binary');
}
