/**
 * KZG for the tests' clients: the native library the node uses (@crate-crypto/node-eth-kzg, the
 * mainnet trusted setup built in), shaped as viem's and ethers' `kzg` options, memoized by blob,
 * and blob transactions in their network form built field by field, so tests can also build bad ones.
 */
import { RLP } from '@ethereumjs/rlp';
import { SigningKey, keccak256, getBytes, hexlify } from 'ethers';
import { createHash } from 'node:crypto';
import { nativeKzg } from '../../src/chain/engine/kzg.js';

/** The native KZG context, the one the nodes the tests start in-process use (built once: a second or more). */
export const kzgLib = nativeKzg;

const memo = new Map<string, string>();
function once(key: string, f: () => string): string {
  let v = memo.get(key);
  if (v === undefined) memo.set(key, (v = f()));
  return v;
}

const hexOf = (b: Uint8Array | string): string => (typeof b === 'string' ? b.toLowerCase() : hexlify(b));

export const commitmentOf = (blob: string): string => once(`c${blob}`, () => hexlify(kzgLib().blobToKzgCommitment(getBytes(blob))));
export const proofOf = (blob: string): string => once(`p${blob}`, () => hexlify(kzgLib().computeBlobKzgProof(getBytes(blob), getBytes(commitmentOf(blob)))));
const cellMemo = new Map<string, string[]>();
export function cellProofsOf(blob: string): string[] {
  let v = cellMemo.get(blob);
  if (!v) cellMemo.set(blob, (v = kzgLib().computeCellsAndKzgProofs(getBytes(blob)).proofs.map((p) => hexlify(p))));
  return v;
}
/** A KZG opening of `blob` at `z`: [proof, y]. */
export function openingOf(blob: string, z: string): [string, string] {
  const [proof, y] = kzgLib().computeKzgProof(getBytes(blob), getBytes(z));
  return [hexlify(proof!), hexlify(y!)];
}

/** The `kzg` option of viem and ethers (blobToKzgCommitment, computeBlobKzgProof over bytes). */
export const clientKzg = {
  blobToKzgCommitment: (blob: Uint8Array): Uint8Array => getBytes(commitmentOf(hexOf(blob))),
  computeBlobKzgProof: (blob: Uint8Array, commitment: Uint8Array): Uint8Array => {
    const b = hexOf(blob);
    if (commitmentOf(b) !== hexOf(commitment)) return kzgLib().computeBlobKzgProof(getBytes(b), commitment);
    return getBytes(proofOf(b));
  },
};

export function versionedHashOf(commitment: string): string {
  const h = createHash('sha256').update(getBytes(commitment)).digest();
  h[0] = 1;
  return hexlify(h);
}

export interface BlobTxFields {
  chainId: bigint;
  nonce: bigint;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  gas: bigint;
  /** null: a creation (which no client can build: for refusals). */
  to: string | null;
  value?: bigint;
  data?: string;
  maxFeePerBlobGas: bigint;
  blobVersionedHashes: string[];
}

const q = (n: bigint): Uint8Array => (n === 0n ? new Uint8Array() : getBytes('0x' + n.toString(16).padStart(Math.ceil(n.toString(16).length / 2) * 2, '0')));

/** The signed canonical fields of a type-3 transaction (what its hash covers). */
export function signBlobTx(f: BlobTxFields, key: string): { fields: Uint8Array[] | unknown[]; hash: string } {
  const body: unknown[] = [
    q(f.chainId), q(f.nonce), q(f.maxPriorityFeePerGas), q(f.maxFeePerGas), q(f.gas),
    f.to === null ? new Uint8Array() : getBytes(f.to), q(f.value ?? 0n), getBytes(f.data ?? '0x'), [],
    q(f.maxFeePerBlobGas), f.blobVersionedHashes.map((h) => getBytes(h)),
  ];
  const digest = keccak256(concat(Uint8Array.of(3), RLP.encode(body as never)));
  const sig = new SigningKey(key).sign(digest);
  const fields = [...body, q(BigInt(sig.yParity)), q(BigInt(sig.r)), q(BigInt(sig.s))];
  return { fields, hash: keccak256(concat(Uint8Array.of(3), RLP.encode(fields as never))) };
}

/** A network-form blob transaction: version 0 `[tx, blobs, commitments, proofs]`, version 1 with the version byte after the transaction. */
export function wrap(fields: unknown[], version: 0 | 1, blobs: string[], commitments: string[], proofs: string[]): string {
  const side = [blobs.map((b) => getBytes(b)), commitments.map((c) => getBytes(c)), proofs.map((p) => getBytes(p))];
  const outer = version === 0 ? [fields, ...side] : [fields, Uint8Array.of(1), ...side];
  return hexlify(concat(Uint8Array.of(3), RLP.encode(outer as never)));
}

/** The canonical form (no sidecar). */
export function canonical(fields: unknown[]): string {
  return hexlify(concat(Uint8Array.of(3), RLP.encode(fields as never)));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** A blob of made-up bytes (each 32-byte field element begins with a zero byte, so it is below the modulus), one per seed. */
export function blobOf(seed: number): string {
  const out = new Uint8Array(131072);
  for (let i = 0; i < 4096; i++) for (let j = 1; j < 32; j++) out[i * 32 + j] = (i * 7 + j * 13 + seed * 101) & 0xff;
  return hexlify(out);
}
