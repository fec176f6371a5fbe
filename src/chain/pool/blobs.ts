/**
 * Blob transactions (EIP-4844) in their network form: the wrapper that carries the blobs, their
 * KZG commitments and proofs beside the signed transaction, version 0 (one proof per blob, Cancun
 * and Prague) or version 1 (128 cell proofs per blob, EIP-7594, Osaka on). The checks are geth's
 * (core/txpool/validation.go), in its order and words. KZG is the engine's, loaded on first use.
 */
import { createHash } from 'node:crypto';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, concatBytes } from '@ethereumjs/util';
import { nativeKzg } from '../engine/kzg.js';
import { ChainError } from '../core/errors.js';
import type { BlobSidecar } from '../core/types.js';

export type { BlobSidecar } from '../core/types.js';

/** Bytes in one blob (4096 field elements of 32 bytes). */
export const BLOB_BYTES = 131072;
/** Cell proofs per blob in a version-1 wrapper (EIP-7594). */
export const CELLS_PER_BLOB = 128;

/** The versioned hash of a KZG commitment: 0x01 then the last 31 bytes of its SHA-256. */
export function versionedHash(commitment: Uint8Array): Uint8Array {
  const h = createHash('sha256').update(commitment).digest();
  h[0] = 0x01;
  return new Uint8Array(h);
}

/** The wrapper version the fork of `common` takes: 1 from Osaka (EIP-7594), 0 before. */
export function sidecarVersion(common: Common): 0 | 1 {
  return common.isActivatedEIP(7594) ? 1 : 0;
}

/** The most blobs one block may carry under `common`'s schedule. */
export function maxBlobsPerBlock(common: Common): number {
  return Number(common.param('maxBlobGasPerBlock') / common.param('blobGasPerBlob'));
}

/** The most blobs one transaction may carry: 6 from Osaka (EIP-7594), the block's maximum before. */
export function maxBlobsPerTx(common: Common): number {
  return common.isActivatedEIP(7594) ? Number(common.param('maxBlobsPerTx')) : maxBlobsPerBlock(common);
}

/** Blob gas a transaction with `count` blobs uses. */
export function blobGasOf(common: Common, count: number): bigint {
  return common.param('blobGasPerBlob') * BigInt(count);
}

/**
 * Split a raw type-3 transaction: the canonical form (what is signed, hashed and mined) and the
 * sidecar when it came in the network form. Fields of the canonical form the wrapper checks need
 * are read here, before the transaction is built, as geth's decoder and pool read them.
 */
export interface SplitBlobTx {
  canonical: Uint8Array;
  sidecar?: BlobSidecar;
  /** The transaction's versioned hashes and blob fee cap, read from its fields. */
  hashes: Uint8Array[];
  maxFeePerBlobGas: bigint;
}

export function splitBlobTx(raw: Uint8Array): SplitBlobTx {
  let outer: unknown;
  try {
    outer = RLP.decode(raw.subarray(1));
  } catch {
    throw new ChainError('invalid transaction: rlp: not a transaction');
  }
  if (!Array.isArray(outer) || outer.length === 0) throw new ChainError('rlp: expected input list for types.BlobTx');
  if (!Array.isArray(outer[0])) {
    checkTo(outer);
    return { canonical: raw, ...blobFields(outer) };
  }
  const inner = outer[0] as unknown[];
  checkTo(inner);
  let version: number;
  let rest: unknown[];
  if (outer.length === 4) {
    version = 0;
    rest = outer.slice(1);
  } else if (outer.length === 5 && outer[1] instanceof Uint8Array) {
    version = Number(bytesToBigInt(outer[1]));
    rest = outer.slice(2);
  } else {
    throw new ChainError('rlp: too few elements for types.blobTxWithBlobs');
  }
  const [blobs, commitments, proofs] = rest.map((list, i) => byteList(list, [BLOB_BYTES, 48, 48][i], ['Blobs', 'Commitments', 'Proofs'][i]));
  return { canonical: concatBytes(new Uint8Array([3]), RLP.encode(inner as never)), sidecar: { version, blobs, commitments, proofs }, ...blobFields(inner) };
}

/** maxFeePerBlobGas and blobVersionedHashes, fields 9 and 10 of a blob transaction (checked again when it is built). */
function blobFields(fields: unknown[]): { hashes: Uint8Array[]; maxFeePerBlobGas: bigint } {
  const fee = fields[9];
  const hashes = fields[10];
  if (!(fee instanceof Uint8Array) || !Array.isArray(hashes) || !hashes.every((h) => h instanceof Uint8Array && h.length === 32)) {
    throw new ChainError('invalid transaction: rlp: not a blob transaction');
  }
  return { hashes: hashes as Uint8Array[], maxFeePerBlobGas: bytesToBigInt(fee) };
}

/** A blob transaction cannot create a contract: geth's decoder refuses an empty `to`. */
function checkTo(fields: unknown[]): void {
  const to = fields[5];
  if (to instanceof Uint8Array && to.length === 0) throw new ChainError('rlp: input string too short for common.Address, decoding into (types.BlobTx).To');
}

function byteList(list: unknown, size: number, what: string): Uint8Array[] {
  if (!Array.isArray(list)) throw new ChainError(`rlp: expected input list for []kzg4844.${what.slice(0, -1)}`);
  return list.map((item) => {
    if (!(item instanceof Uint8Array) || item.length !== size) throw new ChainError(`rlp: invalid ${what.toLowerCase()} length, want ${size} bytes`);
    return item;
  });
}

/**
 * geth's validateBlobTx: the sidecar is there and of the fork's version, the blob fee cap at least
 * 1 wei, one blob at least and no more than the fork allows, as many blobs and commitments as
 * versioned hashes, every commitment hashing to its versioned hash, and the proofs verifying.
 *
 * With `upgrade` (a transaction sent to eth_sendRawTransaction), a version-0 sidecar at Osaka and
 * later is taken as geth's eth_sendRawTransaction takes it: its blob proofs are verified and it is
 * converted to version 1, its 128 cell proofs per blob computed. Returns the sidecar to keep.
 */
export function checkBlobSidecar(common: Common, hashes: readonly Uint8Array[], maxFeePerBlobGas: bigint, sidecar: BlobSidecar | undefined, upgrade = false): BlobSidecar {
  if (sidecar === undefined) throw new ChainError('missing sidecar in blob transaction');
  const want = sidecarVersion(common);
  const converting = upgrade && sidecar.version === 0 && want === 1;
  if (sidecar.version !== want && !converting) throw new ChainError(`unexpected sidecar version, want: ${want}, got: ${sidecar.version}`);
  if (maxFeePerBlobGas < 1n) throw new ChainError(`transaction gas price below minimum: blob fee cap ${maxFeePerBlobGas}, minimum needed 1`);
  if (hashes.length === 0) throw new ChainError('blobless blob transaction');
  const max = maxBlobsPerTx(common);
  if (hashes.length > max) throw new ChainError(`too many blobs in transaction: have ${hashes.length}, permitted ${max}`);
  if (sidecar.blobs.length !== hashes.length) throw new ChainError(`invalid number of ${sidecar.blobs.length} blobs compared to ${hashes.length} blob hashes`);
  if (sidecar.commitments.length !== hashes.length) {
    throw new ChainError(`invalid number of ${sidecar.commitments.length} blob commitments compared to ${hashes.length} blob hashes`);
  }
  checkHashes(hashes, sidecar.commitments.map(versionedHash));
  const proofsWanted = sidecar.version === 1 ? hashes.length * CELLS_PER_BLOB : hashes.length;
  if (sidecar.proofs.length !== proofsWanted) throw new ChainError(`invalid number of ${sidecar.proofs.length} blob proofs expected ${proofsWanted}`);
  verifyProofs(sidecar);
  return converting ? { version: 1, blobs: sidecar.blobs, commitments: sidecar.commitments, proofs: sidecar.blobs.flatMap(cellProofs) } : sidecar;
}

/** The 128 cell proofs of a blob (EIP-7594). */
function cellProofs(blob: Uint8Array): Uint8Array[] {
  try {
    return nativeKzg().computeCellsAndKzgProofs(blob).proofs;
  } catch {
    throw new ChainError('blob sidecar conversion failed: a field element is not below the BLS modulus');
  }
}

/**
 * Blobs whose proofs verified lately, by a digest of the blob, its commitment and its proofs: a
 * batcher or a test sends the same blob again and again (128 cell proofs take ~50 ms to verify).
 */
const verified = new Set<string>();
const VERIFIED_MAX = 64;

function verifyProofs(sidecar: BlobSidecar): void {
  const per = sidecar.version === 1 ? CELLS_PER_BLOB : 1;
  const keys = sidecar.blobs.map((blob, i) => {
    const h = createHash('sha256').update(blob).update(sidecar.commitments[i]);
    for (let p = i * per; p < (i + 1) * per; p++) h.update(sidecar.proofs[p]);
    return `${sidecar.version}:${h.digest('hex')}`;
  });
  if (keys.every((k) => verified.has(k))) return;
  checkProofs(sidecar);
  for (const k of keys) {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.values().next().value!);
    verified.add(k);
  }
}

function checkProofs(sidecar: BlobSidecar): void {
  const kzg = nativeKzg();
  if (sidecar.version === 1) {
    const cells: Uint8Array[] = [];
    const indices: number[] = [];
    const cellCommitments: Uint8Array[] = [];
    const ok = verifies(() => {
      sidecar.blobs.forEach((blob, i) => {
        const blobCells = kzg.computeCells(blob);
        for (let c = 0; c < CELLS_PER_BLOB; c++) {
          cells.push(blobCells[c]);
          indices.push(c);
          cellCommitments.push(sidecar.commitments[i]);
        }
      });
      return kzg.verifyCellKzgProofBatch(cellCommitments, indices, cells, sidecar.proofs);
    });
    if (!ok) throw new ChainError('KZG verification error: failed to verify cell proofs');
    return;
  }
  for (let i = 0; i < sidecar.blobs.length; i++) {
    if (!verifies(() => kzg.verifyBlobKzgProofBatch([sidecar.blobs[i]], [sidecar.commitments[i]], [sidecar.proofs[i]]))) {
      throw new ChainError(`KZG verification error: invalid blob proof: can't verify opening proof`);
    }
  }
}

/** Each versioned hash of a transaction against the one computed from its commitment, in geth's words. */
export function checkHashes(hashes: readonly Uint8Array[], computed: readonly Uint8Array[]): void {
  if (hashes.length !== computed.length) throw new ChainError(`invalid number of ${computed.length} blob commitments compared to ${hashes.length} blob hashes`);
  hashes.forEach((want, i) => {
    if (bytesToHex(computed[i]) !== bytesToHex(want)) throw new ChainError(`blob ${i}: computed hash ${bytesToHex(computed[i])} mismatches transaction one ${bytesToHex(want)}`);
  });
}

/** A verification that throws (a point off the curve, a field element out of range) fails. */
function verifies(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

/**
 * The sidecar the node builds for blobs given to eth_sendTransaction: the commitments and the
 * fork's proofs, one per blob before Osaka, 128 cell proofs per blob (wrapper version 1) from it.
 */
export function sidecarOf(common: Common, blobs: readonly Uint8Array[]): BlobSidecar {
  const max = maxBlobsPerTx(common);
  if (blobs.length === 0) throw new ChainError('blobless blob transaction');
  if (blobs.length > max) throw new ChainError(`too many blobs in transaction: have ${blobs.length}, permitted ${max}`);
  const version = sidecarVersion(common);
  const kzg = nativeKzg();
  const commitments: Uint8Array[] = [];
  const proofs: Uint8Array[] = [];
  for (const blob of blobs) {
    if (blob.length !== BLOB_BYTES) throw new ChainError(`invalid blob: ${blob.length} bytes, want ${BLOB_BYTES}`, undefined, -32602);
    let commitment: Uint8Array;
    try {
      commitment = kzg.blobToKzgCommitment(blob);
    } catch {
      throw new ChainError('invalid blob: a field element is not below the BLS modulus', undefined, -32602);
    }
    commitments.push(commitment);
    if (version === 0) proofs.push(kzg.computeBlobKzgProof(blob, commitment));
    else proofs.push(...kzg.computeCellsAndKzgProofs(blob).proofs);
  }
  return { version, blobs: [...blobs], commitments, proofs };
}
