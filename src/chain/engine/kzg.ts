/**
 * KZG commitments for EIP-4844 (blob transactions and the point-evaluation precompile at 0x0a)
 * and PeerDAS's cells (EIP-7594), from @crate-crypto/node-eth-kzg: a native addon (Rust) with the
 * Ethereum mainnet trusted setup built in. Building its context takes ~1 s (the setup and the
 * cell tables), so it is loaded on first use: a node that never sees a blob pays nothing at start.
 */
import { createRequire } from 'node:module';
import { bytesToHex, hexToBytes, type KZG as EngineKzg, type PrefixedHexString } from '@ethereumjs/util';
import type { DasContextJs } from '@crate-crypto/node-eth-kzg';

let instance: DasContextJs | undefined;

/** The native KZG context, built on first use. Synchronous: the engine calls KZG from synchronous code. */
export function nativeKzg(): DasContextJs {
  if (instance === undefined) {
    const lib = createRequire(import.meta.url)('@crate-crypto/node-eth-kzg') as typeof import('@crate-crypto/node-eth-kzg');
    // Precomputed tables make cell proofs (a version-1 sidecar) about twice as fast.
    instance = lib.DasContextJs.create({ usePrecomp: true });
  }
  return instance;
}

const b = (hex: string): Uint8Array => hexToBytes(hex as PrefixedHexString);
const h = (bytes: Uint8Array): PrefixedHexString => bytesToHex(bytes);

/** The engine's KZG interface (hex strings), answered by the native context. */
export const lazyKzg: EngineKzg = {
  blobToKzgCommitment: (blob) => h(nativeKzg().blobToKzgCommitment(b(blob))),
  computeBlobProof: (blob, commitment) => h(nativeKzg().computeBlobKzgProof(b(blob), b(commitment))),
  verifyProof: (commitment, z, y, proof) => nativeKzg().verifyKzgProof(b(commitment), b(z), b(y), b(proof)),
  verifyBlobProofBatch: (blobs, commitments, proofs) => nativeKzg().verifyBlobKzgProofBatch(blobs.map(b), commitments.map(b), proofs.map(b)),
  computeCells: (blob) => nativeKzg().computeCells(b(blob)).map(h),
  computeCellsAndProofs: (blob) => {
    const { cells, proofs } = nativeKzg().computeCellsAndKzgProofs(b(blob));
    return [cells.map(h), proofs.map(h)];
  },
  recoverCellsAndProofs: (indices, cells) => {
    const out = nativeKzg().recoverCellsAndKzgProofs(indices, cells.map(b));
    return [out.cells.map(h), out.proofs.map(h)];
  },
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) => nativeKzg().verifyCellKzgProofBatch(commitments.map(b), indices, cells.map(b), proofs.map(b)),
};
