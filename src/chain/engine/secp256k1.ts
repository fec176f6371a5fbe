/**
 * secp256k1 for the node: public-key recovery (transaction senders, the ecrecover precompile) and
 * signing with dev keys, plugged into Common's `customCrypto` with @ethereumjs's contracts for
 * `ecrecover` and `ecsign`. Both run libsecp256k1:
 * - as a native addon (the `secp256k1` package's prebuilt binding) where it loads: measured here
 *   at ~46 µs a recovery and ~30 µs a signature;
 * - otherwise compiled to WebAssembly (tiny-secp256k1, ~210 µs a recovery), with noble's signing
 *   (~330 µs), which ethereumjs uses by default.
 * The same library gives the same answers either way: RFC 6979 signatures with low s, and a
 * refusal for any signature it cannot recover from. Loaded on first use, not at boot.
 */
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { calculateSigRecovery, concatBytes, EthereumJSErrorWithoutCode, setLengthLeft } from '@ethereumjs/util';
import { createRequire } from 'node:module';

export interface Secp256k1 {
  readonly name: 'native' | 'wasm';
  /** The 65-byte uncompressed public key, or undefined when `sig` (r ‖ s) recovers to none. */
  recover(hash: Uint8Array, sig: Uint8Array, recid: 0 | 1): Uint8Array | undefined;
  /** A deterministic (RFC 6979) signature as recovery id ‖ r ‖ s. */
  sign(hash: Uint8Array, key: Uint8Array): Uint8Array;
}

interface NativeAddon {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
}

interface WasmLibrary {
  recover(hash: Uint8Array, sig: Uint8Array, recid: 0 | 1, compressed: boolean): Uint8Array | null;
}

const load = createRequire(import.meta.url);

/** libsecp256k1 as a native addon; throws when no binding loads on this machine. */
export function nativeSecp256k1(): Secp256k1 {
  const addon = load('secp256k1/bindings') as NativeAddon;
  return {
    name: 'native',
    recover(hash, sig, recid) {
      try {
        return addon.ecdsaRecover(sig, recid, hash, false);
      } catch {
        return undefined;
      }
    },
    sign(hash, key) {
      const { signature, recid } = addon.ecdsaSign(hash, key);
      const out = new Uint8Array(65);
      out[0] = recid;
      out.set(signature, 1);
      return out;
    },
  };
}

/** libsecp256k1 compiled to WebAssembly for recovery, noble for signing. */
export function wasmSecp256k1(): Secp256k1 {
  const lib = load('tiny-secp256k1') as WasmLibrary;
  return {
    name: 'wasm',
    recover(hash, sig, recid) {
      try {
        return lib.recover(hash, sig, recid, false) ?? undefined;
      } catch {
        return undefined;
      }
    },
    sign: (hash, key) => noble.sign(hash, key, { prehash: false, format: 'recovered', extraEntropy: false }),
  };
}

let chosen: Secp256k1 | undefined;

/** The backend the node uses: native where its binding loads, else WebAssembly. */
export function secp256k1(): Secp256k1 {
  if (chosen === undefined) {
    try {
      chosen = nativeSecp256k1();
    } catch {
      chosen = wasmSecp256k1();
    }
  }
  return chosen;
}

/** @ethereumjs/util's `ecrecover` contract: the 64-byte public key without its prefix; throws on a bad signature. */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = calculateSigRecovery(v, chainId);
  if (recovery !== 0n && recovery !== 1n) throw EthereumJSErrorWithoutCode('Invalid signature v value');
  if (r.length > 32 || s.length > 32) throw EthereumJSErrorWithoutCode('Invalid signature length');
  const key = secp256k1().recover(msgHash, concatBytes(setLengthLeft(r, 32), setLengthLeft(s, 32)), Number(recovery) as 0 | 1);
  if (!key) throw EthereumJSErrorWithoutCode('Invalid signature: public key could not be recovered');
  return key.subarray(1);
}

/**
 * Common's `ecsign` (noble's `sign` contract as ethereumjs calls it: a prehashed message, the
 * 'recovered' format). Extra entropy, which ethereumjs passes only when asked to, goes to noble.
 */
export const ecsign = ((hash: Uint8Array, key: Uint8Array, opts?: { extraEntropy?: unknown; format?: string; prehash?: boolean }) => {
  if ((opts?.extraEntropy ?? false) !== false || opts?.format !== 'recovered' || opts.prehash !== false) return noble.sign(hash, key, opts as Parameters<typeof noble.sign>[2]);
  return secp256k1().sign(hash, key);
}) as typeof noble.sign;
