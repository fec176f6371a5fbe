/** Blobs of mined blob transactions, as anvil serves them (anvil_getBlobByHash, anvil_getBlobsByTransactionHash). */
import type { ChainReads } from '../../chain/api.js';
import { hex } from '../../format/hex.js';
import { hash32 } from '../codecs.js';
import { method, type MethodDef } from '../registry.js';

export function blobMethods(chain: Pick<ChainReads, 'blob' | 'tx'>): MethodDef[] {
  return [
    /** A mined blob by its versioned hash; null when no mined transaction carries it. */
    method('anvil_getBlobByHash', [hash32], (vh) => {
      const found = chain.blob(hex(vh));
      return found ? hex(found.blob) : null;
    }),
    /** The blobs of a mined transaction, in order; null when it is unknown or carries none. */
    method('anvil_getBlobsByTransactionHash', [hash32], (h) => {
      const sidecar = chain.tx(hex(h))?.sidecar;
      return sidecar ? sidecar.blobs.map(hex) : null;
    }),
  ];
}
